"""Where a place's ledger lies, and whose it is.

POSTBAG_LEDGER, wherever it is set, names one ledger over all. Else a directory inside a git repository uses that
repository's own, every worktree of it alike; and every directory outside any repository the default,
~/.postbag/ledger.jsonl. A repository's ledger is ~/.postbag/NAME-INODE.jsonl, after the repository's folder and
its common directory's inode (`ls -di` shows it), and is found by the inode alone, so that a repository moved keeps
its ledger and a new clone at the same path gets one of its own.

~/.postbag is private: a folder another user owns or can write to is refused, as OpenSSH refuses such a folder, for
a ledger in it could be swapped. It holds a .gitignore of `*`, as Python's venv writes one, so that a home kept in
git never takes a ledger in (a commit would carry a live session token).
"""

import os
import stat

from postbag.contract import LEDGER_VARIABLE as VARIABLE
from postbag.refusal import Refusal

FOLDER = ".postbag"  # in the home directory
DEFAULT = "ledger.jsonl"  # the ledger of every directory outside a repository
NAME_MOST = 40  # characters of a repository's name in its ledger's file name
IGNORE_ALL = b"*\n"


class Location:
    """Where a ledger lies, and why there: `path`; `named`, where POSTBAG_LEDGER names it; `chosen`, where the
    person named it to read it (--ledger); else `repository`, the Repository whose ledger it is; else the default."""

    __slots__ = ("chosen", "named", "path", "repository")

    def __init__(self, path, *, named=False, chosen=False, repository=None):
        self.path, self.named, self.chosen, self.repository = path, named, chosen, repository

    @property
    def is_default(self):
        return not (self.named or self.chosen) and self.repository is None

    def words(self):
        """The ledger, as words name it: which one, and why it is that one."""
        if self.named:
            return f"the ledger {self.path}, which POSTBAG_LEDGER names"
        if self.chosen:
            return f"the ledger {self.path}"
        if self.repository is not None:
            return f"the ledger of the repository {self.repository.main_tree}"
        return f"the ledger outside repositories, {self.path}"


def locate(here):
    """The Location of the ledger of `here`. POSTBAG_LEDGER must be absolute (or start at ~): each session runs in
    a directory of its own, so a relative path would give each a ledger of its own."""
    raw = here.env.get(VARIABLE)
    if raw:
        return Location(named_path(raw, here), named=True)
    if here.cwd is None:
        raise Refusal(
            "the directory this runs in is gone, so the repository whose ledger it uses cannot be told",
            "run it again from the repository's folder",
        )
    from postbag.repository import containing  # a ledger the variable names needs none of it

    return of_repository(containing(here.cwd, here), here)


def of_repository(repository, here):
    """The Location of the ledger of `repository` (None: of every place outside one)."""
    folder = private_folder(here)
    if repository is None:
        return Location(os.path.join(folder, DEFAULT))
    return Location(_repository_ledger(folder, repository), repository=repository)


def _repository_ledger(folder, repository):
    """The ledger in `folder` named for `repository`'s inode, whatever its name (the repository may have moved);
    else the name a new one takes."""
    ending = f"-{repository.inode}.jsonl"
    name = "".join(c if c.isprintable() and c not in "/\\" else "_" for c in repository.name).lstrip(".")
    made = f"{name[:NAME_MOST] or 'repository'}{ending}"
    try:
        found = sorted(each for each in os.listdir(folder) if each.endswith(ending) and not each.startswith("."))
    except OSError:
        found = []
    return os.path.join(folder, made if made in found or not found else found[0])


def chosen(text, here):
    """The Location of the ledger --ledger names: a path, or the name of one in ~/.postbag, with or without .jsonl."""
    if "/" in text or text.startswith("~"):
        return Location(here.absolute(expand_home(text, here)), chosen=True)
    name = text if text.endswith(".jsonl") else f"{text}.jsonl"
    return Location(os.path.join(private_folder(here), name), chosen=True)


def named_path(raw, here):
    """The absolute path POSTBAG_LEDGER names, as `raw`, in `here`; a Refusal for what is none."""
    from postbag.escape import has_unsafe

    if has_unsafe(raw):
        raise Refusal("POSTBAG_LEDGER holds a control character")
    path = expand_home(raw, here)
    if not os.path.isabs(path):
        raise Refusal(
            f"POSTBAG_LEDGER is a relative path ({raw}); give the ledger's absolute path, the same in both "
            "sessions and in your terminal"
        )
    return os.path.normpath(path)


def expand_home(path, here):
    """`path` with a leading ~ taken as the HOME of `here`, and ~NAME as NAME's home directory."""
    if not path.startswith("~"):
        return path
    if path != "~" and not path.startswith("~/"):
        return os.path.expanduser(path)  # ~NAME: from the password database, not the environment
    return here.home() + path[1:]


def folder_of(here):
    """~/.postbag, in the HOME of `here`, as an absolute path, unchecked."""
    return os.path.join(here.home(), FOLDER)


def private_folder(here):
    """~/.postbag, in the HOME of `here`: refused where it (or the folder its link names) is
    another user's, or others can write to it; fine where it is not there yet."""
    folder = folder_of(here)
    try:
        status = os.stat(folder)
    except FileNotFoundError:
        return folder
    except OSError as error:
        raise Refusal(f"cannot look at {folder} ({error.strerror})") from None
    if not stat.S_ISDIR(status.st_mode):
        raise Refusal(f"{folder} is not a folder, and postbag keeps its ledgers in it", "move it out of the way")
    if status.st_uid != os.geteuid():
        raise Refusal(
            f"{folder} belongs to another user (uid {status.st_uid}), so the ledgers in it are not yours",
            "move it out of the way, and postbag makes it again, yours and private",
        )
    if status.st_mode & 0o022:
        mode = f"{stat.S_IMODE(status.st_mode):o}"
        raise Refusal(
            f"{folder} can be written by others (mode {mode}), so a ledger in it could be swapped for another",
            f"chmod 700 {folder}",
        )
    return folder


def require_works_in(where, directory, peer, here):
    """Refuse a letter to `peer`'s session, which works in `directory` (None: unknown), where that folder's ledger
    is not `where`: a repository's session takes letters from its ledger alone, one outside any from the default."""
    if directory is None or not os.path.isdir(directory):
        raise Refusal(
            f"{peer}'s join does not show where its session works (a join from before each repository had a ledger "
            f"of its own names no folder, or its folder is gone), so no letter goes to it: {peer} joins again from "
            "its session"
        )
    from postbag.repository import containing  # only where the join's own record does not settle it

    found = containing(directory, here)
    if found != where.repository:
        works = "outside any repository" if found is None else f"in the repository {found.main_tree}"
        raise Refusal(
            f"{peer}'s session works {works}, not in {where.words()}, so no letter from here goes to it: a {peer} "
            "session that works here joins, and letters reach it"
        )


def keep_out_of_git(folder):
    """Write `folder`'s .gitignore of `*` where it has none."""
    path = os.path.join(folder, ".gitignore")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:  # there already, whatever it holds: the person's, or ours
        return
    try:
        os.write(fd, IGNORE_ALL)
    finally:
        os.close(fd)


def ledgers(here):
    """Every ledger in ~/.postbag: the default and each repository's, by path, sorted."""
    folder = folder_of(here)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(os.path.join(folder, name) for name in names if name.endswith(".jsonl") and not name.startswith("."))


def not_there(location):
    """What a reader says where there is no ledger yet at `location` (a Location)."""
    whose = f", the repository {location.repository.main_tree}'s" if location.repository is not None else ""
    return f"there is no ledger at {location.path}{whose} yet"
