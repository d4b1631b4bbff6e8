"""Every file postbag writes but the ledger, written whole or not at all: a person's file (Claude Code's
settings.json) and the copy of it kept as it was found.

The new bytes go, every one of them, to a file beside the old one, made durable, and renamed over the old: whoever
reads the file, after a crash or a kill at any moment, finds the old bytes or the whole of the new. Then the
directory, which holds the name, is made durable too. What fails is an OSError, and the file is as it was.

A file is read here as every file of anyone's is (vendor_files.py too): opened without blocking, and only where it
is a regular file.
"""

import errno
import fcntl
import os
import stat

from postbag.escape import shell_word
from postbag.refusal import Refusal
from postbag.vendor_files import open_regular

KEPT = ".before-postbag"  # what a person's file, as setup found it, is kept as beside it


def write(path, data, mode=None):
    """`data` as the whole of the file at `path` (or the file a link there names), which keeps its mode, or takes
    `mode` where one is given; a file made here without one is private (0600)."""
    target = os.path.realpath(path)
    folder, name = os.path.split(target)
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o600
    from postbag.signals import FileSizeAsError, Held  # a writer's alone: a reader of a vendor's file needs none

    aside = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.part")
    with FileSizeAsError(), Held():  # a signal that can wait does; SIGKILL leaves only the part file
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            try:
                os.fchmod(fd, mode)
                _write_all(fd, data)
                flush(fd)
            finally:
                os.close(fd)
            os.replace(aside, target)
        except OSError:
            _remove_quietly(aside)
            raise
    sync_directory(folder)


class Found:
    """A file as it was found: its bytes, mode and modification time, to be put back whole."""

    __slots__ = ("data", "mode", "modified")

    def __init__(self, data, mode, modified):
        self.data, self.mode, self.modified = data, mode, modified


def found(path):
    """The file at `path` (or the one a link there names) as it is now: a Found, or None
    where there is none. An OSError where it cannot be read, or is no regular file."""
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return None
    with open(fd, "rb") as file:
        status = os.fstat(fd)
        return Found(file.read(), stat.S_IMODE(status.st_mode), status.st_mtime_ns)


def found_or_refusal(path):
    """found(path), or a Refusal, raised, that names the file where it cannot be read."""
    try:
        return found(path)
    except OSError as error:
        raise Refusal(f"cannot read {shell_word(path)} ({error.strerror})") from None


def writing(path, work):
    """`work()`, which writes the file at `path`: an OSError told as a Refusal, raised, that names the file."""
    try:
        work()
    except OSError as error:
        raise Refusal(f"cannot write {shell_word(path)} ({error.strerror})") from None


def put_back(path, was):
    """The file at `path` made again as `was`, a Found, says, modification time included; removed where it is None."""
    if was is None:
        if os.path.lexists(path):
            remove(path)
        return
    write(path, was.data, was.mode)
    os.utime(path, ns=(was.modified, was.modified))


def copies(path):
    """The copies kept beside the file at `path`: `path + KEPT`, then each later `path + KEPT + "-N"`, in order."""
    folder, name = os.path.split(path)
    stem = name + KEPT
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return []
    numbered = [each for each in names if each.startswith(stem + "-") and each[len(stem) + 1 :].isdigit()]
    found = ([stem] if stem in names else []) + sorted(numbered, key=lambda each: int(each[len(stem) + 1 :]))
    return [os.path.join(folder, each) for each in found]


def free_copy(path):
    """Where a new copy of the file at `path` goes: `path + KEPT`, else the first `path + KEPT + "-N"` no file takes."""
    taken, tried = set(copies(path)), path + KEPT
    number = 1
    while tried in taken or os.path.lexists(tried):
        number += 1
        tried = f"{path}{KEPT}-{number}"
    return tried


def copy_as_left(path):
    """The copy setup made of the file at `path`, where the file is as setup left it: the copy stamped (stamp) with
    the file's ctime, which any write or chmod moves on and nothing sets back; else None."""
    try:
        changed = os.stat(path).st_ctime_ns
    except OSError:
        return None
    for copy in copies(path):
        try:
            stamped = os.stat(copy, follow_symlinks=False).st_mtime_ns
        except OSError:
            continue
        if stamped == _stamp_of(changed) or (stamped == changed and changed % 10**9 == 0):
            return copy  # (the second: a file system that keeps whole seconds, and drops the nanosecond)
    return None


def others_copies(path):
    """The copies beside the file at `path` other than copy_as_left's, which setup never uses."""
    own = copy_as_left(path)
    return [copy for copy in copies(path) if copy != own]


def stamp(path, copy):
    """Give `copy` the ctime of the file at `path`, a nanosecond on, as its modification time: the kernel's clock
    for stamps moves a millisecond or more at a time, so no copy made by anything else bears it. No file, no stamp."""
    try:
        changed = os.stat(path).st_ctime_ns
    except FileNotFoundError:
        return
    if os.path.lexists(copy):
        os.utime(copy, ns=(_stamp_of(changed),) * 2)


def _stamp_of(changed):
    return changed + 1


def clean_leftovers(folder):
    """Remove the part files (.NAME.PID.HEX.part) that a kill left in `folder`, each whose process PID runs no
    more: a process that runs is writing one still, or has the same pid since, and its file stays."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        pid = _writer_of(name)
        if pid is None:
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            _remove_quietly(os.path.join(folder, name))
        except OSError:  # another user's process: it runs
            pass


def _writer_of(name):
    """The pid in the name of a part file of postbag's, .NAME.PID.HEX.part, or None."""
    if not (name.startswith(".") and name.endswith(".part")):
        return None
    parts = name[: -len(".part")].rsplit(".", 2)
    if len(parts) != 3 or not (parts[1].isascii() and parts[1].isdigit()) or len(parts[2]) != 8:
        return None
    return int(parts[1]) if 0 < int(parts[1]) < 2**31 else None


def remove(path):
    """Remove the file at `path`, and make its directory's loss of the name durable."""
    os.unlink(path)
    sync_directory(os.path.dirname(os.path.abspath(path)))


def _write_all(fd, data):
    """Write every byte of `data`: a write the disk took only part of goes on from there."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:  # no byte taken and no error: never seen, but it must not loop for ever
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def flush(fd):
    """Make what was written to `fd` durable: on macOS fsync alone stops at the drive's
    cache, so F_FULLFSYNC is asked first, where the file system takes it."""
    full_sync = getattr(fcntl, "F_FULLFSYNC", None)
    if full_sync is not None:
        try:
            fcntl.fcntl(fd, full_sync)
            return
        except OSError:  # not every file system takes it
            pass
    os.fsync(fd)


def sync_directory(path):
    """Make the names in the directory at `path` durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        flush(fd)
    finally:
        os.close(fd)


def _remove_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass
