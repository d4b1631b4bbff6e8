"""The bag: one append-only JSON Lines file, the whole history and the only state.

Each line is one record, numbered from 1 without gaps. A verb passes over the file once in
blocks to count its lines, keeps only the end, and parses only the records it relies on,
found by searching the raw bytes from the end; it validates each of them, so a send after
a year of letters costs little more than on the first day. When any check fails, the whole
file is scanned once more to name the first line that is not a record in its place, as
1.0 did.
"""

import bisect
import errno
import fcntl
import json
import json.scanner
import os
import signal
import stat
import time

from postbag import PEERS
from postbag.refusal import Refusal, say
from postbag.transcript import has_unsafe

DEFAULT_PATH = "~/.postbag/ledger.jsonl"
DOOR_FIELDS = {"claude": ("socket", "token"), "codex": ("thread",)}
_JOIN = b'"join"'  # the join kind's quoted name: see Ledger._latest
_JSON_SPACE = " \t\r"  # what json.loads allows around a value, less the newline that ends a line


def locate(env):
    """The ledger's absolute path, fixed once so a later chdir cannot move it."""
    raw = env.get("POSTBAG_LEDGER") or DEFAULT_PATH
    if has_unsafe(raw):
        raise Refusal("POSTBAG_LEDGER holds a control character")
    return os.path.abspath(os.path.expanduser(raw))


def is_default(path):
    return path == os.path.abspath(os.path.expanduser(DEFAULT_PATH))


def truncated(count, path):
    return f"ledger is truncated after line {count} ({path})"


class Ledger:
    """The ledger opened and locked: shared to read, exclusive to write.

    Opening passes over the file once: `count` is its lines, `size` the bytes of its whole
    lines. It keeps the last blocks (`_tail`, from byte `_tail_at`, with every record
    appended since) and a mark at each block; any other bytes are read back, under the
    lock, only when a verb asks for them. Only the lines a verb relies on are parsed.

    A last line without its newline is a send that was killed while it appended. Holding
    the exclusive lock, the ledger cuts it off and says so; a reader sees every complete
    record, and `unfinished` names the line after which the file stops.
    """

    # `joins`: the pass notes where each block's last join is, for a verb that will look
    # back for a door; it costs a search of every block, and spares reading them again.
    def __init__(self, path, *, write=False, create=False, on_wait=None, sandboxed=False, joins=False):  # noqa: PLR0913
        self.path = path
        self.fd, status = _open(path, write=write, create=create, sandboxed=sandboxed)
        self._mode = status.st_mode if status else 0
        self.identity = (status.st_dev, status.st_ino) if status else None
        self.unfinished = None
        self.count, self._marks, self._tail_at, self._tail, self._joins = 0, [(0, 0)], 0, b"", None
        self._block, self._numbered = (0, b""), (-1, 0)
        try:
            if self.fd is not None:
                _lock(self.fd, write, path, on_wait)
                self.count, self._marks, self._tail_at, self._tail, self._joins = _read_locked(self.fd, path, joins)
            self.size = self._tail_at + len(self._tail)
            if not self._tail.endswith(b"\n") and self.size:
                self._set_aside_unfinished_line()
            # Every verb continues or shows the last record, and its number must equal the
            # line count: a line deleted or inserted anywhere shows here.
            self.tail(1)
            if write and self.fd is not None and stat.S_IMODE(self._mode) != 0o600:
                os.fchmod(self.fd, 0o600)  # it holds a session token; fixed only once it is known ours
            if self.unfinished is not None and write:
                self._cut_unfinished_line()
        except OSError as error:
            self.close()
            raise Refusal(f"cannot write the ledger ({error.strerror}: {path})") from None
        except Refusal:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        """Release the lock. What was read stays readable; nothing more is read."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def records(self, start=0, number=1):
        """Every record from byte `start` (line `number`) to the end, validated one by one."""
        return self._records(self._bytes(start, self.size), 0, number)

    def tail(self, count):
        """The last `count` records, oldest first."""
        bounds = self._last_lines(min(count, self.count))
        first = self.count - len(bounds) + 1
        return [self._parse_line(first + i, s, e) for i, (s, e) in enumerate(reversed(bounds))]

    def _last_lines(self, count):
        """Where the last `count` lines start and end, newest first, from the kept tail,
        which takes in more of the file until they are all in it."""
        while True:
            data, at, bounds = self._tail, self._tail_at, []
            start = len(data)
            while len(bounds) < count:
                end = start - 1
                start = data.rfind(b"\n", 0, end) + 1
                if start == 0 and at > 0:  # its start may lie before what is kept
                    break
                bounds.append((at + start, at + end))
            if len(bounds) == count:
                return bounds
            self._keep_more()

    def door(self, peer):
        """The door fields of `peer`'s latest join, or None if it never joined."""
        joined = self.latest_join(peer)
        return None if joined is None else {field: joined[field] for field in DOOR_FIELDS[peer]}

    def latest_join(self, peer):
        """`peer`'s latest join record, or None if it never joined."""
        found = self._latest(_JOIN, lambda r: r["kind"] == "join" and r["peer"] == peer)
        return None if found is None else found[1]

    def exchange(self):
        """The latest exchange the human opened, or None if none was."""
        found = self._latest(b'"open"', lambda r: r["kind"] == "open")
        if found is None:
            return None
        number, record, end = found
        sent = closed = 0
        for later in self.records(end + 1, number + 1):
            sent += later["kind"] == "letter"
            closed = closed or later["kind"] == "close"
        return Exchange(record["limit"], sent, bool(closed))

    def follow(self, interval):
        """Each record appended after the snapshot, as it is appended, checking every
        `interval` seconds; no lock is held. A ledger that does not exist yet is waited for.
        Moving, replacing or cutting the file short ends it with a refusal."""
        fd, identity, offset, number = None, self.identity, self.size, self.count + 1
        try:
            while True:
                if fd is None:
                    fd = _open_to_follow(self.path)
                    if fd is None and identity is not None:  # gone since the snapshot was read
                        raise self._moved()
                    if fd is not None and identity is None:
                        status = os.fstat(fd)
                        identity = (status.st_dev, status.st_ino)
                if fd is not None:
                    self._check_followed(fd, identity, offset)
                    grown = os.pread(fd, max(0, os.fstat(fd).st_size - offset), offset)
                    whole = grown.rfind(b"\n") + 1  # a line still being written waits for its newline
                    if whole:
                        yield from self._records(grown[:whole], 0, number)
                        offset, number = offset + whole, number + grown.count(b"\n", 0, whole)
                        continue
                time.sleep(interval)
        finally:
            if fd is not None:
                os.close(fd)

    def _moved(self):
        return Refusal(f"the ledger was moved or replaced while read followed it ({self.path})")

    def _check_followed(self, fd, identity, offset):
        try:
            here = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            here = None
        if here is None or (here.st_dev, here.st_ino) != identity:
            raise self._moved()
        if os.fstat(fd).st_size < offset:
            raise Refusal(f"the ledger was cut short while read followed it ({self.path})")

    def append(self, kind, **fields):
        """Record one line and make it durable, or leave the file as it was and raise OSError."""
        record = {"n": self.count + 1, "at": now(), "kind": kind, **fields}
        line = (json.dumps(record) + "\n").encode()  # ASCII: json escapes the rest
        _append_whole(self.fd, line, self.size)
        self._tail += line
        self.size += len(line)
        self.count += 1
        return record

    def _set_aside_unfinished_line(self):
        """Keep only the complete lines of a file whose last line lacks its newline, when that
        line is the start of the record a send was appending; otherwise refuse the file."""
        while self._tail_at > 0 and b"\n" not in self._tail:
            self._keep_more()
        cut = self._tail.rfind(b"\n") + 1
        if not self._tail.startswith(b'{"n": %d, ' % (self.count + 1), cut):
            raise Refusal(truncated(self.count, self.path))
        self.unfinished = self.count
        self._tail = self._tail[:cut]
        self.size = self._tail_at + cut

    def _cut_unfinished_line(self):
        os.ftruncate(self.fd, self.size)
        os.fsync(self.fd)
        say(
            f"an interrupted send left an unfinished record after line {self.unfinished}; "
            "it was removed, and its letter may have been delivered"
        )
        self.unfinished = None

    def _latest(self, token, accept):
        """The last record whose line holds `token` and that `accept` takes.

        Returns (number, record, end of line), or None. Only the lines holding the token
        are parsed; JSON escapes every quote inside a string, so a kind's quoted name can
        only occur as a whole string value.
        """
        before = self.size
        while (hit := self._rfind(token, before)) >= 0:
            start, end = self._rfind(b"\n", hit) + 1, self._find_newline(hit)
            number = self._line_number(start)
            record = self._parse_line(number, start, end)
            if accept(record):
                return number, record, end
            before = start
        return None

    def _rfind(self, token, before):
        """The offset of the last `token` that ends by byte `before`, or -1."""
        if token == _JOIN and self._joins is not None:
            return self._noted_join(before)
        return self._search(token, before)

    def _search(self, token, before, floor=0):
        """_rfind among the tokens that start at byte `floor` or later, a block at a time."""
        edge = before
        while edge > floor:
            lo, hi = max(floor, edge - _CHUNK), min(before, edge + len(token) - 1)  # a token across the edge too
            data, at = self._bytes_around(lo, hi)
            hit = data.rfind(token, lo - at, hi - at)
            if hit >= 0:
                return at + hit
            edge = lo
        return -1

    def _noted_join(self, before):
        """_rfind for a join, from the notes of the pass: only the block that holds `before`
        (with whatever was appended since) is searched; earlier blocks are not read again."""
        block = bisect.bisect_left(self._marks, (before, -1)) - 1  # the last one that starts before it
        if block < 0:
            return -1
        start = self._marks[block][0]
        hit = self._search(_JOIN, before, max(0, start - len(_JOIN) + 1))
        if hit >= 0:
            return hit
        return next((hit for hit in reversed(self._joins[:block]) if hit >= 0), -1)

    def _find_newline(self, start):
        """The offset of the first newline from `start`, or the end: every whole line has one."""
        lo = start
        while lo < self.size:
            hi = min(self.size, lo + _CHUNK)
            data, at = self._bytes_around(lo, hi)
            hit = data.find(b"\n", lo - at, hi - at)
            if hit >= 0:
                return at + hit
            lo = hi
        return self.size

    def _line_number(self, start):
        """The number of the line that starts at byte `start`: the newlines from the mark
        before it are counted, or those back from the line numbered last, if that is nearer
        (looking back through many lines numbers each from the one found before)."""
        at, before = self._marks[bisect.bisect_right(self._marks, (start, self.count)) - 1]
        last, numbered = self._numbered
        if start <= last < start + (start - at):
            data, base = self._bytes_around(start, last)
            number = numbered - data.count(b"\n", start - base, last - base)
        else:
            data, base = self._bytes_around(at, start)
            number = before + data.count(b"\n", at - base, start - base) + 1
        self._numbered = (start, number)
        return number

    def _bytes_around(self, lo, hi):
        """A buffer holding the file's bytes lo to hi, and the offset it starts at: the kept
        tail, or the whole blocks around them and one more each side, read from the file and
        kept until the next read. Looking back through many joins of the other peer asks for
        bytes near each other again and again: a line's start, its end, its number, the next
        token."""
        if lo >= self._tail_at:
            return self._tail, self._tail_at
        at, block = self._block
        if not (at <= lo and hi <= at + len(block)):
            at, end = max(0, lo - lo % _CHUNK - _CHUNK), max(hi, min(self.size, hi - hi % -_CHUNK + _CHUNK))
            block = _pread(self.fd, end - at, at, self.path)
            self._block = (at, block)
        return block, at

    def _bytes(self, lo, hi):
        """The file's bytes lo to hi: a stretch longer than a block is read at once."""
        if lo == self._tail_at and hi == self.size:
            return self._tail
        if lo < self._tail_at and hi - lo > _CHUNK:
            return _pread(self.fd, hi - lo, lo, self.path)
        data, at = self._bytes_around(lo, hi)
        return data[lo - at : hi - at]

    def _keep_more(self):
        """Keep as many bytes again before the tail, for a verb that needs more lines of it."""
        at = max(0, self._tail_at - max(len(self._tail), _CHUNK))
        self._tail = _pread(self.fd, self._tail_at - at, at, self.path) + self._tail
        self._tail_at = at

    def _records(self, data, start, number):
        """The records of data[start:], which begins at line `number`. The first line that is
        not a record is refused by its number: this scan goes in order, so it is the first."""
        try:
            text = data[start:].decode()
        except UnicodeDecodeError as error:
            cut = max(start, data.rfind(b"\n", start, start + error.start) + 1)  # where the bad line starts
            if cut > start:
                yield from self._records(data[:cut], start, number)
            raise self._not_a_record(number + data.count(b"\n", start, cut)) from None
        at, size, find_end, scan = 0, len(text), text.index, _scan
        escapes = _may_escape_a_surrogate(text)  # once for all, not once a line
        while at < size:
            end = find_end("\n", at)
            # The common line, a record from its first character to its last, is taken here
            # without a call; anything else, and any line of a text that may escape a
            # surrogate, gets the whole of _parsed, which decides alike.
            stop = None
            if not escapes:
                try:
                    record, stop = scan(text, at)
                except (StopIteration, ValueError, RecursionError):
                    pass
            if stop != end or not is_record(record, number):
                record = _parsed(text, at, end, number, escapes)
                if record is None:
                    raise self._not_a_record(number)
            yield record
            at, number = end + 1, number + 1

    def _parse_line(self, number, start, end):
        """Line `number`, the bytes data[start:end], as a validated record."""
        try:
            text = self._bytes(start, end).decode()
        except UnicodeDecodeError:
            raise self._first_damage(number) from None
        record = _parsed(text, 0, len(text), number)
        if record is None:
            raise self._first_damage(number)
        return record

    def _first_damage(self, number):
        """The refusal for a check that failed at line `number`: it names the first line of
        the file that is not a record in its place, which may come earlier."""
        try:
            for _ in self._records(self._bytes(0, self.size), 0, 1):
                pass
        except Refusal as refusal:
            return refusal
        return self._not_a_record(number)

    def _not_a_record(self, number):
        return Refusal(f"ledger line {number} is not a record ({self.path})")


class Exchange:
    """What the human granted with the latest `open`, and what became of it."""

    __slots__ = ("closed", "granted", "sent")

    def __init__(self, granted, sent, closed):
        self.granted, self.sent, self.closed = granted, sent, closed

    @property
    def left(self):
        return self.granted - self.sent


def _open_to_follow(path):
    try:
        return os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Refusal(f"cannot open the ledger ({_open_failure(error, path)})") from None


def _may_escape_a_surrogate(text, start=0, end=None):
    """Whether text[start:end] holds an escape a surrogate could come from, without a copy."""
    return text.find("\\ud", start, end) >= 0 or text.find("\\uD", start, end) >= 0


def _parsed(text, start, end, number, escapes=True):
    """The record that fills text[start:end], JSON spaces aside, and is well-formed as line
    `number`; or None. `escapes` false says the text holds no escape a surrogate could
    come from."""
    while start < end and text[start] in _JSON_SPACE:
        start += 1
    try:
        record, stop = _scan(text, start)
    except (StopIteration, ValueError, RecursionError):
        return None
    if stop != end and text[stop:end].strip(_JSON_SPACE):
        return None
    if not is_record(record, number):
        return None
    # A lone surrogate can only come from a \ud800-\udfff escape; no door and no output
    # can carry one, so such a record is not valid text.
    if escapes and _may_escape_a_surrogate(text, start, end) and not _is_text(record):
        return None
    return record


def is_record(record, number):
    """Whether `record` is a well-formed record for line `number`: 1.0's rules, and door
    fields that a door can carry."""
    if type(record) is not dict:
        return False
    n, at, kind = record.get("n"), record.get("at"), record.get("kind")
    if n != number or type(n) is not int or type(at) is not str or at == "":
        return False
    shape = _SHAPES.get(kind) if type(kind) is str else None
    return shape is not None and shape(record)


def _is_letter(record):
    sender, recipient, body = record.get("from"), record.get("to"), record.get("body")
    peers_differ = (sender == "claude" and recipient == "codex") or (sender == "codex" and recipient == "claude")
    return peers_differ and type(body) is str and body != ""


def _is_open(record):
    limit = record.get("limit")
    return type(limit) is int and limit >= 1


def _is_join(record):
    peer = record.get("peer")
    return peer in PEERS and all(_is_door_field(record.get(f)) for f in DOOR_FIELDS[peer])


def is_door_field(value):
    """Whether a door can carry `value`: a NUL cannot travel in a socket path or an argument."""
    return value != "" and "\0" not in value and _is_text(value)


def _is_door_field(value):
    return type(value) is str and is_door_field(value)


def _is_text(value):
    """Whether every string in `value` (a record, or a string) is valid Unicode text."""
    if type(value) is dict:
        return all(_is_text(v) for v in value.values() if type(v) is str)
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


def _is_close(record):
    return True  # the human's brake carries nothing but its number, time and kind


_SHAPES = {"letter": _is_letter, "open": _is_open, "join": _is_join, "close": _is_close}


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


# The decoder's own scanner parses one value in place, where the line starts, with no copy
# of the line and none of json.loads's wrapping. NaN and Infinity are not JSON, so they are
# refused too.
_scan = json.scanner.make_scanner(json.JSONDecoder(parse_constant=_no_constant))


def now():
    """Local time to the second with its exact UTC offset, e.g. 2026-09-08T10:02:11+02:00,
    or +01:00:30 where a zone's offset has seconds, as 1.0's isoformat() wrote it."""
    moment = time.localtime()
    offset = moment.tm_gmtoff
    sign = "-" if offset < 0 else "+"
    minutes, seconds = divmod(abs(offset), 60)
    hours, minutes = divmod(minutes, 60)
    zone = f"{sign}{hours:02d}:{minutes:02d}" + (f":{seconds:02d}" if seconds else "")
    return time.strftime("%Y-%m-%dT%H:%M:%S", moment) + zone


def _open(path, *, write, create, sandboxed):
    """A descriptor on the ledger and its fstat, or (None, None) when it does not exist and need not."""
    # O_NONBLOCK keeps a FIFO planted at the path from hanging the open; O_NOFOLLOW refuses
    # a symlink that could point the appends, and the session token, anywhere.
    flags = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    flags |= os.O_RDWR | os.O_APPEND if write else os.O_RDONLY
    try:
        if create:
            _make_private_directories(os.path.dirname(path))
            flags |= os.O_CREAT
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:
        if not create:
            return None, None
        raise Refusal(f"cannot open the ledger (no such directory: {os.path.dirname(path)})") from None
    except OSError as error:
        if error.errno in (errno.EISDIR, errno.ENXIO):  # a directory; a socket
            raise Refusal(f"the ledger is not a regular file ({path})") from None
        reason = f"cannot open the ledger ({_open_failure(error, path)})"
        if sandboxed and error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            reason += (
                "; Codex's sandbox keeps it from being written. The human can add the ledger's directory to the "
                "sandbox's writable roots, or point POSTBAG_LEDGER at a path inside them"
            )
        raise Refusal(reason) from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise Refusal(f"the ledger is not a regular file ({path})")
        if status.st_uid != os.geteuid():
            # Root writing its session token into a file that another user can read, or
            # changing that user's file, would be worse than refusing.
            raise Refusal(f"the ledger belongs to another user, {_user_name(status.st_uid)} ({path})")
    except OSError as error:
        os.close(fd)
        raise Refusal(f"cannot open the ledger ({error.strerror}: {path})") from None
    except Refusal:
        os.close(fd)
        raise
    return fd, status


def _user_name(uid):
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _open_failure(error, path):
    if error.errno == errno.ELOOP or (error.errno == errno.EMLINK and os.path.islink(path)):
        return f"it is a symbolic link: {path}"
    return f"{error.strerror}: {path}"


def _make_private_directories(path):
    """Create `path` and any missing parents, each 0700; directories that exist keep their mode."""
    missing = []
    while path and not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            continue
        os.chmod(directory, 0o700)  # mkdir's mode is masked by the umask


def _lock(fd, write, path, on_wait):
    """Lock the file, shared to read and exclusive to write. `on_wait` is called once if it is held."""
    kind = fcntl.LOCK_EX if write else fcntl.LOCK_SH
    try:
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fd, kind)
    except OSError as error:  # ENOLCK on some network file systems
        raise Refusal(f"cannot lock the ledger ({error.strerror}: {path})") from None


# Bytes read at a time. A verb that needs only the end of the file passes over the rest in
# blocks that stay in the processor's cache; the whole file in fresh memory would cost more
# than reading it. 64 KiB passed over 17 MB a little faster here than 32, 128 or 256.
_CHUNK = 1 << 16


def _read_locked(fd, path, joins):
    """One pass over the locked file: its newline count, marks (offset, newlines before it)
    at every block, where the kept tail starts, the tail (the last two blocks), and if
    `joins` is true, for each block, where the last join token that ends in it starts (or -1)."""
    marks, count, offset, notes, carry = [], 0, 0, [], b""
    try:
        while block := os.read(fd, _CHUNK):
            marks.append((offset, count))
            # Faster than count(), which looks at each byte: replace() finds each newline with memchr.
            count += len(block) - len(block.replace(b"\n", b""))
            if joins:
                notes.append(_last_token_ending_in(block, offset, carry))
                carry = (carry + block[1 - len(_JOIN) :])[1 - len(_JOIN) :]
            offset += len(block)
        # Read again rather than kept: a block kept alive makes every later one fresh memory.
        tail_at = max(0, offset - 2 * _CHUNK)
        tail = os.pread(fd, offset - tail_at, tail_at)
    except OSError as error:
        raise Refusal(f"cannot read the ledger ({error.strerror}: {path})") from None
    return count, marks or [(0, 0)], tail_at, tail, notes if joins else None


def _last_token_ending_in(block, offset, carry):
    """Where the last join token that ends inside `block` (at `offset`, after the bytes
    `carry`) starts, or -1: its own, else one across the edge with the blocks before."""
    hit = block.rfind(_JOIN)
    if hit >= 0:
        return offset + hit
    seam = carry + block[: len(_JOIN) - 1]
    hit = seam.rfind(_JOIN)
    return offset - len(carry) + hit if hit >= 0 and hit + len(_JOIN) > len(carry) else -1


def _pread(fd, size, offset, path):
    try:
        return os.pread(fd, size, offset)
    except OSError as error:
        raise Refusal(f"cannot read the ledger ({error.strerror}: {path})") from None


def _append_whole(fd, line, size):
    """Append `line` and make it durable, or cut the file back to `size` and raise OSError.

    Every signal that can be blocked waits until the append is whole or undone: a send
    stopped by one never leaves half a record. SIGKILL cannot wait; the next writer cuts
    what it left (`Ledger`).
    """
    # Past RLIMIT_FSIZE the kernel would kill the process mid-append; ignoring the signal
    # turns it into an EFBIG that can be answered.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    held = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        _write_durably(fd, line)
    except OSError:
        _cut_back(fd, size)
        raise
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _write_durably(fd, line):
    # One write of the whole line on an O_APPEND descriptor: a reader never sees half of it.
    if os.write(fd, line) != len(line):
        raise OSError(errno.EIO, "the disk took only part of the record")
    full_sync = getattr(fcntl, "F_FULLFSYNC", None)  # macOS: fsync alone stops at the drive's cache
    if full_sync is not None:
        try:
            fcntl.fcntl(fd, full_sync)
            return
        except OSError:  # not every file system takes it
            pass
    os.fsync(fd)


def _cut_back(fd, size):
    """Remove whatever part of a failed append reached the file."""
    try:
        os.ftruncate(fd, size)
    except OSError:
        pass
