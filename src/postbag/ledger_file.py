"""The ledger's file on disk: opened only when it is a regular file of this user's, locked, and appended to one
whole line at a time, durably. Nothing here knows what its lines mean (ledger.py)."""

import errno
import fcntl
import os
import stat

from postbag.refusal import Refusal

# signals.py and whole_file.py, which only a writer needs, are imported where it writes: a reader loads neither.


def open_to_follow(path):
    """A descriptor to read the ledger by, without a lock; None while it does not exist."""
    try:
        return os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Refusal(f"cannot open the ledger ({_open_failure(error, path)})") from None


def read_from(fd, offset):
    """Everything the file `fd` holds from byte `offset` on, as it is now."""
    return os.pread(fd, max(0, os.fstat(fd).st_size - offset), offset)


def open_checked(path, *, write, create, sandbox):
    """A descriptor on the ledger, its fstat, and a `Made` where `create` made the file; or (None, None, None) when
    it does not exist and need not. `sandbox`, the Sandbox around this process or None, may be what refused it."""
    # O_NONBLOCK keeps a FIFO planted at the path from hanging the open; O_NOFOLLOW refuses a symlink that could
    # point the appends, and the session token, anywhere.
    flags = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    flags |= os.O_RDWR | os.O_APPEND if write else os.O_RDONLY
    made = None
    try:
        if create:
            made = _create(path, flags)
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:
        if not create:
            return None, None, None
        raise Refusal(f"cannot open the ledger (no such directory: {os.path.dirname(path)})") from None
    except OSError as error:
        if error.errno in (errno.EISDIR, errno.ENXIO):  # a directory; a socket
            raise Refusal(f"the ledger is not a regular file ({path})") from None
        reason = f"cannot open the ledger ({_open_failure(error, path)})"
        if sandbox is not None and error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            reason += f"; {sandbox.name} keeps it from being written. {sandbox.allow_writing}"
        raise Refusal(reason) from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise Refusal(f"the ledger is not a regular file ({path})")
        if status.st_uid != os.geteuid():
            # Root writing its session token into a file another user can read, or changing that user's file,
            # would be worse than refusing.
            raise Refusal(f"the ledger belongs to another user, {_user_name(status.st_uid)} ({path})")
    except OSError as error:
        os.close(fd)
        raise Refusal(f"cannot open the ledger ({f'{error.strerror}: {path}'})") from None
    except Refusal:
        os.close(fd)
        raise
    return fd, status, made


class Made:
    """What creating the ledger made: the file at `path` and the outermost `directory` made for it (None: none was)."""

    __slots__ = ("directory", "path")

    def __init__(self, path, directory):
        self.path, self.directory = path, directory


def _create(path, flags):
    """Make the ledger's directories and the file, each 0700 or 0600, and make their names durable; a `Made`, or None
    when the file was there already. A name lives in its directory, and a file fsynced in a directory that was not
    can vanish in a power cut, as Maildir warns: each directory holding a new name is fsynced too."""
    made = _make_private_directories(os.path.dirname(path))
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return None
    os.close(fd)
    from postbag.whole_file import sync_directory

    sync_directory(os.path.dirname(path))
    return Made(path, made[0] if made else None)


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
    """Create `path` and any missing parents, each 0700, the parent of each fsynced; directories that exist keep
    their mode. The directories made, outermost first."""
    from postbag.whole_file import sync_directory

    missing = []
    while path and not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    made = []
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            continue
        os.chmod(directory, 0o700)  # mkdir's mode is masked by the umask
        sync_directory(os.path.dirname(directory))
        made.append(directory)
    return made


def lock(fd, write, path, on_wait):
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


def append_whole(fd, line, size):
    """Append `line` and make it durable, or cut the file back to `size` and raise OSError. Every signal that can be
    blocked waits until the append is whole or undone: a send stopped by one never leaves half a record. SIGKILL
    cannot wait; the next writer cuts what it left (ledger.py)."""
    from postbag.signals import FileSizeAsError, Held
    from postbag.whole_file import flush

    # One write of the whole line on an O_APPEND descriptor, under the lock: a reader that takes the lock never sees
    # half of it, and one that follows without it (read --follow, ledger_position.py) waits for the line's newline.
    with FileSizeAsError(), Held():  # past the file size limit: an EFBIG, not a killed process
        try:
            if os.write(fd, line) != len(line):
                raise OSError(errno.EIO, "the disk took only part of the record")
            flush(fd)
        except OSError:
            try:
                os.ftruncate(fd, size)  # remove whatever part of a failed append reached the file
            except OSError:
                pass
            raise
