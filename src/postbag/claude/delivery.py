"""A letter on its way to a Claude session: the room's Delivery."""

from postbag.claude import NAME
from postbag.claude.acceptance import HOLD, REFUSE
from postbag.claude.files import ENDED, Session, live_session, session_of
from postbag.claude.inbox import DROPPED, HELD, REFUSED, knock
from postbag.contract import door_fields
from postbag.doors import Delivery
from postbag.room import CANNOT_TELL
from postbag.times import moment

# How long a knock listens for Claude's word, by what the records of a running session foretell: a letter they say
# Claude holds or refuses is said of within about 30 ms (measured on the real clients); one they cannot tell of gets
# a moment; one they say Claude lets in, none, as Claude says nothing of a letter it takes.
HEARING = {HOLD: 1.0, REFUSE: 1.0, CANNOT_TELL: 0.25}


class ClaudeDelivery(Delivery):
    """A letter to a session: before the knock, what Claude's records foretell of it, which decides whether the knock
    listens for Claude's own word; after it, what the send says and records."""

    def __init__(self, room, joined):
        self.room, self.joined, self.word, self.reason = room, joined, None, None
        self.verdict, self.hearing = None, None
        session = session_of(joined)
        if session is not None:
            try:
                alive = live_session(room.config, session)
                self.verdict = None if alive == ENDED else room.verdict_of(session, alive)
            except Exception:
                alive = None
            # Only a session whose file says it runs is one whose word is worth the wait.
            if isinstance(alive, Session) and self.verdict is not None:
                self.hearing = HEARING.get(self.verdict.policy)

    def knock(self, envelope, sandbox):
        fields = {field: self.joined[field] for field in door_fields(NAME)}
        listener = knock(fields, envelope, here=self.room.here, sandbox=sandbox, hear=self.hearing is not None)
        if listener is not None:
            self.word, self.reason = listener.word(self.hearing)

    def recorded(self):
        return {} if self.word is None else {"recipient_said": self.word}

    def note(self, letter):  # noqa: PLR0911 - Claude's own word first, then what its records foretold
        verdict = self.verdict
        if self.word == HELD:
            if verdict is not None and verdict.policy == HOLD:
                return f"but claude holds it for the person's review, since {verdict.why}; {self._fate(letter)}"
            return "but claude holds it for the person's review, for a reason its records do not show"
        if self.word == REFUSED:
            if verdict and verdict.policy == REFUSE:
                return f"but claude refused it, since {verdict.why}"
            return "but claude refused it"
        if self.word == DROPPED:
            return (
                f"but claude dropped it at its inbox ({self.reason or 'for a reason it did not give'}): "
                "it will not reach the session"
            )
        if verdict is not None and verdict.policy == REFUSE:
            return f"but claude refuses it, since {verdict.why}"
        if verdict is not None and verdict.policy == HOLD:
            return f"but claude holds it for the person's review, since {verdict.why}; {self._fate(letter)}"
        return None

    def _fate(self, letter):
        # Parsed only here: a letter let in at once has no expiry to tell, nor a datetime to load.
        return self.verdict.hold.fate(moment(letter["at"]), self.room.here.clock)
