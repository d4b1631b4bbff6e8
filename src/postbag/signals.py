"""Holding signals back while postbag must not be stopped halfway: during an append, while a thread is born that
must never take a signal meant for the main one, and once a door has a letter the command line sent."""

# The private C module beneath `signal`, where it holds all that is used here: its masks are sets of numbers, where
# `signal` makes an enum member of each of some sixty signals, which would cost every send 5 ms (docs/performance.md).
# Where it is missing, lacks a name used here, or refuses the calls tried here (which change nothing), `signal`
# serves, its functions the same ones (tests/test_private_modules.py makes each happen); `signal` imports `_signal`
# itself, so where that is broken, so is `signal`.
USED = ("pthread_sigmask", "valid_signals", "signal", "SIG_BLOCK", "SIG_SETMASK", "SIG_IGN", "SIG_DFL")
USED += ("SIGXFSZ", "SIGTERM", "SIGHUP", "SIGINT")
try:
    import _signal as _c

    if not all(hasattr(_c, name) for name in USED):
        raise ImportError("_signal holds less than postbag uses")
    _c.pthread_sigmask(_c.SIG_BLOCK, _c.valid_signals() & set())  # blocks nothing: the call, tried
except (ImportError, TypeError, ValueError):
    import signal as _c


class Held:
    """Every signal that can be blocked waits, in this thread, until the block is left; then the mask is as it was."""

    __slots__ = ("_previous",)

    def __enter__(self):
        self._previous = _c.pthread_sigmask(_c.SIG_BLOCK, _c.valid_signals())
        return self

    def __exit__(self, *exc_info):
        _c.pthread_sigmask(_c.SIG_SETMASK, self._previous)


class FileSizeAsError:
    """Past RLIMIT_FSIZE the kernel kills a process that writes on (SIGXFSZ); in this block the signal is ignored, so
    that the write fails with EFBIG instead. The handler before comes back after: a long-lived caller keeps its own."""

    __slots__ = ("_previous",)

    def __enter__(self):
        self._previous = _c.signal(_c.SIGXFSZ, _c.SIG_IGN)
        return self

    def __exit__(self, *exc_info):
        _c.signal(_c.SIGXFSZ, self._previous)


class Stopped(Exception):
    """A SIGTERM or SIGHUP, `number`, that stopped the work in hand under `Stopping`."""

    def __init__(self, number):
        super().__init__(number)
        self.number = number


class Stopping:
    """In this block SIGTERM and SIGHUP raise Stopped in the main thread, as SIGINT raises KeyboardInterrupt, so that
    the work in hand can be undone before the process ends. The handlers before come back after."""

    NUMBERS = (_c.SIGTERM, _c.SIGHUP)

    def __enter__(self):
        self._previous = {number: _c.signal(number, self._stop) for number in self.NUMBERS}
        return self

    def __exit__(self, *exc_info):
        for number, handler in self._previous.items():
            _c.signal(number, handler)

    @staticmethod
    def _stop(number, frame):
        raise Stopped(number)


def end_as(number):
    """End the process as the signal `number` would have ended it, had it not waited."""
    import os

    _c.signal(number, _c.SIG_DFL)
    os.kill(os.getpid(), number)


def ignore_interrupts():
    """From the moment a door has the letter, an interrupt could only make a lie of the
    outcome: the process's command-line send ignores it until the letter is recorded."""
    _c.signal(_c.SIGINT, _c.SIG_IGN)


def start_beside(work):
    """Start `work` on a daemon thread born with every signal blocked, and return it: a signal must reach the main
    thread, which holds it back while it appends, for another thread would end the process halfway through one."""
    import threading

    with Held():
        thread = threading.Thread(target=work, daemon=True)
        thread.start()
    return thread
