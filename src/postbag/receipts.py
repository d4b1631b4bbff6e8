"""Receipts: where each letter stands, worked out when asked from the recipient's own records.

A door that takes a letter says nothing of what the session then did with it. Both vendors keep records of what
their sessions received: Claude Code a session's transcript, Codex its queue database and each thread's rollout (each
room's files.py); this module holds what both rooms' readers share. postbag opens each read-only, writes nothing,
and says of each letter one of four things: taken (and when), waiting, not taken (with the likeliest reason the
records show), or unknown, rather than a guess, whenever the records cannot be read or are not of a format known here.
A taken letter settles at answered once the ledger holds the recipient's next letter back.
"""

from postbag.contract import heading
from postbag.times import moment
from postbag.vendor_files import find_back, quoted
from postbag.versions import numbers

TAKEN, WAITING, NOT_TAKEN, UNKNOWN = "taken", "waiting", "not taken", "unknown"
ANSWERED = "answered"  # taken, and the recipient has written back since
SLACK = 60  # seconds: a vendor's record of a letter may be a little older than the ledger's time for it


class Receipt:
    """Where one letter stands: `state` (TAKEN, ANSWERED, WAITING, NOT_TAKEN or UNKNOWN), `at` (when it was taken, in
    the ledger's form of time), `why` (in words) and `answered_by` (the number of the letter back, for ANSWERED)."""

    __slots__ = ("answered_by", "at", "state", "why")

    def __init__(self, state, why="", at=None, answered_by=None):
        self.state, self.why, self.at, self.answered_by = state, why, at, answered_by

    def settled(self, answer):
        """This receipt, settled at ANSWERED when the letter was taken and `answer`, the number of the recipient's next
        letter back, follows it (None: none yet)."""
        if self.state != TAKEN or answer is None:
            return self
        return Receipt(ANSWERED, self.why, self.at, answered_by=answer)

    def words(self):
        if self.state == TAKEN:
            return f"taken at {self.at} ({self.why})" if self.why else f"taken at {self.at}"
        if self.state == ANSWERED:
            answered = f"answered by letter {self.answered_by}, taken at {self.at}"
            return f"{answered} ({self.why})" if self.why else answered
        return f"{self.state}: {self.why}"

    def noting(self, words):
        """This receipt, or, when it is UNKNOWN and `words` says more, one whose why adds them."""
        if self.state != UNKNOWN or not words:
            return self
        return Receipt(UNKNOWN, f"{self.why}; {words}")

    def as_json(self):
        shown = {"state": self.state, "at": self.at, "answered_by": self.answered_by, "why": self.why or None}
        return {name: value for name, value in shown.items() if value is not None}


def is_the_letter(text, letter):
    """Whether `text`, as a vendor recorded it, is the envelope of `letter`."""
    heading, body = heading_of(letter) + " ", "\n\n" + letter["body"]
    return isinstance(text, str) and text.startswith(heading) and text.endswith(body)


def heading_of(letter):
    """The first words of every envelope of `letter` (envelope.py writes them)."""
    return heading(letter["n"], letter["from"])


def taken_in(path, what, letter, took, clock):
    """TAKEN, with the record's time as `clock` shows it, where the JSON Lines file at `path` (`what`) holds a record
    that `took(record, letter)` accepts; UNKNOWN where it cannot be read; None where it is not there. Only records
    from about the letter's time on are looked at."""
    since = moment(letter["at"])
    needle = heading_of(letter).encode()  # what every record of the envelope holds as it is, JSON escaping aside
    found, unreadable = find_back(path, what, needle, lambda record: took(record, letter), since and since - SLACK)
    if unreadable:
        return Receipt(UNKNOWN, unreadable)
    if found is None:
        return None
    return Receipt(TAKEN, at=clock.local(found.get("timestamp")) or "a time its record does not give")


def unproven(client, version, proven):
    """What an unknown receipt adds where `client`'s records were written by a `version` outside `proven`, the
    (oldest, newest) versions the real-client tier proves; else None. A hint, never a reason to refuse."""
    found = numbers(version)
    if found is None or numbers(proven[0]) <= found <= numbers(proven[1]):
        return None
    oldest, newest = proven
    return f"{client} {quoted(version)} wrote these records, and postbag is proven on {client} {oldest} to {newest}"
