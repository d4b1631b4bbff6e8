"""Whether a running Codex has a thread loaded, which only a loaded thread does with a queued letter: it takes it.
The process that loads a thread creates thread-writer-locks/<thread>.lock under CODEX_HOME and holds an flock on it
for as long as it has the thread. Nothing is locked to find out whether one does, so a Codex loading the thread
that moment is never turned away: Linux lists every flock in /proc/locks; macOS's kernel keeps flock and fcntl
locks on one list per file, so asking fcntl which lock would block one (F_GETLK) sees Codex's flock without taking
anything. Elsewhere nothing is known."""

import os

from postbag.room import CANNOT_TELL

LOADED, NOT_LOADED = "loaded", "not loaded"  # else CANNOT_TELL
LOCKS = "/proc/locks"
# Where F_GETLK sees an flock, the layout of its struct flock: (format, index of l_type).
FLOCK_LAYOUTS = {"darwin": ("qqihh", 3)}


def is_loaded(home, thread, system, locks=LOCKS):
    """LOADED where a running codex holds the writer lock of `thread`, NOT_LOADED where none does, CANNOT_TELL
    where that cannot be told on the `system` (sys.platform's name)."""
    kept = os.path.join(home, "thread-writer-locks")
    path = os.path.join(kept, f"{thread}.lock")
    try:
        status = os.stat(path)
    except FileNotFoundError:
        # Where this codex keeps its locks and the thread has none, none has it loaded. With no such folder this is
        # not that codex's home, or a codex without locks: nothing is known.
        return NOT_LOADED if os.path.isdir(kept) else CANNOT_TELL
    except OSError:
        return CANNOT_TELL
    if system == "linux":
        return _listed_in(locks, status)
    if system in FLOCK_LAYOUTS:
        return _blocked(path, FLOCK_LAYOUTS[system])
    return CANNOT_TELL


def _listed_in(locks, status):
    """LOADED where the kernel's list of locks, at `locks`, holds an flock on the file of `status`."""
    try:
        with open(locks, "rb") as file:  # bytes: a process's first text open costs it 10 ms of codec set-up
            held = file.read()
    except OSError:
        return CANNOT_TELL
    device = b"%02x:%02x:%d" % (os.major(status.st_dev), os.minor(status.st_dev), status.st_ino)
    listed = any(line.split()[5:6] == [device] for line in held.splitlines() if b"FLOCK" in line)
    return LOADED if listed else NOT_LOADED


def _blocked(path, layout):
    """LOADED where some lock on the file at `path` would block a write lock on it all: asked (F_GETLK), never taken."""
    import fcntl  # here: only macOS asks
    import stat
    import struct

    shape, type_at = layout
    fields = list(struct.unpack(shape, bytes(struct.calcsize(shape))))  # every field 0
    fields[type_at] = fcntl.F_WRLCK
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return CANNOT_TELL
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return CANNOT_TELL
        answer = struct.unpack(shape, fcntl.fcntl(descriptor, fcntl.F_GETLK, struct.pack(shape, *fields)))
    except OSError:
        return CANNOT_TELL
    finally:
        os.close(descriptor)
    return NOT_LOADED if answer[type_at] == fcntl.F_UNLCK else LOADED
