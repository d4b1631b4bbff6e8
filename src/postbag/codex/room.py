"""Codex's room: what postbag asks of Codex, as room.py says a room offers it.

Its door is a thread, named by its id: in a shell Codex runs, CODEX_THREAD_ID (else
CODEX_SESSION_ID); in a call of postbag's MCP server, the threadId Codex puts in the call's
_meta, since it gives its MCP servers none of the thread's variables. A letter goes in by
`codex queue` (queue.py); what becomes of it is read from Codex's queue and the thread's
rollout (files.py), whether a running Codex has the thread loaded (loaded.py), and,
for a thread nobody has loaded, whether the letter wakes it (wake.py)."""

from postbag import codex
from postbag.codex import NAME, NO_WAKE, SESSION, THREAD, inside
from postbag.codex import wording as W
from postbag.codex.files import (
    IN_THE_QUEUE,
    THE_ROLLOUT,
    TURN_ENDED,
    TURN_WORKING,
    approval_policy,
    home_directory,
    in_the_queue,
    rollouts,
    took,
    turn_now,
    version_of,
)
from postbag.codex.loaded import LOADED, NOT_LOADED, is_loaded
from postbag.codex.queue import Resume, find_codex, knock
from postbag.codex.wake import CODEX_WITHOUT_RESUME, NEVER_ASKS, WILL_WAKE, unloaded, why_not_woken
from postbag.doors import Post, is_door_field, is_uuid
from postbag.receipts import NOT_TAKEN, UNKNOWN, WAITING, Beside, Receipt, taken_in, unproven
from postbag.refusal import Refusal
from postbag.room import CANNOT_TELL, TAKES, WILL_NOT, Reach, Room
from postbag.vendor_files import newest
from postbag.vendors import for_a_child

# The versions the real-client tier proves postbag on, oldest and newest (tests/clients/pins.py
# takes its pairs from here); an unknown receipt says so of records from outside them.
PROVEN = ("0.153.0", "0.171.0")
# The MCP server's send tool as Codex names it to its model: a function inside the server's
# namespace, the server registered under the name postbag (setup registers it so).
SEND_TOOL = "the tool send of the mcp__postbag namespace"
# What a send says of a thread nobody has loaded that the resume it asked for did not wake.
RESUME_FAILED = {Resume.NO_DAEMON: W.DAEMON_DOWN, Resume.UNSUPPORTED: CODEX_WITHOUT_RESUME}
GONE = W.GONE  # what a receipt says of a letter to a thread codex no longer has


class Codex(Room, vendor=codex):
    SEND_TOOL = SEND_TOOL
    PROVEN = PROVEN

    @property
    def home(self):
        return home_directory(self.here.env)

    @property
    def wakes(self):
        """Whether the exchange's letters may wake a thread no running codex has loaded."""
        return self.switches.get(NO_WAKE["field"], not NO_WAKE["value"]) is not NO_WAKE["value"]

    def door_of_session(self):
        """CODEX_THREAD_ID, else CODEX_SESSION_ID."""
        env = self.here.env
        if not inside(env):
            raise Refusal(W.JOIN_INSIDE)
        if THREAD in env:
            # CODEX_SESSION_ID can name a root shared by sub-agent threads, so a thread id that
            # is present but malformed is refused rather than silently replaced by the root.
            if not is_uuid(env[THREAD]):
                raise Refusal(W.NOT_A_THREAD_ID.format(variable=THREAD))
            name = THREAD
        else:
            name = SESSION
        if not is_door_field(env[name]):
            raise Refusal(W.NOT_TEXT.format(variable=name))
        return {"thread": env[name]}

    def calls(self, meta):
        """Where the call's _meta names a threadId, as Codex's calls do."""
        return type(meta) is dict and meta.get("threadId") is not None

    def caller(self, meta):
        """The thread of the threadId in the call's _meta."""
        thread = meta["threadId"]
        if type(thread) is not str or not is_uuid(thread):
            raise Refusal(W.CALL_NOT_A_THREAD)
        return {"thread": thread}

    def directory(self, door):
        """None: Codex starts a thread's server in the thread's own working directory, the
        one it works in now (under codex exec, its app server and its daemon's resume
        alike, 0.171.0), where its rollout's first record names only the one it began in."""
        del door

    def post(self, joined):
        return _Post(self, joined)

    def receipt(self, letter, joined):
        thread = _thread_of(joined)
        if thread is None:
            return Receipt(UNKNOWN, W.NO_THREAD_TO_READ)
        found = rollouts(self.home, thread)
        if found is None:
            return Receipt(UNKNOWN, W.NO_SESSIONS_HERE)
        rollout = newest(found) if found else None
        if rollout is not None:
            taken = taken_in(rollout, THE_ROLLOUT, letter, took, self.here.clock)
            if taken is not None:
                return taken
        place, unread = in_the_queue(self.home, thread, letter)
        if rollout is None:  # queued or not, no session of that thread will ever take it
            return Receipt(UNKNOWN, unread) if unread else Receipt(NOT_TAKEN, W.GONE)
        if place == IN_THE_QUEUE:
            return Receipt(WAITING, self._who_takes_it(thread, rollout))
        unknown = Receipt(UNKNOWN, unread or W.NEITHER_HOLDS_IT)
        return unknown.noting(unproven(NAME, version_of(rollout), PROVEN))

    def reachability(self, joined):
        thread = _thread_of(joined)
        if thread is None:
            return Reach(CANNOT_TELL, W.REACH_UNTOLD.format(why=W.ITS_NO_THREAD))
        found = rollouts(self.home, thread)
        if found == []:
            return Reach(WILL_NOT, W.THREAD_GONE)
        state = is_loaded(self.home, thread, self.here.platform) if found else None
        if state == LOADED:
            return Reach(TAKES, W.CAN_TAKE_LOADED.format(turn=_turn(newest(found))))
        if state == NOT_LOADED:
            prospect, words = unloaded(self.home, newest(found), self.wakes)
            if prospect == WILL_WAKE:
                return Reach(TAKES, W.CAN_TAKE_UNLOADED.format(words=words))
            return Reach(WILL_NOT, W.WILL_WAIT.format(words=words))
        return Reach(CANNOT_TELL, W.REACH_UNTOLD.format(why=W.LOADED_UNTOLD))

    def _who_takes_it(self, thread, rollout):
        state = is_loaded(self.home, thread, self.here.platform)
        if state == LOADED:
            return W.IN_QUEUE_LOADED.format(turn=_turn(rollout))
        if state == NOT_LOADED:
            return W.IN_QUEUE_UNLOADED.format(why=unloaded(self.home, rollout, self.wakes)[1])
        return W.IN_QUEUE_UNTOLD

    def installation(self):
        from postbag.codex.client import CodexInstallation  # only the human's verbs ask it

        return CodexInstallation(self.here)


class _Post(Post):
    """A letter to a thread: before the knock, whether to ask codex's daemon to load the
    thread (`resume`), from its rollout; beside the knock, whether a running codex has it
    loaded (a process's first read of /proc/locks can cost more than a send may spend,
    and a loaded thread shrugs off a resume); after it, what to say of both."""

    def __init__(self, room, joined):
        self.room, self.thread = room, joined["thread"]
        self.resume, self.gone, self.loaded, self.why_not, self.answer = False, False, None, None, None
        home = room.home
        found = rollouts(home, self.thread)
        if found == []:  # codex queue stores it all the same
            self.gone = True
        elif found:  # None: no sessions here to read, and nothing is known
            system = room.here.platform
            self.loaded = Beside(lambda: is_loaded(home, self.thread, system))
            self.why_not = why_not_woken(newest(found), room.wakes)
            self.resume = self.why_not is None

    def knock(self, envelope, sandbox):
        here = self.room.here
        self.answer = knock(find_codex(here), self.thread, envelope, for_a_child(here.env), resume=self.resume)

    def caveat(self):  # noqa: PLR0911 - one answer a case: gone, loaded, not to wake, woken, unclear, waiting
        if self.gone:
            return W.BUT_GONE
        if self.loaded is None:
            return None
        state = self.loaded.found()
        if state == LOADED or self.answer == Resume.LOADED_ELSEWHERE:
            return None  # a running codex has it loaded, and takes it when idle
        if not self.resume:
            return _waits(state, self.why_not)
        if self.answer == Resume.WOKEN:
            return W.WOKEN
        if self.answer == Resume.UNCLEAR:
            return W.WAKE_UNCLEAR
        return _waits(state, RESUME_FAILED.get(self.answer, W.DAEMON_COULD_NOT))

    def finish(self):
        if self.loaded is not None:
            self.loaded.found()


def _thread_of(joined):
    thread = joined.get("thread")
    return thread if type(thread) is str and is_uuid(thread) else None


def _turn(rollout):
    """What the loaded thread whose newest rollout is `rollout` is doing, and so when it takes a letter."""
    turn = turn_now(rollout)
    if turn == TURN_ENDED:
        return W.IDLE
    if turn == TURN_WORKING:
        return W.WORKING
    if approval_policy(rollout) == NEVER_ASKS:
        return W.RUNNING_A_TOOL
    return W.AT_A_CALL


def _waits(state, why):
    return (W.WAITS_UNLOADED if state == NOT_LOADED else W.WAITS_UNTOLD).format(why=why)
