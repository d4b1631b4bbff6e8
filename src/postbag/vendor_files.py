"""Reading what a vendor writes. Claude Code's settings, sessions and transcripts, and Codex's rollouts, queue and
records of its daemon, are untrusted input: a file can be damaged, half-written, replaced by another program (a
pipe, a directory, a link to a device) or written by a version never seen here. So a file is opened without
blocking and read only when it is a regular file, never more than a bound; nesting too deep is not JSON; a record
is taken only as an object, each field of the type wanted; and what a person is shown of it is escaped and cut short.

What cannot be read is an OSError whose words say why; what is not JSON, a ValueError.
"""

import errno
import os
import stat

from postbag import json_values
from postbag.escape import one_line

LIMIT = 1 << 20  # bytes of a settings file or a process's file: far more than any holds
QUOTED = 80  # characters of a record's word that a person is shown, at most
# How far back a search through a transcript or rollout goes at most: records older than
# the letter end it sooner, since they cannot hold what came after them.
LOOK_BACK = 64 << 20
_BLOCK = 1 << 20
_TIMESTAMP = b'"timestamp":'


def open_regular(path):
    """A descriptor reading the regular file at `path` (a link is followed): opened without
    blocking, so that a pipe planted there cannot hang the reader; OSError for anything else."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "it is not a regular file")
    except OSError:
        os.close(fd)
        raise
    return fd


def is_regular(path):
    """Whether `path` is a regular file (a link followed), for a reader that opens the path itself (SQLite)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def read_regular(path, limit=LIMIT):
    """The bytes of the regular file at `path`, where it holds at most `limit` of them; else OSError."""
    fd = open_regular(path)
    pieces, size = [], 0
    try:
        while size <= limit and (piece := os.read(fd, limit + 1 - size)):
            pieces.append(piece)
            size += len(piece)
    finally:
        os.close(fd)
    if size > limit:
        raise OSError(errno.EFBIG, "it is longer than postbag reads")
    return b"".join(pieces)


def json_of(data):
    """The JSON value in `data`, bytes or text; ValueError for anything not JSON, nesting too deep among it."""
    try:
        return json_values.loads(data)
    except RecursionError:
        raise ValueError("nested too deep") from None


def read_json(path, limit=LIMIT):
    """The JSON value in the regular file at `path`; OSError where it cannot be read, ValueError where not JSON."""
    return json_of(read_regular(path, limit))


def record(value):
    """`value` when it is a JSON object, else an empty one: a record of another shape says nothing."""
    return value if type(value) is dict else {}


def text(table, name):
    """The string at `name` of `table`, or None for anything else."""
    value = table.get(name) if type(table) is dict else None
    return value if type(value) is str else None


def table(value, name):
    """The object at `name` of `value`, or an empty one for anything else."""
    return record(value.get(name)) if type(value) is dict else {}


def whole(value, low, high):
    """`value` when it is a whole number (no bool) from `low` to `high`, else None: a pid past a pid_t is no pid."""
    return value if type(value) is int and low <= value <= high else None


def quoted(word, limit=QUOTED):
    """A vendor's `word` as a person is shown: on one line, escaped, at most `limit` characters, ellipsis included."""
    shown = one_line(word if type(word) is str else repr(word))
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def find_back(path, what, needle, accept, since, look_back=LOOK_BACK):  # noqa: PLR0913, PLR0917
    """The newest record of the JSON Lines file at `path` (`what`, in words that name no door: its name holds a
    session or thread id) that `accept` takes, looked for from the end, at most `look_back` bytes: only lines holding
    `needle` (bytes, or a tuple of them) are parsed, only objects are offered to `accept`, and the search ends at a
    block whose records are older than `since` (seconds since the epoch, or None). Returns (record or None, None),
    or (None, why the file cannot be read)."""
    from postbag.times import moment

    try:
        fd = open_regular(path)
    except OSError as error:
        return None, f"cannot read {what} ({error.strerror})"
    try:
        end = os.fstat(fd).st_size
        needles = needle if isinstance(needle, tuple) else (needle,)
        lowest, size = max(0, end - look_back), _BLOCK
        while end > lowest:
            start = max(lowest, end - size)
            data = os.pread(fd, end - start, start)  # searched in place: a copy would cost more than the search
            first = data.find(b"\n")
            if start > lowest and first in (-1, len(data) - 1):
                size *= 2  # one line fills the block: read it whole, with more before it
                continue
            # The block's first line, cut by its start, is read whole with the next block;
            # at the edge of what is read back it is not read at all.
            cut = 0 if start == 0 else len(data) if first < 0 else first + 1
            held = [each for each in needles if data.find(each, cut) >= 0]  # most often in vain
            for line in reversed(data[cut:].split(b"\n") if held else ()):
                if any(each in line for each in held):
                    try:
                        found = json_of(line)
                    except ValueError:
                        continue  # a line still being written, or not JSON: not the one
                    if type(found) is dict and accept(found):
                        return found, None
            if since is not None and (oldest := moment(_oldest_stamp(data, cut))) is not None and oldest < since:
                return None, None
            if start == lowest:
                break
            end, size = start + cut, _BLOCK
        return None, (f"{what} is longer than postbag reads back" if lowest else None)
    except OSError as error:
        return None, f"cannot read {what} ({error.strerror})"
    finally:
        os.close(fd)


def _oldest_stamp(data, first):
    """The time stamp of the first record in `data` from offset `first` that says when it was written, or None."""
    at = data.find(_TIMESTAMP, first)
    if at < 0:
        return None
    start = data.find(b'"', at + len(_TIMESTAMP))
    end = data.find(b'"', start + 1)
    if start < 0 or end < 0 or data[at + len(_TIMESTAMP) : start].strip():
        return None
    return data[start + 1 : end].decode(errors="replace")


def newest(paths):
    """The most recently changed of `paths`: the one a vendor writes to now."""

    def modified(path):
        try:
            return os.stat(path).st_mtime
        except OSError:
            return 0

    return max(paths, key=modified)
