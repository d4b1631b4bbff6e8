"""The bag: one append-only JSON Lines file, the whole history and the only state.

Each line is one record, numbered from 1 without gaps. A verb reads only the records it
relies on, found by scanning the raw bytes from the end, and validates each of them, so a
send costs the same on the first day as after a year of letters.
"""

import errno
import fcntl
import json
import json.scanner
import os
import re
import signal
import stat
import time

from postbag.guards import PEERS, Refusal
from postbag.transcript import is_unsafe

DEFAULT_PATH = "~/.postbag/ledger.jsonl"
LIMIT_MAX = 1_000_000_000

_DOORS = {"claude": ("socket", "token"), "codex": ("thread",)}
# 1.0 writes seconds and a UTC offset; earlier ledgers wrote local time, some with
# microseconds and no offset. All of them read; nothing else may stand in `at`.
_TIMESTAMP = re.compile(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d(?::\d\d)?)?", re.ASCII
).fullmatch


def locate(env):
    """The ledger's absolute path, fixed once so a later chdir cannot move it."""
    raw = env.get("POSTBAG_LEDGER") or DEFAULT_PATH
    if any(is_unsafe(char) for char in raw):
        raise Refusal("POSTBAG_LEDGER holds a control character")
    return os.path.abspath(os.path.expanduser(raw))


def is_default(path):
    return path == os.path.abspath(os.path.expanduser(DEFAULT_PATH))


class Ledger:
    """The ledger opened and locked: shared to read, exclusive to write.

    `data` holds the file's bytes as they were when the lock was taken. Only the lines a
    verb relies on are decoded and parsed.
    """

    def __init__(self, path, *, write=False, create=False):
        self.path = path
        self.fd = _open(path, write=write, create=create)
        try:
            self.data = b"" if self.fd is None else _read_locked(self.fd, write, path)
            self.size, self.count = len(self.data), self.data.count(b"\n")
            if not self.data.endswith(b"\n") and self.data:
                raise Refusal(f"ledger is truncated after line {self.count} ({path})")
            # Every verb continues or shows the last record, and its number must equal the
            # line count: a line deleted or inserted anywhere shows here.
            self.tail(1)
        except Refusal:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        """Release the lock. `data` stays readable."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def records(self, start=0, number=1):
        """Every record from byte `start` (line `number`) to the end, validated one by one."""
        text = self._decode(start, len(self.data), number)
        at, size, find_end = 0, len(text), text.index
        while at < size:
            end = find_end("\n", at)
            record = _parsed(text, at, end, number)
            if record is None:
                raise self._not_a_record(number)
            yield record
            at, number = end + 1, number + 1

    def tail(self, count):
        """The last `count` records, oldest first."""
        bounds, start = [], len(self.data)
        for _ in range(min(count, self.count)):
            end = start - 1
            start = self.data.rfind(b"\n", 0, end) + 1
            bounds.append((start, end))
        first = self.count - len(bounds) + 1
        return [self._record(first + i, s, e) for i, (s, e) in enumerate(reversed(bounds))]

    def door(self, peer):
        """The door fields of `peer`'s latest join, or None if it never joined."""
        found = self._latest(b'"join"', lambda r: r["kind"] == "join" and r["peer"] == peer)
        if found is None:
            return None
        _, record, _ = found
        return {field: record[field] for field in _DOORS[peer]}

    def letters_left(self):
        """How many letters the open exchange still grants, or None if none was opened."""
        found = self._latest(b'"open"', lambda r: r["kind"] == "open")
        if found is None:
            return None
        number, record, end = found
        sent = sum(r["kind"] == "letter" for r in self.records(end + 1, number + 1))
        return record["limit"] - sent

    def append(self, kind, **fields):
        """Record one line and make it durable, or leave the file as it was and raise OSError."""
        record = {"n": self.count + 1, "at": _now(), "kind": kind, **fields}
        line = (json.dumps(record) + "\n").encode()  # ASCII: json escapes the rest
        try:
            _write_durably(self.fd, line)
        except OSError:
            _cut_back(self.fd, self.size)
            raise
        self.size += len(line)  # `data` stays the snapshot: copying it would cost more than the append
        self.count += 1
        return record

    def _latest(self, token, accept):
        """The last record whose line holds `token` and that `accept` takes.

        Returns (number, record, end of line), or None. Only the lines holding the token
        are parsed; JSON escapes every quote inside a string, so a kind's quoted name can
        only occur as a whole string value.
        """
        data = self.data
        start = len(data)
        while (hit := data.rfind(token, 0, start)) >= 0:
            start = data.rfind(b"\n", 0, hit) + 1
            end = data.index(b"\n", hit)
            # Count the lines on the shorter side: doors usually sit near the start.
            if start < len(data) // 2:
                number = data.count(b"\n", 0, start) + 1
            else:
                number = self.count - data.count(b"\n", end + 1)
            record = self._record(number, start, end)
            if accept(record):
                return number, record, end
        return None

    def _record(self, number, start, end):
        """Line `number`, the bytes data[start:end], as a validated record."""
        text = self._decode(start, end, number)
        record = _parsed(text, 0, len(text), number)
        if record is None:
            raise self._not_a_record(number)
        return record

    def _decode(self, start, end, number):
        """data[start:end], which begins at line `number`, as text."""
        try:
            return self.data[start:end].decode()
        except UnicodeDecodeError as error:
            raise self._not_a_record(number + self.data.count(b"\n", start, start + error.start)) from None

    def _not_a_record(self, number):
        return Refusal(f"ledger line {number} is not a record ({self.path})")


def _parsed(text, start, end, number):
    """The record that fills text[start:end] exactly and is well-formed as line `number`,
    or None."""
    try:
        record, stop = _scan(text, start)
    except (StopIteration, ValueError, RecursionError):
        return None
    return record if stop == end and is_record(record, number) else None


def is_record(record, number):
    """Whether `record` is a well-formed record for line `number`."""
    if type(record) is not dict:
        return False
    n, at, kind = record.get("n"), record.get("at"), record.get("kind")
    if n != number or type(n) is not int or type(at) is not str or not _TIMESTAMP(at):
        return False
    shape = _SHAPES.get(kind) if type(kind) is str else None
    return shape is not None and shape(record)


def _is_letter(record):
    sender, recipient, body = record.get("from"), record.get("to"), record.get("body")
    peers_differ = (sender == "claude" and recipient == "codex") or (sender == "codex" and recipient == "claude")
    return peers_differ and type(body) is str and body != ""


def _is_open(record):
    limit = record.get("limit")
    return type(limit) is int and 1 <= limit <= LIMIT_MAX


def _is_join(record):
    peer = record.get("peer")
    return peer in PEERS and all(_is_door_field(record.get(f)) for f in _DOORS[peer])


def _is_door_field(value):
    # A NUL cannot travel in a socket path or an argument, so it marks damage.
    return type(value) is str and value != "" and "\0" not in value


_SHAPES = {"letter": _is_letter, "open": _is_open, "join": _is_join}


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


# The decoder's own scanner parses one value in place, where the line starts, with no copy
# of the line and none of json.loads's wrapping; a value must then end exactly at the line's
# end. NaN and Infinity are not JSON, so they are refused too.
_scan = json.scanner.make_scanner(json.JSONDecoder(parse_constant=_no_constant))


def _now():
    """Local time to the second with its UTC offset, e.g. 2026-09-08T10:02:11+02:00."""
    moment = time.localtime()
    hours, minutes = divmod(abs(moment.tm_gmtoff) // 60, 60)
    sign = "-" if moment.tm_gmtoff < 0 else "+"
    return time.strftime("%Y-%m-%dT%H:%M:%S", moment) + f"{sign}{hours:02d}:{minutes:02d}"


def _open(path, *, write, create):
    """A descriptor on the ledger, or None when it does not exist and need not."""
    # O_NONBLOCK keeps a FIFO planted at the path from hanging the open; O_NOFOLLOW refuses
    # a symlink that could point the appends, and the session token, anywhere.
    flags = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    flags |= os.O_RDWR | os.O_APPEND if write else os.O_RDONLY
    try:
        if create:
            _make_private_directory(os.path.dirname(path))
            flags |= os.O_CREAT
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:
        if not create:
            return None
        raise Refusal(f"cannot open the ledger (no such directory: {os.path.dirname(path)})") from None
    except OSError as error:
        if error.errno in (errno.EISDIR, errno.ENXIO):  # a directory; a socket
            raise Refusal(f"the ledger is not a regular file ({path})") from None
        raise Refusal(f"cannot open the ledger ({_open_failure(error, path)})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise Refusal(f"the ledger is not a regular file ({path})")
        if write and stat.S_IMODE(mode) != 0o600:
            os.fchmod(fd, 0o600)  # it holds a session token
    except OSError as error:
        os.close(fd)
        raise Refusal(f"cannot open the ledger ({error.strerror}: {path})") from None
    except Refusal:
        os.close(fd)
        raise
    return fd


def _open_failure(error, path):
    if error.errno == errno.ELOOP or (error.errno == errno.EMLINK and os.path.islink(path)):
        return f"it is a symbolic link: {path}"
    return f"{error.strerror}: {path}"


def _make_private_directory(path):
    if os.path.isdir(path):
        return
    _make_private_directory(os.path.dirname(path))
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        return
    os.chmod(path, 0o700)  # mkdir's mode is masked by the umask


def _read_locked(fd, write, path):
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if write else fcntl.LOCK_SH)
    except OSError as error:  # ENOLCK on some network file systems
        raise Refusal(f"cannot lock the ledger ({error.strerror}: {path})") from None
    try:
        # One read of the size fstat gives, then on to the end in case the file grew.
        chunks = [os.read(fd, os.fstat(fd).st_size + 1)]
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 20))
    except OSError as error:
        raise Refusal(f"cannot read the ledger ({error.strerror}: {path})") from None
    return chunks[0] if len(chunks) == 2 else b"".join(chunks)


def _write_durably(fd, line):
    # Past RLIMIT_FSIZE the kernel would kill the process mid-append; ignoring the signal
    # turns it into an EFBIG that can be answered.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
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
