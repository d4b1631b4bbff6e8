"""Codex's room: what postbag asks of Codex, as room.py says a room offers it.

Its door is a thread, named by its id: in a shell Codex runs, CODEX_THREAD_ID (else CODEX_SESSION_ID); in a call
of postbag's MCP server, the threadId Codex puts in the call's _meta, since it gives its MCP servers none of the
thread's variables. A letter goes in by `codex queue` (queue.py); what becomes of it is read from Codex's queue and
the thread's rollout (files.py), whether a running Codex has the thread loaded (loaded.py), and, for a thread
nobody has loaded, whether the letter wakes it (wake.py)."""

from postbag import codex, contract
from postbag.codex import NAME, NO_WAKE, SESSION, THREAD, inside
from postbag.codex.delivery import CodexDelivery, stalled
from postbag.codex.files import (
    IN_THE_QUEUE,
    INTERRUPTED,
    LEFT,
    THE_ROLLOUT,
    THREAD_GONE,
    TURN_ENDED,
    TURN_WORKING,
    home_directory,
    in_the_queue,
    latest_turn,
    read_before_its_turn_ended,
    rollouts,
    took,
    turn_now,
    version_of,
)
from postbag.codex.loaded import LOADED, NOT_LOADED, is_loaded
from postbag.codex.wake import NEVER_ASKS, WILL_WAKE, unloaded
from postbag.doors import is_door_field, is_uuid
from postbag.receipts import NOT_TAKEN, TAKEN, UNKNOWN, WAITING, Receipt, taken_in, unproven
from postbag.refusal import Refusal
from postbag.room import CANNOT_TELL, TAKES, WILL_NOT, Reach, Room
from postbag.vendor_files import newest

# The versions the real-client tier proves postbag on, oldest and newest (tests/clients/pins.py
# takes its pairs from here); an unknown receipt says so of records from outside them.
PROVEN = ("0.153.0", "0.171.0")
# The send tool as Codex names it to its model: a function in the namespace of the server setup registers as postbag.
SEND_TOOL = "the tool send of the mcp__postbag namespace"


class Codex(Room, vendor=codex):
    SEND_TOOL = SEND_TOOL
    PROVEN = PROVEN

    @property
    def home(self):
        return home_directory(self.here)

    @property
    def wakes(self):
        """Whether the exchange's letters may wake a thread no running codex has loaded."""
        return self.switches.get(NO_WAKE["field"], not NO_WAKE["value"]) is not NO_WAKE["value"]

    def door_of_session(self):
        """CODEX_THREAD_ID, else CODEX_SESSION_ID."""
        env = self.here.env
        if not inside(env):
            raise Refusal(contract.join_from_inside(NAME))
        if THREAD in env:
            # CODEX_SESSION_ID can name a root shared by sub-agent threads: a malformed thread id is not replaced by it.
            if not is_uuid(env[THREAD]):
                raise Refusal(f"{THREAD} is not a thread id")
            name = THREAD
        else:
            name = SESSION
        if not is_door_field(env[name]):
            raise Refusal(f"{name} is not valid text")
        return {"thread": env[name]}

    def calls(self, meta):
        """Where the call's _meta names a threadId, as Codex's calls do."""
        return type(meta) is dict and meta.get("threadId") is not None

    def caller(self, meta):
        """The thread of the threadId in the call's _meta."""
        thread = meta["threadId"]
        if type(thread) is not str or not is_uuid(thread):
            raise Refusal("the call's threadId is not a thread id")
        return {"thread": thread}

    def directory(self, door):
        """None: Codex starts a thread's server in the directory the thread works in now (under codex exec, its app
        server and its daemon's resume alike, 0.171.0); its rollout's first record names only the one it began in."""
        del door

    def delivery(self, joined):
        return CodexDelivery(self, joined)

    def receipt(self, letter, joined):
        thread = _thread_of(joined)
        if thread is None:
            return Receipt(UNKNOWN, "codex's join names no thread id, only a session id")
        found = rollouts(self.home, thread)
        if found is None:
            return Receipt(UNKNOWN, "codex keeps no sessions here to read (CODEX_HOME)")
        if not found:
            return self._gone(thread, letter)
        rollout = newest(found)
        taken = self._read_in(rollout, letter)
        if taken is not None:
            return taken
        place, unread = in_the_queue(self.home, thread, letter)
        if place == IN_THE_QUEUE:
            return Receipt(WAITING, self._who_takes_it(thread, rollout))
        return self._missing(rollout, unread)

    def _gone(self, thread, letter):
        """Queued or not, no session of a thread whose rollout is gone will ever take a letter."""
        _, unread = in_the_queue(self.home, thread, letter)
        if unread:
            return Receipt(UNKNOWN, unread)
        return Receipt(NOT_TAKEN, THREAD_GONE)

    def _read_in(self, rollout, letter):
        """What the rollout says of the letter, or None where it does not hold it."""
        taken = taken_in(rollout, THE_ROLLOUT, letter, took, self.here.clock)
        if taken is not None and taken.state == TAKEN and read_before_its_turn_ended(rollout, letter) is False:
            return Receipt(
                NOT_TAKEN,
                "the thread's rollout holds it, but the turn Codex began for it was interrupted before the model "
                "read it (as the end of a codex exec run interrupts one: openai/codex#41060)",
            )
        return taken

    def _missing(self, rollout, unread):
        """A letter neither the queue nor the live thread's rollout holds."""
        if not unread and latest_turn(rollout)[:2] == ("queue", INTERRUPTED):
            return Receipt(
                UNKNOWN,
                "neither codex's queue nor the thread's rollout holds it; the thread's last turn, which Codex began "
                "for a queued letter, was interrupted, and the letter of such a turn is at times lost "
                "(openai/codex#41060)",
            )
        unknown = Receipt(UNKNOWN, unread or "neither codex's queue nor the thread's rollout holds it")
        return unknown.noting(unproven(NAME, version_of(rollout), PROVEN))

    def reachability(self, joined):
        thread = _thread_of(joined)
        if thread is None:
            return Reach(
                CANNOT_TELL,
                "whether codex can take a letter now cannot be told: its join names no thread id, only a session id",
            )
        found = rollouts(self.home, thread)
        if found == []:
            return Reach(
                WILL_NOT,
                "codex cannot take a letter: codex no longer has the thread it joined with (its "
                "rollout is gone); it must join again from a live session",
            )
        state = is_loaded(self.home, thread, self.here.platform) if found else None
        if state not in (LOADED, NOT_LOADED):
            return Reach(
                CANNOT_TELL,
                "whether codex can take a letter now cannot be told: whether a running codex "
                "has its thread loaded is unknown here",
            )
        return self._reach_of(state, newest(found))

    def _reach_of(self, state, rollout):
        if state == LOADED:
            latest = latest_turn(rollout)
            why_not = stalled(latest)
            if why_not is not None:
                return Reach(
                    WILL_NOT, f"codex will not take a letter now: a running codex has its thread loaded, but {why_not}"
                )
            turn = _turn(rollout, latest)
            return Reach(TAKES, f"codex can take a letter now: a running codex has its thread loaded, and {turn}")
        prospect, words = unloaded(self.home, rollout, self.wakes)
        if prospect == WILL_WAKE:
            return Reach(TAKES, f"codex can take a letter now: no running codex has its thread loaded, and {words}")
        return Reach(WILL_NOT, f"codex's letters will wait: no running codex has its thread loaded, and {words}")

    def _who_takes_it(self, thread, rollout):
        state = is_loaded(self.home, thread, self.here.platform)
        if state == LOADED:
            turn = _turn(rollout, latest_turn(rollout))
            return f"in codex's queue for the thread, which a running codex has loaded: {turn}"
        if state == NOT_LOADED:
            _, why = unloaded(self.home, rollout, self.wakes)
            return f"in codex's queue for the thread, which no running codex has loaded: {why}"
        return "in codex's queue for the thread; whether a running codex has it loaded cannot be told here"

    def installation(self):
        from postbag.codex.client import CodexInstallation  # only the human's verbs ask it

        return CodexInstallation(self.here)


def _thread_of(joined):
    thread = joined.get("thread")
    return thread if type(thread) is str and is_uuid(thread) else None


def _turn(rollout, latest):
    """What the loaded thread whose newest rollout is `rollout`, its latest turn `latest`
    (files.latest_turn), is doing, and so when it takes a letter."""
    why = stalled(latest)
    if why is not None:
        return why
    _, ended, policy = latest
    # LEFT: its exec is gone, and the codex that loaded the thread since runs no turn of it.
    turn = TURN_ENDED if ended == LEFT else turn_now(rollout)
    if turn == TURN_ENDED:
        return "it takes the letter when it is idle"
    if turn == TURN_WORKING:
        return "its turn is working, and it takes the letter when the turn ends"
    if policy == NEVER_ASKS:
        return "its turn is running a tool call, and it takes the letter when the turn ends"
    return (
        "its turn has stopped at a tool call that has no result yet: a command still "
        "running, or an approval nobody has given in that codex; it takes the letter "
        "when the turn ends"
    )
