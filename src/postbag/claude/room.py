"""Claude Code's room: what postbag asks of Claude Code, as room.py says a room offers it.

Its door is a session's inbox socket and token, which the session exports to its
commands and MCP servers (inbox.py). What becomes of a letter is read from the session's
transcript and files (files.py), and from what Claude Code lets in from other sessions
(acceptance.py): Claude's own word, where the knock heard it, first."""

from postbag import claude
from postbag.claude import DOOR_FIELDS, NAME, SESSION, SOCKET, TOKEN, inside, without_an_inbox
from postbag.claude import wording as W
from postbag.claude.acceptance import HOLD, REFUSE, Settings, permission_class, verdict
from postbag.claude.files import (
    ENDED,
    THE_TRANSCRIPT,
    Session,
    config_directory,
    listener,
    live_session,
    taken_elsewhere,
    took,
    transcripts,
    version_of,
)
from postbag.claude.inbox import DROPPED, HELD, REFUSED, knock, require_a_socket
from postbag.doors import Post, is_door_field, is_uuid
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
# The MCP server's send tool as Claude Code names it to its model (mcp__SERVER__TOOL), the
# server registered under the name postbag (setup registers it so).
SEND_TOOL = "the tool mcp__postbag__send"
# How long a knock listens for Claude's word, by what the records of a running session
# foretell: a letter they say Claude holds or refuses is said of within milliseconds
# (about 30 ms, measured on the real clients); one they cannot tell of gets a moment; one
# they say Claude lets in, none, as Claude says nothing of a letter it takes.
HEARING = {HOLD: 1.0, REFUSE: 1.0, CANNOT_TELL: 0.25}


class Claude(Room, vendor=claude):
    SEND_TOOL = SEND_TOOL
    PROVEN = PROVEN

    @property
    def config(self):
        return config_directory(self.here.env)

    def door_of_session(self):
        """Its socket and token, and its id, by which its transcript is found."""
        env = self.here.env
        if without_an_inbox(env):
            raise Refusal(W.NO_INBOX)
        if not inside(env):
            raise Refusal(W.JOIN_INSIDE)
        door = {"socket": env[SOCKET], "token": env[TOKEN]}
        for field, name in (("socket", SOCKET), ("token", TOKEN)):
            if not is_door_field(door[field]):
                raise Refusal(W.NOT_TEXT.format(variable=name))
        door["socket"] = self.here.absolute(door["socket"])
        require_a_socket(door["socket"])
        session = env.get(SESSION)
        if session and is_door_field(session):
            door["session"] = session
        # Its process, as the file of the session on its socket names it, by which receipts
        # know it after /clear, which gives it another session id (and the file the new one)
        # while it keeps its socket.
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
        session = _session_of(door)
        alive = live_session(self.config, session) if session is not None else None
        if isinstance(alive, Session) and alive.cwd:
            return alive.cwd
        found = listener(self.config, door["socket"])
        return found[1].cwd if found is not None else None

    def post(self, joined):
        return _Post(self, joined)

    def receipt(self, letter, joined):
        session = _session_of(joined)
        if session is None:
            return Receipt(UNKNOWN, W.NO_SESSION_TO_READ)
        config, clock = self.config, self.here.clock
        found = transcripts(config, session)
        taken = taken_in(newest(found), THE_TRANSCRIPT, letter, took, clock) if found else None
        if taken is not None:
            return taken
        alive = live_session(config, session)
        if alive == ENDED:  # the socket's listener now may be another session, or this one after /clear
            now = listener(config, joined["socket"])
            cleared = now is not None and _is_the_joined_process(joined, now[1])
            who = (W.TAKEN_AFTER_CLEAR, W.CLEAR_UNTOLD) if cleared else (W.TAKEN_BY_ANOTHER, W.ANOTHER_UNTOLD)
            elsewhere = taken_elsewhere(config, set(found), letter, clock, who)
            if elsewhere is not None:
                return elsewhere
            if cleared:
                found = transcripts(config, now[0])
                alive = now[1]
            elif now is not None:  # its transcript is written a moment after
                return Receipt(UNKNOWN, W.NO_SIGN_YET_RESTARTED)
            else:
                return Receipt(NOT_TAKEN, W.ENDED_WITHOUT_IT)
        why = self._why_not(letter, alive, newest(found) if found else None)
        return why.noting(unproven(NAME, version_of(newest(found)), PROVEN)) if found else why

    def _why_not(self, letter, alive, transcript):  # noqa: PLR0911 - Claude's word first, then each policy
        """What the records say of a letter the transcript does not hold, sent to a session
        that runs (`alive`, a Session) or whose files cannot tell (CANNOT_TELL): Claude's
        own word, where the knock heard one; else what its policy does with a letter,
        unless its settings changed since the letter was sent."""
        sent = moment(letter["at"])
        settings = Settings(self.here, self.config, alive.cwd if isinstance(alive, Session) else None)
        running = _if_running(alive)
        found = verdict(settings, lambda: permission_class(settings, transcript, running, sent), running)
        said = text(letter, "recipient_said")
        # Whether the settings changed since it was sent (the ledger's time is to the
        # second); None where its time names no moment, and that cannot be told.
        changed = None if sent is None else settings.changed_since(sent + 1)
        if said == DROPPED:
            return Receipt(NOT_TAKEN, W.DROPPED_AT_INBOX)
        if said == REFUSED or (said is None and found.policy == REFUSE and changed is False):
            refused = W.REFUSED_SINCE.format(why=found.why) if found.policy == REFUSE else W.REFUSED_IT
            return Receipt(NOT_TAKEN, refused)
        if said == HELD or (said is None and found.policy == HOLD and changed is False):
            return Receipt(NOT_TAKEN, _held(found, sent, settings.expiry(), self.here.clock.now()))
        if changed:
            value, _ = settings.inbound()
            return Receipt(UNKNOWN, W.SETTINGS_CHANGED.format(value=quoted(value or "unset")))
        if changed is None and found.policy in (REFUSE, HOLD):
            return Receipt(UNKNOWN, W.NO_MOMENT.format(at=quoted(letter["at"])))
        if found.policy == CANNOT_TELL:
            return Receipt(UNKNOWN, W.LET_IN_UNTOLD.format(why=found.why))
        return Receipt(UNKNOWN, W.NOTHING_SAID)

    def reachability(self, joined):
        session = _session_of(joined)
        if session is None:
            return Reach(CANNOT_TELL, W.REACH_UNTOLD.format(why=W.NO_SESSION_NAMED))
        alive = live_session(self.config, session)
        if alive != ENDED:
            return self._reach(session, alive)
        other = listener(self.config, joined["socket"])
        if other is None:
            return Reach(WILL_NOT, W.ENDED)
        reach = self._reach(*other)
        if _is_the_joined_process(joined, other[1]):  # the same session after /clear: nothing to mend
            return reach
        return Reach(reach.state, W.RESTARTED_ON_ITS_SOCKET.format(reach=reach.words))

    def _reach(self, session, alive):
        """Whether the session `session`, which runs as `alive` says, can take a letter now: a Reach."""
        found = self._verdict(session, alive)
        if found.policy == REFUSE:
            return Reach(WILL_NOT, W.WILL_NOT_TAKE.format(why=found.why, remedy=found.remedy))
        if found.policy == HOLD:
            return Reach(WILL_NOT, W.WILL_HOLD.format(why=found.why, waits=found.waits, remedy=found.remedy))
        if not isinstance(alive, Session):
            return Reach(CANNOT_TELL, W.REACH_UNTOLD.format(why=W.NO_SESSION_FILES))
        if found.policy == CANNOT_TELL:
            untold = W.UNTOLD_WITH_REMEDY.format(why=found.why, remedy=found.remedy)
            return Reach(CANNOT_TELL, W.REACH_UNTOLD.format(why=untold))
        return Reach(TAKES, W.CAN_TAKE.format(why=found.why))

    def _verdict(self, session, alive):
        """What Claude does now with a letter to `session`, which runs as `alive` says."""
        running = _if_running(alive)
        settings = Settings(self.here, self.config, running.cwd if running else None)
        found = transcripts(self.config, session)
        return verdict(settings, lambda: permission_class(settings, newest(found) if found else None, running), running)

    def installation(self):
        from postbag.claude.client import ClaudeInstallation  # only the human's verbs ask it

        return ClaudeInstallation(self.here)


class _Post(Post):
    """A letter to a session: before the knock, what Claude's records foretell of it, which
    decides whether the knock listens for Claude's word; after it, what to say and record."""

    def __init__(self, room, joined):
        self.room, self.joined, self.word, self.reason = room, joined, None, None
        self.found, self.hearing = None, None
        session = _session_of(joined)
        if session is not None:
            try:
                alive = live_session(room.config, session)
                self.found = None if alive == ENDED else room._verdict(session, alive)
            except Exception:
                alive = None
            # Only a session whose file says it runs is one whose word is worth the wait.
            if isinstance(alive, Session) and self.found is not None:
                self.hearing = HEARING.get(self.found.policy)

    def knock(self, envelope, sandbox):
        fields = {field: self.joined[field] for field in DOOR_FIELDS}
        ear = knock(fields, envelope, here=self.room.here, sandbox=sandbox, hear=self.hearing is not None)
        if ear is not None:
            self.word, self.reason = ear.word(self.hearing)

    def recorded(self):
        return {} if self.word is None else {"recipient_said": self.word}

    def caveat(self):  # noqa: PLR0911 - Claude's own word first, then what its records foretold
        found = self.found
        if self.word == HELD:
            if found is not None and found.policy == HOLD:
                return W.BUT_HOLDS.format(why=found.why, waits=found.waits)
            return W.BUT_HOLDS_UNSAID
        if self.word == REFUSED:
            if found and found.policy == REFUSE:
                return W.BUT_REFUSED_SINCE.format(why=found.why)
            return W.BUT_REFUSED
        if self.word == DROPPED:
            return W.BUT_DROPPED.format(why=self.reason or W.DROPPED_UNSAID)
        if found is not None and found.policy == REFUSE:
            return W.BUT_REFUSES.format(why=found.why)
        if found is not None and found.policy == HOLD:
            return W.BUT_HOLDS.format(why=found.why, waits=found.waits)
        return None


def _session_of(joined):
    session = joined.get("session")
    return session if type(session) is str and is_uuid(session) else None


def _is_the_joined_process(joined, running):
    """Whether `running`, the Session on the joined socket now, is the process that joined
    (under another session id since, as after /clear), as the join's `pid` says."""
    pid = joined.get("pid")
    return type(pid) is int and pid == running.pid


def _if_running(alive):
    return alive if isinstance(alive, Session) else None


def _held(found, sent, expiry, now):
    """What became of a letter Claude held, sent at `sent` (seconds since the epoch), given
    the settings' `expiry` (its name, and its seconds or None), as it stands `now`: waiting
    for the person, or, unanswered within dialogExpiry, dropped."""
    named, seconds = expiry
    said = found.policy == HOLD
    if sent is not None and seconds is not None and now > sent + seconds:
        unanswered = W.NOBODY_APPROVED if found.asked else W.NOBODY_ASKED
        dropped = W.HELD_AND_DROPPED if said else W.HELD_UNSAID_AND_DROPPED
        return dropped.format(why=found.why, unanswered=unanswered, expiry=named)
    return (W.HOLDS_IT if said else W.HOLDS_IT_UNSAID).format(why=found.why, waits=found.waits)
