"""Receipts: where each letter stands, worked out when asked from the recipient's own records.

A door that takes a letter says nothing of what the session then did with it. Both
vendors keep records of what their sessions received: Claude Code a session's transcript
(claude/door.py), Codex its queue database and each thread's rollout (codex/door.py); this module
holds what both readers share. postbag reads them, opening each read-only and writing nothing, and
says of each letter one of four things: taken (and when), waiting, not taken (with the
likeliest reason the records show), or unknown, whenever the records cannot be read or
are not of a format known here. Unknown is said rather than a guess. A taken letter
settles at answered once the ledger holds the recipient's next letter back. The readers know
the formats of the versions the real-client tier proves them against (each room's PROVEN);
an unknown says so where the records were written by a version outside them.
"""

import os

from postbag.signals import start_beside

TAKEN, WAITING, NOT_TAKEN, UNKNOWN = "taken", "waiting", "not taken", "unknown"
ANSWERED = "answered"  # taken, and the recipient has written back since
# How far back a search through a transcript or rollout goes at most: records older than
# the letter end it sooner, since they cannot hold what came after them.
LOOK_BACK = 64 << 20
_BLOCK = 1 << 20
SLACK = 60  # seconds: a vendor's record of a letter may be a little older than the ledger's time for it
_TIMESTAMP = b'"timestamp":'


class Receipt:
    """Where one letter stands: `state` (TAKEN, ANSWERED, WAITING, NOT_TAKEN or UNKNOWN),
    `at` (when it was taken, in the ledger's form of time), `why` (in words; not for
    TAKEN) and `answered_by` (the number of the recipient's letter back, for ANSWERED)."""

    __slots__ = ("answered_by", "at", "state", "why")

    def __init__(self, state, why="", at=None, answered_by=None):
        self.state, self.why, self.at, self.answered_by = state, why, at, answered_by

    def settled(self, answer):
        """This receipt, settled at ANSWERED when the letter was taken and `answer`, the
        number of the recipient's next letter back, follows it (None: none yet)."""
        if self.state != TAKEN or answer is None:
            return self
        return Receipt(ANSWERED, self.why, self.at, answered_by=answer)

    def words(self):
        if self.state == TAKEN:
            return f"taken at {self.at}" + (f" ({self.why})" if self.why else "")
        if self.state == ANSWERED:
            return f"answered by letter {self.answered_by}, taken at {self.at}" + (f" ({self.why})" if self.why else "")
        return f"{self.state}: {self.why}"

    def noting(self, words):
        """This receipt, or, when it is UNKNOWN and `words` says more, one whose why adds them."""
        if self.state != UNKNOWN or not words:
            return self
        return Receipt(UNKNOWN, f"{self.why}; {words}")

    def as_json(self):
        shown = {"state": self.state, "at": self.at, "answered_by": self.answered_by, "why": self.why or None}
        return {name: value for name, value in shown.items() if value is not None}


class LookBeside:
    """`look(joined, env)`, worked out on a thread of its own while the door takes the
    letter: some kernels make a process's first read of /proc/locks cost more than the
    send may spend (15 ms)."""

    WAIT = 1.0  # seconds, at most, once the letter is recorded: a slow disk must not hold the send
    resume = False

    def __init__(self, look, joined, env):
        self.said = None

        def work():
            try:
                self.said = None if look is None else look(joined, env)
            except Exception:  # noqa: S110 - a note that cannot be had is left out, not a failure
                pass

        # The reader was imported by the caller, on the main thread: a thread that imports
        # while a refused send's interpreter shuts down can crash it (seen as SIGSEGV from
        # postbag.pyz's loader).
        self._thread = start_beside(work)

    def words(self, answer=None):
        self._thread.join(self.WAIT)
        return self.said


def is_the_letter(text, letter):
    """Whether `text`, as a vendor recorded it, is the envelope of `letter`."""
    heading = f"Letter {letter['n']} from {letter['from']} via postbag. "
    return isinstance(text, str) and text.startswith(heading) and text.endswith("\n\n" + letter["body"])


def heading_of(letter):
    """What every record of `letter`'s envelope holds as it is, JSON escaping aside: its heading."""
    return f"Letter {letter['n']} from {letter['from']} via postbag.".encode()


def taken_in(path, what, letter, took):
    """TAKEN, with the record's time, where the JSON Lines file at `path` (`what`) holds a
    record that `took(record, letter)` accepts; UNKNOWN where it cannot be read; None
    where it is not there. Only records from about the letter's time on are looked at."""
    since = moment(letter["at"])
    found, unreadable = find_back(path, what, heading_of(letter), lambda r: took(r, letter), since and since - SLACK)
    if unreadable:
        return Receipt(UNKNOWN, unreadable)
    return None if found is None else Receipt(TAKEN, at=local(found.get("timestamp", "")))


def find_back(path, what, needle, accept, since, look_back=LOOK_BACK):  # noqa: PLR0913, PLR0917
    """The newest record of the JSON Lines file at `path` (`what`, in words that name no
    door: its name holds a session or thread id) that `accept` takes, looked for from the
    end, at most `look_back` bytes: only lines holding `needle` (bytes, or a tuple of them)
    are parsed, and the search ends at a block whose records are older than `since`
    (seconds since the epoch, or None). Returns (record or None, None), or (None, why the
    file cannot be read)."""
    import json

    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as error:
        return None, f"cannot read {what} ({error.strerror})"
    try:
        end = os.fstat(fd).st_size
        needles = needle if isinstance(needle, tuple) else (needle,)
        lowest, carry = max(0, end - look_back), b""
        while end > lowest:
            start = max(lowest, end - _BLOCK)
            data = os.pread(fd, end - start, start) + carry
            cut = data.find(b"\n") + 1 if start > lowest else 0  # a line cut by the block waits for the next
            data, carry = data[cut:], data[:cut]
            held = [each for each in needles if each in data]  # one search of the block, most often in vain
            for line in reversed(data.split(b"\n") if held else ()):
                if any(each in line for each in held):
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue  # a line still being written, or not JSON: not the one
                    if accept(record):
                        return record, None
            if since is not None and (oldest := _oldest_time(data)) is not None and oldest < since:
                return None, None
            end = start
        return None, (f"{what} is longer than postbag reads back" if lowest else None)
    except OSError as error:
        return None, f"cannot read {what} ({error.strerror})"
    finally:
        os.close(fd)


def unproven(client, version, proven):
    """What an unknown receipt adds where `client`'s records were written by a `version`
    outside `proven`, the (oldest, newest) versions the real-client tier proves; else None.
    A hint for whoever reads the unknown, never a reason to refuse."""
    found = numbers(version)
    if found is None or numbers(proven[0]) <= found <= numbers(proven[1]):
        return None
    return f"{client} {version} wrote these records, and postbag is proven on {client} {proven[0]} to {proven[1]}"


def numbers(version):
    """A version's numbers, to compare (2.1.332 is (2, 1, 332)); None for anything else."""
    parts = version.split(".") if isinstance(version, str) else ()
    return tuple(int(part) for part in parts) if parts and all(part.isdigit() for part in parts) else None


def newest(paths):
    """The most recently changed of `paths`: the one a vendor writes to now."""

    def modified(path):
        try:
            return os.stat(path).st_mtime
        except OSError:
            return 0

    return max(paths, key=modified)


def _oldest_time(data):
    """The time of the first record in `data` that says when it was written, or None."""
    at = data.find(_TIMESTAMP)
    if at < 0:
        return None
    start = data.find(b'"', at + len(_TIMESTAMP))
    end = data.find(b'"', start + 1)
    if start < 0 or end < 0 or data[at + len(_TIMESTAMP) : start].strip():
        return None
    return moment(data[start + 1 : end].decode(errors="replace"))


def moment(text):
    """Seconds since the epoch of an ISO 8601 time with an offset or Z, or None."""
    from datetime import datetime

    if not isinstance(text, str):
        return None
    try:
        parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except (TypeError, ValueError):
        return None
    return parsed.timestamp() if parsed.tzinfo is not None else None


def local(text):
    """A vendor's time, as the ledger writes times: local, to the second, with its offset."""
    from datetime import datetime

    seconds = moment(text)
    if seconds is None:
        return text
    return datetime.fromtimestamp(seconds).astimezone().isoformat(timespec="seconds")
