"""The git repository a directory lies in, found as git's discovery finds it (its setup.c), without running git.

- GIT_DIR, where set, is the repository, from the working directory where it is relative; GIT_COMMON_DIR, where
  set, its common directory. Nothing is looked for.
- Else git looks from the directory, its links resolved, up folder by folder: in each, for `.git`, a file naming
  the repository's folder (`gitdir: PATH`, as a worktree and a submodule have) or a folder that is one; failing
  that, whether the folder is itself a repository's (a bare one, or the inside of `.git`). A `.git` that cannot be
  looked at, is neither a file nor a folder, or is a folder of no repository's, is passed over. A `.git` file that
  cannot be read, or names no repository, stops git; postbag refuses it.
- The walk never climbs into a folder GIT_CEILING_DIRECTORIES names, nor onto another file system unless
  GIT_DISCOVERY_ACROSS_FILESYSTEM is true.
- A repository's folder holds a HEAD git takes, and its common directory (the folder its `commondir` names, else
  itself) holds objects and refs.
- A repository the walk finds, whose folders are not the user's, git refuses ("dubious ownership") unless its
  safe.directory setting names it; postbag refuses it always.

A submodule's folder names no common directory, and is a repository of its own. A repository is known by its
common directory's device and inode, which a move keeps and a new clone at the same path does not.
"""

import errno
import os
import stat

from postbag.escape import as_text
from postbag.refusal import Refusal

LINK_MOST = 4096  # bytes of a `.git` file or `commondir` postbag reads: a path and a line ending
GIT_HEAD_MOST = 255  # bytes of HEAD git reads to tell what it names
MEND = "mend it (git worktree repair, for a worktree), or name a ledger with POSTBAG_LEDGER"
_TRUE = ("1", "true", "yes", "on")


class Repository:
    """A git repository: `common`, its common directory, which every worktree of it shares; `device` and
    `inode`, that directory's; and `top`, the folder it was found from (the work tree that holds `.git`, or its own)."""

    __slots__ = ("common", "device", "inode", "top")

    def __init__(self, common, top, device, inode):
        self.common, self.top, self.device, self.inode = common, top, device, inode

    def __eq__(self, other):
        return isinstance(other, Repository) and (self.device, self.inode) == (other.device, other.inode)

    def __hash__(self):
        return hash((self.device, self.inode))

    def recorded(self):
        """What a ledger's records keep of it."""
        return {"path": as_text(self.common), "device": self.device, "inode": self.inode}

    def is_recorded_as(self, found):
        """Whether `found`, what a record keeps of a repository, is this one: the same inode on the same device,
        or at the same path (a device's number can change as a file system is mounted again)."""
        if type(found) is not dict or found.get("inode") != self.inode:
            return False
        return found.get("device") == self.device or found.get("path") == as_text(self.common)

    @property
    def main_tree(self):
        """The folder words name it by: its main work tree, whose `.git` is its common directory; else `top`."""
        folder, base = os.path.split(self.common)
        return folder if base == ".git" else self.top

    @property
    def name(self):
        """What a person calls it: the folder of its main work tree (a bare one's, less `.git`; a submodule's name)."""
        folder, base = os.path.split(self.common)
        if base == ".git":
            base = os.path.basename(folder)
        return base.removesuffix(".git") or base


def containing(directory, here):
    """The Repository `directory` lies in, as git finds it with the variables of `here`, or None. A Refusal
    where git would stop, or where the repository found is not the user's."""
    explicit = here.env.get("GIT_DIR")
    if explicit:  # the repository GIT_DIR names; git stops where it is none
        gitdir = os.path.join(directory, explicit)
        if not _is_repository(gitdir, here):
            raise Refusal(f"GIT_DIR names {gitdir}, which is not a repository's folder", MEND)
        return _repository(_common(gitdir, here), os.path.realpath(directory))
    ceilings = _ceilings(here.env.get("GIT_CEILING_DIRECTORIES", ""))
    across = here.env.get("GIT_DISCOVERY_ACROSS_FILESYSTEM", "").lower() in _TRUE
    folder = os.path.realpath(directory)
    device = _device(folder)
    while True:
        found = _at(folder, here)
        if found is not None:
            return found
        parent = os.path.dirname(folder)
        if parent == folder or parent in ceilings:
            return None
        if not across and _device(parent) != device:
            return None
        folder = parent


def _device(folder):
    try:
        return os.stat(folder).st_dev
    except OSError as error:
        raise Refusal(f"the repository cannot be told from {folder} ({error.strerror})", MEND) from None


def _ceilings(listed):
    """The absolute folders GIT_CEILING_DIRECTORIES names, as git reads them: links resolved, except in the
    entries after an empty one, which are taken as written."""
    found, resolve = set(), True
    for entry in listed.split(":"):
        if not entry:
            resolve = False
        elif os.path.isabs(entry):
            found.add(os.path.realpath(entry) if resolve else os.path.normpath(entry))
    return found


def _at(folder, here):
    """The Repository whose `.git` is in `folder`, or whose folder `folder` is; None."""
    dot_git = os.path.join(folder, ".git")
    try:
        status = os.stat(dot_git)
    except (OSError, ValueError):
        status = None  # git passes over what it cannot look at: a link that loops among it
    if status is not None and stat.S_ISREG(status.st_mode):
        gitdir = _named_by(dot_git, here)
        return _found(gitdir, folder, (dot_git, folder, gitdir), here)
    if status is not None and stat.S_ISDIR(status.st_mode) and _is_repository(dot_git, here):
        return _found(os.path.realpath(dot_git), folder, (folder, dot_git), here)
    if _is_repository(folder, here):  # a bare repository, or a folder inside .git
        return _found(folder, folder, (folder,), here)
    return None


def _found(gitdir, top, owned, here):
    """The Repository of `gitdir`, found from `top`, once the `owned` paths and its common directory are the user's."""
    common = _common(gitdir, here)
    _require_owned((*owned, common), here)
    return _repository(common, top)


def _repository(common, top):
    status = os.stat(common)
    return Repository(common, top, status.st_dev, status.st_ino)


def _named_by(dot_git, here):
    """The repository folder a `.git` file names (`gitdir: PATH`, from the file's folder), which must be one."""
    text = _text_of_file(dot_git, LINK_MOST)
    if not text.startswith("gitdir: "):
        raise _cannot_follow(dot_git, "it is a file, and does not say gitdir: PATH")
    named = os.path.join(os.path.dirname(dot_git), text.removeprefix("gitdir: ").rstrip("\r\n"))
    if not _is_repository(named, here):
        raise _cannot_follow(dot_git, f"it names {named}, which is not a repository's folder")
    return os.path.realpath(named)


def _common(folder, here):
    """The common directory of `folder`: GIT_COMMON_DIR, else what its `commondir` names, else itself."""
    explicit = here.env.get("GIT_COMMON_DIR")
    if explicit:
        return os.path.realpath(explicit)
    path = os.path.join(folder, "commondir")
    if not os.path.lexists(path):
        return os.path.realpath(folder)
    named = _text_of_file(path, LINK_MOST).rstrip("\r\n")
    if not named:
        raise _cannot_follow(path, "it is empty")
    return os.path.realpath(os.path.join(folder, named))


def _is_repository(folder, here):
    """Whether `folder` is a repository's folder, as git tells one: a HEAD git takes, and a
    common directory that holds objects and refs. A `commondir` postbag cannot read is refused."""
    if not _head_is_valid(os.path.join(folder, "HEAD")):
        return False
    common = _common(folder, here)
    return all(os.access(os.path.join(common, name), os.X_OK) for name in ("objects", "refs"))


def _head_is_valid(path):
    """Whether HEAD at `path` is one git takes: a link into refs/, a file that says
    `ref: refs/...`, or one that begins with an object id. A pipe, a folder or junk is none."""
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            return os.readlink(path).startswith("refs/")
        text = _text_of_file(path, GIT_HEAD_MOST, whole=False)
    except (OSError, ValueError, Refusal):
        return False
    if text.startswith("ref:"):
        return text[4:].lstrip().startswith("refs/")
    start = text[:64]
    return any(len(start) >= size and all(c in "0123456789abcdef" for c in start[:size]) for size in (40, 64))


def _text_of_file(path, most, *, whole=True):
    """The text of the small regular file at `path`, at most `most` bytes, read without blocking (a pipe planted
    there must not hang a command): a Refusal where it cannot be read so, or, `whole`, is longer."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as error:
        raise _cannot_follow(path, error.strerror) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "it is not a regular file")
        data = os.read(fd, most + 1)
    except OSError as error:
        raise _cannot_follow(path, error.strerror) from None
    finally:
        os.close(fd)
    if whole and len(data) > most:
        raise _cannot_follow(path, "it is longer than a path")
    try:
        return os.fsdecode(data[:most])
    except UnicodeDecodeError:  # where the file system's encoding is strict
        raise _cannot_follow(path, "it is not text") from None


def _require_owned(paths, here):
    """Refuse a repository found by looking where one of its `paths` is not the user's, as git does unless its
    safe.directory (unread here) names it. Under sudo, a path SUDO_UID owns is root's own too, as git says."""
    user = os.geteuid()
    for path in paths:
        try:
            owner = os.lstat(path).st_uid
        except OSError:
            continue
        if owner == user or (user == 0 and str(owner) == here.env.get("SUDO_UID", "")):
            continue
        raise Refusal(
            f"the repository at {path} belongs to another user (uid {owner}), and git refuses such a repository "
            "unless its safe.directory setting names it",
            "postbag refuses it: work in a repository of your own, or name a ledger with POSTBAG_LEDGER",
        )


def _cannot_follow(path, why):
    return Refusal(f"the repository cannot be told from {path} ({why})", MEND)
