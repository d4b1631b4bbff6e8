"""Claude Code's room: what postbag asks of Claude Code, as room.py says a room offers it.

Its door is a session's inbox socket and token, which the session exports to its commands and MCP servers
(inbox.py). What becomes of a letter is read from the session's transcript and files (files.py), and from what
Claude Code lets in from other sessions (acceptance.py): Claude's own word, where the knock heard it, first."""

from postbag import claude, contract
from postbag.claude import NAME, SESSION, SOCKET, TOKEN, inside, without_an_inbox
from postbag.claude.acceptance import HOLD, REFUSE, Settings, verdict
from postbag.claude.delivery import ClaudeDelivery
from postbag.claude.files import (
    ENDED,
    THE_TRANSCRIPT,
    Session,
    config_directory,
    listener,
    live_session,
    session_of,
    taken_elsewhere,
    took,
    transcripts,
    version_of,
)
from postbag.claude.hold import held_receipt
from postbag.claude.inbox import DROPPED, HELD, REFUSED, require_a_socket
from postbag.claude.modes import permission_class
from postbag.doors import is_door_field
from postbag.receipts import NOT_TAKEN, UNKNOWN, Receipt, taken_in, unproven
from postbag.refusal import Refusal
from postbag.room import CANNOT_TELL, TAKES, WILL_NOT, Reach, Room
from postbag.times import moment
from postbag.vendor_files import newest, quoted, text

# The versions the real-client tier proves postbag on, oldest and newest (tests/clients/pins.py
# takes its pairs from here); an unknown receipt says so of records from outside them.
PROVEN = ("2.1.248", "2.1.337")
# The first Claude Code whose crossSessionInbound hold keeps a letter from the model (2.1.270
# and older, run with -p, hand it over all the same); accept and refuse work across PROVEN.
HOLDS_SINCE = "2.1.271"
# The first Claude Code whose session runs a turn after its folder is moved, as a repository moved while its
# pair works needs (2.1.280 and older end every turn at once: "Path ... does not exist").
MOVES_SINCE = "2.1.281"
# The MCP server's send tool as Claude Code names it to its model (mcp__SERVER__TOOL; setup names it postbag).
SEND_TOOL = "the tool mcp__postbag__send"


class Claude(Room, vendor=claude):
    SEND_TOOL = SEND_TOOL
    PROVEN = PROVEN

    @property
    def config(self):
        return config_directory(self.here)

    def door_of_session(self):
        """Its socket and token, and its id, by which its transcript is found."""
        env = self.here.env
        if without_an_inbox(env):
            raise Refusal(
                "this Claude Code session has no inbox for letters: its cross-session messaging "
                "is off (a --restricted session, or messaging switched off in this Claude Code), "
                "so no letter can reach it"
            )
        if not inside(env):
            raise Refusal(contract.join_from_inside(NAME))
        door = {"socket": env[SOCKET], "token": env[TOKEN]}
        for field, name in (("socket", SOCKET), ("token", TOKEN)):
            if not is_door_field(door[field]):
                raise Refusal(f"{name} is not valid text")
        door["socket"] = self.here.absolute(door["socket"])
        require_a_socket(door["socket"])
        session = env.get(SESSION)
        if session and is_door_field(session):
            door["session"] = session
        # Its process, as the session file on its socket names it: receipts know it by this after /clear,
        # which gives it another session id (and session file) while it keeps its socket.
        found = listener(self.config, door["socket"])
        if found is not None and found[1].pid is not None:
            door["pid"] = found[1].pid
        return door

    def calls(self, meta):
        """Where the server inherited a Claude Code session's variables: Claude Code sends
        nothing of the session with the call."""
        del meta
        return inside(self.here.env) or without_an_inbox(self.here.env)

    def caller(self, meta):
        """The session whose inbox variables the server inherited."""
        del meta
        return self.door_of_session()

    def directory(self, door):
        """From its session file: found by its id, else by the socket it listens on."""
        session = session_of(door)
        alive = live_session(self.config, session) if session is not None else None
        if isinstance(alive, Session) and alive.cwd:
            return alive.cwd
        found = listener(self.config, door["socket"])
        return found[1].cwd if found is not None else None

    def delivery(self, joined):
        return ClaudeDelivery(self, joined)

    def receipt(self, letter, joined):  # noqa: PLR0911 - its transcript; once it ended, what took its socket
        session = session_of(joined)
        if session is None:
            return Receipt(UNKNOWN, "claude's join names no session to look in (a join from before postbag 1.2)")
        config, clock = self.config, self.here.clock
        found = transcripts(config, session)
        taken = taken_in(newest(found), THE_TRANSCRIPT, letter, took, clock) if found else None
        if taken is not None:
            return taken
        alive = live_session(config, session)
        if alive == ENDED:  # the socket's listener now may be another session, or this one after /clear
            now = listener(config, joined["socket"])
            cleared = now is not None and _is_the_joined_process(joined, now[1])
            elsewhere, unread = taken_elsewhere(config, set(found), letter, clock)
            if elsewhere is not None:
                return _taken_elsewhere(elsewhere, cleared)
            if unread is not None:
                return _unread_elsewhere(unread, cleared)
            if cleared:
                found = transcripts(config, now[0])
                alive = now[1]
            elif now is not None:  # its transcript is written a moment after
                return Receipt(
                    UNKNOWN,
                    "claude's transcript holds no sign of the letter yet: the session that joined "
                    "has ended, and another claude session, which has not joined, listens on its "
                    "socket",
                )
            else:
                return Receipt(NOT_TAKEN, "claude's session has ended, and its transcript holds no sign of the letter")
        why = self._why_not(letter, alive, newest(found) if found else None)
        return why.noting(unproven(NAME, version_of(newest(found)), PROVEN)) if found else why

    def _why_not(self, letter, alive, transcript):  # noqa: PLR0911 - Claude's word first, then each policy
        """What the records say of a letter the transcript does not hold, sent to a session that runs (`alive`,
        a Session) or whose files cannot tell (CANNOT_TELL): Claude's own word, where the knock heard one;
        else what its policy does with a letter, unless its settings changed since it was sent."""
        sent = moment(letter["at"])
        running = alive if isinstance(alive, Session) else None
        settings = Settings(self.here, self.config, running.cwd if running else None)
        found = verdict(settings, lambda: permission_class(settings, transcript, running, sent), running)
        said = text(letter, "recipient_said")
        # + 1, for the ledger's time is to the second; None where the letter's time names no moment.
        changed = None if sent is None else settings.changed_since(sent + 1)
        if said == DROPPED:
            return Receipt(NOT_TAKEN, "claude dropped it at its inbox: it never reached the session")
        if said == REFUSED or (said is None and found.policy == REFUSE and changed is False):
            refused = f"claude refused it, since {found.why}" if found.policy == REFUSE else "claude refused it"
            return Receipt(NOT_TAKEN, refused)
        if said == HELD or (said is None and found.policy == HOLD and changed is False):
            if found.policy != HOLD:  # Claude's own word, which its records do not explain
                unexplained = "claude holds it for the person's review, for a reason its records do not show"
                return Receipt(NOT_TAKEN, unexplained)
            return held_receipt(found, sent, self.here.clock)
        if changed:
            value, _ = settings.inbound()
            return Receipt(
                UNKNOWN,
                "claude's transcript holds no sign of the letter, and claude's settings now "
                f"say crossSessionInbound {quoted(value or 'unset')}, changed since it was sent: "
                "what they said then is not recorded",
            )
        if changed is None and found.policy in (REFUSE, HOLD):
            return Receipt(
                UNKNOWN,
                "claude's transcript holds no sign of the letter, and the ledger's time for "
                f"it, {quoted(letter['at'])}, names no moment: whether claude's settings changed "
                "since it was sent cannot be told",
            )
        if found.policy == CANNOT_TELL:
            return Receipt(
                UNKNOWN,
                "claude's transcript holds no sign of the letter, and whether the session let "
                f"it in cannot be told: {found.why}",
            )
        return Receipt(
            UNKNOWN, "claude's transcript holds no sign of the letter (yet), and its records say nothing of why"
        )

    def reachability(self, joined):
        session = session_of(joined)
        if session is None:
            return Reach(
                CANNOT_TELL,
                "whether claude can take a letter now cannot be told: its join names no session "
                "(a join from before postbag 1.2)",
            )
        alive = live_session(self.config, session)
        if alive != ENDED:
            return self._reach(session, alive)
        other = listener(self.config, joined["socket"])
        if other is None:
            return Reach(
                WILL_NOT, "claude cannot take a letter now: its session has ended; start Claude again, and let it join"
            )
        reach = self._reach(*other)
        if _is_the_joined_process(joined, other[1]):  # the same session after /clear: nothing to mend
            return reach
        return Reach(
            reach.state,
            f"{reach.words} (the session that joined has ended, and another claude session, "
            "which has not joined, listens on its socket: let it join, so that the ledger "
            "names it)",
        )

    def _reach(self, session, alive):
        """Whether the session `session`, which runs as `alive` says, can take a letter now: a Reach."""
        found = self.verdict_of(session, alive)
        if found.policy == REFUSE:
            return Reach(
                WILL_NOT, f"claude will not take a letter now: it refuses each, since {found.why}; {found.remedy}"
            )
        if found.policy == HOLD:
            fate = found.hold.fate(None, self.here.clock)
            return Reach(
                WILL_NOT,
                "claude will not act on a letter at once: it holds each for the person's review, "
                f"since {found.why}; {fate}; {found.remedy}",
            )
        if not isinstance(alive, Session):
            return Reach(
                CANNOT_TELL,
                "whether claude can take a letter now cannot be told: its client keeps no session files here",
            )
        if found.policy == CANNOT_TELL:
            untold = f"{found.why}; {found.remedy}"
            return Reach(CANNOT_TELL, f"whether claude can take a letter now cannot be told: {untold}")
        return Reach(TAKES, f"claude can take a letter now: its session runs, and {found.why}")

    def verdict_of(self, session, alive):
        """What Claude does now with a letter to `session`, which runs as `alive` says."""
        running = alive if isinstance(alive, Session) else None
        settings = Settings(self.here, self.config, running.cwd if running else None)
        found = transcripts(self.config, session)
        return verdict(settings, lambda: permission_class(settings, newest(found) if found else None, running), running)

    def installation(self):
        from postbag.claude.client import ClaudeInstallation  # only the human's verbs ask it

        return ClaudeInstallation(self.here)


def _is_the_joined_process(joined, running):
    """Whether `running`, the Session on the joined socket now, is the process that joined (as after /clear)."""
    pid = joined.get("pid")
    return type(pid) is int and pid == running.pid


def _taken_elsewhere(taken, cleared):
    """`taken`, the receipt of a letter another transcript holds, saying whose it is: the
    joined session's own, begun since (`cleared`), or another session's on its socket."""
    if cleared:
        taken.why = (
            "by the session that joined, in the transcript it began since under another session id, as /clear "
            "and /branch begin one"
        )
    else:
        taken.why = (
            "by another claude session, which listens on the socket it went to: the session that joined has "
            "ended, and the new one has not joined"
        )
    return taken


def _unread_elsewhere(why, cleared):
    """The receipt of a letter another transcript may hold, which cannot be read, for `why`."""
    if cleared:
        return Receipt(
            UNKNOWN,
            "the session that joined has begun another transcript since, as /clear and /branch do; whether it took "
            f"the letter there is unknown: {why}",
        )
    return Receipt(UNKNOWN, f"claude's session has ended; whether another took the letter is unknown: {why}")
