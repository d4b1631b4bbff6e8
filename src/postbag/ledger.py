"""The bag: one append-only JSON Lines file, the whole history and the only state. Each git repository has
its own, shared by every directory inside it, worktrees included; every directory outside one shares the
default; POSTBAG_LEDGER, where it is set, names one over both (`locate`).

Each line is one record, numbered from 1 without gaps. A verb counts the lines in one pass (ledger_index.py)
and parses and validates (records.py) only the records it relies on, found by searching the raw bytes from
the end, so a send after a year of letters costs little more than on the first day. When a check fails, the
whole file is scanned once more to name the first line that is not a record in its place, as 1.0 did.
"""

import os
import stat

from postbag import ledger_file, records
from postbag.contract import PEERS, door_fields
from postbag.damage import another_repositorys, cut_short, first_damage
from postbag.exchange import Exchange
from postbag.ledger_index import LineIndex
from postbag.refusal import Refusal


class Ledger:
    """The ledger opened and locked: shared to read, exclusive to write.

    A last line without its newline is a send killed while it appended: a writer cuts it off and says so;
    a reader sees every complete record, and `unfinished` names the line after which the file stops.
    """

    def __init__(  # noqa: PLR0913
        self,
        path,
        *,
        write=False,
        create=False,
        on_wait=None,
        sandbox=None,
        clock=None,
        block=None,
        reading=False,
        serves=None,
    ):
        """`sandbox`: the Sandbox around this process, if any, which a refusal to open names; `clock`: what
        stamps the records appended (a times.Clock); `reading`: a reader that shows the records before a
        damaged line, and meets the damage as it reads them, where any other verb is refused at once;
        `serves`: the Repository whose ledger this is, which its records must name, where they name one."""
        self.path, self.clock, self.sandbox = path, clock, sandbox
        self.fd, status, self.made = ledger_file.open_checked(path, write=write, create=create, sandbox=sandbox)
        self.identity = (status.st_dev, status.st_ino) if status else None
        self.unfinished, self.cut = None, False  # cut: a reader met a last line cut short, not by postbag
        self.news = []  # what a writer that mended the file says of it
        try:
            if self.fd is not None:
                ledger_file.lock(self.fd, write, path, on_wait)
            self._index = LineIndex(self.fd, path, block)
            # The last record's number must equal the line count: a line deleted or inserted anywhere shows.
            if self._index.size and self._index.unended_line():
                self._set_aside_unfinished_line(reading)
            if not reading:
                self.tail(1)
            found = None if serves is None else self.latest_repository()
            if found is not None and not serves.is_recorded_as(found):
                raise another_repositorys(path, found, serves)
            if write and self.fd is not None and stat.S_IMODE(status.st_mode) != 0o600:
                os.fchmod(self.fd, 0o600)  # it holds a session token; fixed only once it is known ours
            if self.unfinished is not None and write:
                self._cut_unfinished_line()
        except OSError as error:
            self.close()
            raise Refusal(f"cannot write the ledger ({error.strerror}: {path})") from None
        except BaseException:  # a refusal, or what no one foresaw: never a lock left held
            self.close()
            raise

    def latest_repository(self):
        """What the latest record that names a repository keeps of it, or None."""
        found = self._latest(b'"repository"', lambda record: type(record.get("repository")) is dict)
        return None if found is None else found[1]["repository"]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        """Release the lock and the file. Lines in hand can still be asked for; more raise ValueError."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if hasattr(self, "_index"):
            self._index.fd = None

    @property
    def count(self):
        """The records in the file: the last one's number."""
        return self._index.count

    @property
    def next_number(self):
        return self._index.count + 1

    def position(self):
        """Where the file stands now, for following what is appended after it."""
        from postbag.ledger_position import Position  # a follower's alone

        return Position(self.path, self.identity, self._index.size, self.next_number)

    def records(self):
        """Every record, read now and parsed and validated as asked for, so a reader can show them once the
        lock is released; the first line that is not a record raises its refusal when it is reached."""
        return self._parsed(records.from_bytes(self._index.bytes(0, self._index.size), 1, self.path))

    def last_records(self, count):
        """The last `count` records, oldest first, as records() gives every one."""
        bounds = self._index.last_lines(min(count, self.count))
        if not bounds:
            return self._parsed(iter(()))
        first, data = self.count - len(bounds) + 1, self._index.bytes(bounds[-1][0], bounds[0][1] + 1)
        return self._parsed(records.from_bytes(data, first, self.path))

    def _parsed(self, found):
        """The records `found` yields, then the refusal of a file a reader met cut short after them; where
        one is not a record, the refusal of the file's first line that is not one."""
        path, count, cut = self.path, self.count, self.cut
        try:
            yield from found
        except Refusal as damaged:
            raise first_damage(path, damaged) from None
        if cut:
            raise first_damage(path, cut_short(count, path))

    def tail(self, count):
        """The last `count` records, oldest first."""
        bounds = self._index.last_lines(min(count, self.count))
        first = self.count - len(bounds) + 1
        return [self._parse_line(first + i, s, e) for i, (s, e) in enumerate(reversed(bounds))]

    def latest_join(self, peer):
        """`peer`'s latest join record, or None if it never joined."""
        return self.latest_joins((peer,))[peer]

    def latest_joins(self, peers=PEERS):
        """Each of `peers`' latest join, or None, found in one look back: a send needs both, which may lie far back."""
        found, before = dict.fromkeys(peers), None

        def still_sought(record):
            return record["kind"] == "join" and record["peer"] in found and found[record["peer"]] is None

        while None in found.values() and (hit := self._latest(b'"join"', still_sought, before)) is not None:
            _, record, before, _ = hit
            found[record["peer"]] = record
        return found

    def door_values(self):
        """Every door field, and session id, of every join the ledger holds: what no output shows."""
        found, before = set(), None
        while (hit := self._latest(b'"join"', lambda record: record["kind"] == "join", before)) is not None:
            _, record, before, _ = hit
            fields = (*door_fields(record["peer"]), "session")
            found.update(value for field in fields if type(value := record.get(field)) is str and value)
        return found

    def letters(self, count, sender=None):
        """The last `count` letters (of `sender`, if given), newest first, as (letter, join, answer): the join
        of its recipient in force when it was sent, and the number of the recipient's next letter, or None."""
        found, before = [], self._index.size
        next_from = {}  # each peer's earliest letter seen so far, looking back: the next one after here
        while len(found) < count and (hit := self._latest(b'"letter"', lambda r: r["kind"] == "letter", before)):
            _, letter, before, _ = hit
            answer, next_from[letter["from"]] = next_from.get(letter["to"]), letter["n"]
            if sender not in (None, letter["from"]):
                continue
            joined = self._latest(b'"join"', lambda r, to=letter["to"]: r["kind"] == "join" and r["peer"] == to, before)
            found.append((letter, None if joined is None else joined[1], answer))
        return found

    def exchange(self):
        """The latest exchange the human opened, and what became of it."""
        found = self._latest(b'"open"', lambda r: r["kind"] == "open")
        if found is None:
            return Exchange(0, 0, opened=False)
        number, record, _, end = found
        return Exchange.opened_by(record, self._records_from(end + 1, number + 1))

    def _records_from(self, start, number):
        """Every record from byte `start`, line `number`, to the end, validated, read a piece at a time."""
        for piece in self._index.pieces(start):
            yield from records.from_bytes(piece, number, self.path)
            number += piece.count(b"\n")

    def append(self, kind, **fields):
        """Record one line and make it durable, or leave the file as it was and raise OSError;
        a Refusal, and nothing written, for a record postbag's own reader would refuse."""
        record = {"n": self.next_number, "at": self.clock.stamp(), "kind": kind, **fields}
        line = records.line_of(record)
        if records.parse_record(line[:-1].decode(), 0, len(line) - 1, record["n"]) is None:
            raise Refusal(f"a {kind} record would not read back as one, so nothing was written")
        ledger_file.append_whole(self.fd, line, self._index.size)
        self._index.appended(line)
        return record

    def _set_aside_unfinished_line(self, reading):
        """Set aside a last line without its newline where it begins the record a send was appending; else
        refuse the file at its first line that is not a record (a `reading` verb, once it has read those before)."""
        unended = self._index.unended_line()
        self._index.set_aside(unended)
        if unended.startswith(records.line_start(self.next_number)):
            self.unfinished = self.count
        elif not reading:
            raise first_damage(self.path, cut_short(self.count, self.path))
        else:
            self.cut = True

    def _cut_unfinished_line(self):
        from postbag.whole_file import flush  # a writer's alone

        os.ftruncate(self.fd, self._index.size)
        flush(self.fd)
        self.news.append(
            f"an interrupted send left an unfinished record after line {self.unfinished}; "
            "it was removed, and its letter may have been delivered"
        )
        self.unfinished, self.cut = None, False

    def _latest(self, token, accept, before=None):
        """The last record before byte `before` (default: the end) whose line holds `token` and that `accept`
        takes, as (number, record, start and end of its line), or None. Only lines holding the token are
        parsed: JSON escapes every quote inside a string, so a kind's quoted name occurs only as a whole value."""
        before = self._index.size if before is None else before
        while (hit := self._index.rfind(token, before)) >= 0:
            start, end = self._index.line_around(hit)
            number = self._index.line_number(start)
            record = self._parse_line(number, start, end)
            if accept(record):
                return number, record, start, end
            before = start
        return None

    def _parse_line(self, number, start, end):
        """Line `number`, the file's bytes start to end, as a validated record."""
        try:
            text = self._index.bytes(start, end).decode()
        except UnicodeDecodeError:
            raise first_damage(self.path, records.not_a_record(number, self.path)) from None
        record = records.parse_record(text, 0, len(text), number)
        if record is None:
            raise first_damage(self.path, records.not_a_record(number, self.path))
        return record


def require_whole(path):
    """Refuse the ledger at `path` where it is damaged: its first line that is not a record, or a last line
    cut short by something other than postbag. Every line is read. A missing ledger passes, and so does one
    whose last record is only unfinished, which the next writer removes."""
    with Ledger(path, reading=True) as bag:
        for _ in bag.records():
            pass
