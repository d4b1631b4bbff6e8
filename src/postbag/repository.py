"""The git repository a directory lies in, found as git finds it, without running git.

From the directory, its symbolic links resolved, git looks up, folder by folder, for
`.git`: a folder that is a repository's (its HEAD, objects and refs), or a file naming
one (`gitdir: PATH`, as a worktree and a submodule have); failing that, whether the
folder is itself a repository's folder (a bare repository, or the inside of `.git`).
Every worktree of one repository leads to one common directory (its folder names it, in
a file `commondir`); a submodule's folder has none, and is a repository of its own.
Only a few small files on the way up are read: the `.git` file and `commondir`, each
without blocking and within a bound, for they are anybody's.
"""

import errno
import os
import stat

from postbag import wording as W
from postbag.refusal import Refusal

LINK_MOST = 4096  # bytes of a `.git` file or `commondir`: a path and a line ending
# What the person can do about a `.git` postbag cannot follow, after the refusal's why.
MEND = W.MEND_THE_REPOSITORY


class Repository:
    """A git repository: `common`, its common directory, which every worktree of it shares
    (the one git keeps its objects and refs in), and `top`, the folder it was found from:
    the work tree that holds `.git`, or, for a bare repository, the repository's folder."""

    __slots__ = ("common", "top")

    def __init__(self, common, top):
        self.common, self.top = common, top

    def __eq__(self, other):
        return isinstance(other, Repository) and self.common == other.common

    def __hash__(self):
        return hash(self.common)

    @property
    def main_tree(self):
        """The folder words name it by: its main work tree, which every worktree of it
        shares, where its common directory is that tree's `.git`; else `top` (a bare
        repository, a submodule, a repository whose `.git` lies elsewhere)."""
        folder, base = os.path.split(self.common)
        return folder if base == ".git" else self.top

    @property
    def name(self):
        """What a person calls it: the folder of its main work tree (of a bare repository,
        its own folder, less `.git`; of a submodule, its name)."""
        folder, base = os.path.split(self.common)
        if base == ".git":
            base = os.path.basename(folder)
        return base.removesuffix(".git") or base


def containing(directory):
    """The Repository `directory` lies in, or None where it lies in none. A Refusal where a
    `.git` on the way up cannot be followed: one git would stop at too."""
    here = os.path.realpath(directory)
    while True:
        found = _at(here)
        if found is not None:
            return found
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _at(folder):
    """The Repository whose `.git` is in `folder`, or whose folder `folder` is; None."""
    dot_git = os.path.join(folder, ".git")
    try:
        status = os.stat(dot_git)
    except (FileNotFoundError, NotADirectoryError):
        status = None
    except OSError as error:
        raise _cannot_follow(dot_git, error.strerror) from None
    if status is not None:
        if stat.S_ISREG(status.st_mode):
            return Repository(_common(_named_by(dot_git)), folder)
        if not stat.S_ISDIR(status.st_mode):
            raise _cannot_follow(dot_git, W.NEITHER_FOLDER_NOR_FILE)
        if _is_repository(dot_git):
            return Repository(_common(os.path.realpath(dot_git)), folder)
    if _is_repository(folder):  # a bare repository, or a folder inside .git
        return Repository(_common(folder), folder)
    return None


def _named_by(dot_git):
    """The repository folder a `.git` file names (`gitdir: PATH`, PATH from the file's own
    folder where it is relative), which must be one."""
    line = _read_line(dot_git)
    if not line.startswith("gitdir:"):
        raise _cannot_follow(dot_git, W.NO_GITDIR)
    named = os.path.join(os.path.dirname(dot_git), line.removeprefix("gitdir:").strip())
    folder = os.path.realpath(named)
    if not _is_repository(folder):
        raise _cannot_follow(dot_git, W.NOT_A_REPOSITORY.format(named=named))
    return folder


def _common(folder):
    """The common directory of the repository folder `folder`: the one its `commondir`
    names (from `folder`, where relative), else `folder` itself."""
    path = os.path.join(folder, "commondir")
    if not os.path.lexists(path):
        return folder
    return os.path.realpath(os.path.join(folder, _read_line(path)))


def _is_repository(folder):
    """Whether `folder` is a repository's folder, as git tells one: it holds HEAD, and its
    common directory holds objects and refs."""
    if not os.path.lexists(os.path.join(folder, "HEAD")):
        return False
    try:
        common = _common(folder)
    except Refusal:
        return False
    return os.path.isdir(os.path.join(common, "objects")) and os.path.isdir(os.path.join(common, "refs"))


def _read_line(path):
    """The first line of the small regular file at `path`, read without blocking (a pipe
    planted there must not hang a command); a Refusal where it cannot be read so."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as error:
        raise _cannot_follow(path, error.strerror) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, W.NOT_REGULAR)
        data = os.read(fd, LINK_MOST + 1)
    except OSError as error:
        raise _cannot_follow(path, error.strerror) from None
    finally:
        os.close(fd)
    if len(data) > LINK_MOST:
        raise _cannot_follow(path, W.LONGER_THAN_A_PATH)
    try:
        return os.fsdecode(data.partition(b"\n")[0].rstrip(b"\r"))
    except UnicodeDecodeError:  # not where fsdecode escapes; kept for a strict file system encoding
        raise _cannot_follow(path, W.NOT_TEXT) from None


def _cannot_follow(path, why):
    return Refusal(W.CANNOT_FOLLOW.format(path=path, why=why), MEND)
