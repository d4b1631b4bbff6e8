"""The room's Delivery of a letter to a thread, and why a thread takes no queued letter, loaded as it may be."""

from postbag.codex.files import (
    INTERRUPTED,
    THREAD_GONE,
    latest_turn,
    rollouts,
)
from postbag.codex.loaded import LOADED, NOT_LOADED, is_loaded
from postbag.codex.queue import Resume, find_codex, knock
from postbag.codex.wake import CODEX_WITHOUT_RESUME, DAEMON_STOPPED, STALLED, why_not_woken
from postbag.doors import Delivery
from postbag.signals import start_beside
from postbag.vendor_files import newest

# What a send says of a thread nobody has loaded that the resume it asked for did not wake.
RESUME_FAILED = {
    Resume.NO_DAEMON: DAEMON_STOPPED,
    Resume.UNSUPPORTED: CODEX_WITHOUT_RESUME,
}


class InBackground:
    """`look()`, worked out on a thread of its own while `codex queue`, which takes longer, takes the letter:
    some kernels make a process's first read of /proc/locks cost more than a send may spend."""

    WAIT = 1.0  # seconds, at most, once the door has answered: a slow disk must not hold the send

    def __init__(self, look):
        self._found = None

        def work():
            try:
                self._found = look()
            except Exception:  # noqa: S110 - what cannot be had is left out, not a failure
                pass

        # The reader was imported by the caller, on the main thread: a thread that imports while a refused
        # send's interpreter shuts down can crash it (seen as SIGSEGV from postbag.pyz's loader).
        self._thread = start_beside(work)

    def result(self):
        """What the look found, or None when it found nothing, failed or took too long."""
        self._thread.join(self.WAIT)
        return self._found


class CodexDelivery(Delivery):
    """A letter to a thread: before the knock, whether to ask codex's daemon to load the thread (`resume`),
    from its rollout; beside it, whether a running codex has it loaded (a loaded thread shrugs off a resume);
    after it, what to say of both."""

    def __init__(self, room, joined):
        self.room, self.thread = room, joined["thread"]
        self.resume, self.gone, self.loaded, self.why_not, self.answer = False, False, None, None, None
        self.turn = None
        home = room.home
        found = rollouts(home, self.thread)
        if found == []:  # codex queue stores it all the same
            self.gone = True
        elif found:  # None: no sessions here to read, and nothing is known
            system = room.here.platform
            self.loaded = InBackground(lambda: is_loaded(home, self.thread, system))
            self.turn = latest_turn(newest(found))
            self.why_not = why_not_woken(self.turn, room.wakes)
            self.resume = self.why_not is None

    def knock(self, envelope, sandbox):
        here = self.room.here
        self.answer = knock(find_codex(here), self.thread, envelope, here.child_env(), resume=self.resume)

    def note(self, letter):  # noqa: PLR0911 - one answer a case: gone, loaded, not to wake, woken, unclear, waiting
        if self.gone:
            return f"but {THREAD_GONE}"
        if self.loaded is None:
            return None
        state = self.loaded.result()
        if state == LOADED or self.answer == Resume.LOADED_ELSEWHERE:
            why = stalled(self.turn)
            return None if why is None else f"but {why}"  # else it takes it when idle
        if not self.resume:
            return _waits(state, self.why_not)
        if self.answer == Resume.WOKEN:
            return "codex's daemon woke the thread to take it"
        if self.answer == Resume.UNCLEAR:
            return (
                "but whether codex's daemon woke the thread is not known: codex queue said what postbag does not know"
            )
        return _waits(
            state,
            RESUME_FAILED.get(
                self.answer,
                "codex's daemon could not wake it: it is taken when the thread is resumed (in "
                "the app or editor, or with codex resume)",
            ),
        )

    def finish(self):
        if self.loaded is not None:
            self.loaded.result()


def stalled(turn):
    """Why a thread whose latest turn is `turn` (files.latest_turn) takes no queued letter, loaded as it may
    be (openai/codex#41060, and what follows it on 0.171.0), in words; else None."""
    trigger, ended, _ = turn
    if trigger == "exec" and ended == "working":
        return (
            "codex exec runs its turn, and Codex takes no letter into such a turn: when it ends, Codex begins a turn "
            "for the first letter queued and interrupts it as exec exits, so that letter is read by no model, or "
            "lost (openai/codex#41060)"
        )
    if (trigger, ended) == ("queue", INTERRUPTED):
        return f"{STALLED} (a prompt in codex resume)"
    return None


def _waits(state, why):
    if state == NOT_LOADED:
        return f"but it waits in codex's queue: no running codex has the thread loaded, and {why}"
    return f"but whether a running codex has the thread loaded cannot be told here; if none has, it waits: {why}"
