"""Run the postbag CLI with a fault injected: `python inject.py WHERE FAULTS -- ARGS`.

WHERE is `src` or the path of a postbag.pyz; FAULTS is a comma-separated list of
  timeout=SECONDS   doors give up after SECONDS instead of 30
  sndbuf            the inbox socket gets the smallest send buffer, so a stalled peer blocks the write
  write=ERRNO       the ledger append fails with ERRNO
  short-write       the ledger append reaches the disk only in part
  fsync=ERRNO       the ledger's fsync fails with ERRNO
  exec=ERRNO        starting codex fails with ERRNO
  lock=ERRNO        locking the ledger fails with ERRNO (ENOLCK on some network file systems)
  connect=ERRNO     connecting to Claude's socket fails with ERRNO (EPERM inside Codex's sandbox)
  open=ERRNO        opening the ledger fails with ERRNO (EROFS outside the sandbox's writable roots)
  signal=NAME       signal NAME reaches the process halfway through the ledger append, as a kill
                    sent at the wrong moment would
  linger            the thread that waits for codex queue's exit stays alive a while after it
  flushes=FILE      each flush to disk (fsync, or F_FULLFSYNC on macOS) is logged to FILE as the
                    device and inode of what it flushed, then done as usual
  kill-at=N         the process is killed (SIGKILL) as it takes the Nth step of writing a
                    person's file whole (each call whole_file.py makes of os), before the step
  file-short-write  each write of a person's file reaches the disk a byte at a time, as a disk
                    that takes part of a write does
These are failures a test cannot provoke for real on every machine; everything else runs
the shipped code unchanged.
"""

import errno
import os
import sys


def main():
    where, faults, separator, *args = sys.argv[1:]
    assert separator == "--"
    if where != "src":
        sys.path.insert(0, where)
    from postbag.__main__ import run

    for fault in filter(None, faults.split(",")):
        name, _, value = fault.partition("=")
        INJECT[name](value)
    sys.argv = [where, *args]
    sys.exit(run(args))


def _timeout(value):
    from postbag import processes

    processes.TIMEOUT = float(value)


def _sndbuf(_):
    import socket

    from postbag.claude import inbox as claude

    connect = claude._connect

    def small_buffer_connect(inbox, path, most):
        inbox.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1)
        return connect(inbox, path, most)

    claude._connect = small_buffer_connect


def _ledger_write_fails(value):
    write = os.write

    def failing_write(fd, data):
        if data.startswith(b'{"n": '):
            raise OSError(getattr(errno, value), os.strerror(getattr(errno, value)))
        return write(fd, data)

    os.write = failing_write


def _short_write(_):
    write = os.write

    def half_write(fd, data):
        if data.startswith(b'{"n": '):
            return write(fd, data[: len(data) // 2])
        return write(fd, data)

    os.write = half_write


def _signal_mid_append(value):
    import signal

    write = os.write

    def interrupted_write(fd, data):
        if not data.startswith(b'{"n": '):
            return write(fd, data)
        half = len(data) // 2
        written = write(fd, data[:half])
        number = getattr(signal, f"SIG{value}")
        if number != signal.SIGINT:  # its default action, whatever this process inherited (nohup ignores HUP)
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        return written + write(fd, data[half:])

    os.write = interrupted_write


def _connect_fails(value):
    from postbag.claude import inbox as claude

    def failing_connect(inbox, path, most):
        raise OSError(getattr(errno, value), os.strerror(getattr(errno, value)))

    claude._connect = failing_connect


def _ledger_open_fails(value):
    real_open = os.open

    def failing_open(path, flags, *args, **kwargs):
        if str(path).endswith(".jsonl"):
            raise OSError(getattr(errno, value), os.strerror(getattr(errno, value)))
        return real_open(path, flags, *args, **kwargs)

    os.open = failing_open


def _linger(_):
    import time

    write = os.write

    def lingering_write(fd, data):
        written = write(fd, data)
        if data == b"x":  # the waiting thread's wake-up: it stays alive through the append
            time.sleep(1)
        return written

    os.write = lingering_write


def _fsync_fails(value):
    def failing_fsync(fd):
        raise OSError(getattr(errno, value), os.strerror(getattr(errno, value)))

    os.fsync = failing_fsync


def _exec_fails(value):
    import subprocess

    class FailingPopen:
        def __init__(self, *args, **kwargs):
            raise OSError(getattr(errno, value), os.strerror(getattr(errno, value)))

    subprocess.Popen = FailingPopen


def _lock_fails(value):
    import fcntl

    def failing_flock(fd, operation):
        raise OSError(getattr(errno, value), os.strerror(getattr(errno, value)))

    fcntl.flock = failing_flock


def _log_flushes(value):
    import fcntl

    fsync, control = os.fsync, fcntl.fcntl

    def log(fd):
        status = os.fstat(fd)
        with open(value, "a") as file:
            file.write(f"{status.st_dev} {status.st_ino}\n")

    def logged_fsync(fd):
        log(fd)
        return fsync(fd)

    def logged_fcntl(fd, command, *args):
        if command == getattr(fcntl, "F_FULLFSYNC", None):
            log(fd)
        return control(fd, command, *args)

    os.fsync, fcntl.fcntl = logged_fsync, logged_fcntl


class _Steps:
    """os, as whole_file.py sees it: each call a step, counted, its function `step` wraps."""

    def __init__(self, step):
        self._step = step

    def __getattr__(self, name):
        found = getattr(os, name)
        return self._step(name, found) if callable(found) else found


def _kill_at(value):
    import signal

    from postbag import whole_file

    taken = [0]

    def step(name, function):
        def counted(*args, **kwargs):
            taken[0] += 1
            if taken[0] == int(value):
                os.kill(os.getpid(), signal.SIGKILL)
            return function(*args, **kwargs)

        return counted

    whole_file.os = _Steps(step)


def _file_short_write(_):
    from postbag import whole_file

    def step(name, function):
        if name != "write":
            return function
        return lambda fd, data: function(fd, bytes(data[:1]))

    whole_file.os = _Steps(step)


INJECT = {
    "kill-at": _kill_at,
    "file-short-write": _file_short_write,
    "flushes": _log_flushes,
    "lock": _lock_fails,
    "timeout": _timeout,
    "sndbuf": _sndbuf,
    "write": _ledger_write_fails,
    "short-write": _short_write,
    "fsync": _fsync_fails,
    "exec": _exec_fails,
    "signal": _signal_mid_append,
    "linger": _linger,
    "connect": _connect_fails,
    "open": _ledger_open_fails,
}

if __name__ == "__main__":
    main()
