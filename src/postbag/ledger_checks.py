"""What doctor says of the ledgers: the one `open` would find here, and each door that has joined it, in `open`'s
words; a default ledger whose exchange a session joined from inside a repository; then every ledger in ~/.postbag,
whose it is and how to read it, and whether git tracks any of them."""

import os
import stat

from postbag import ledger_file
from postbag.damage import unfinished_words
from postbag.escape import shell_word
from postbag.ledger import Ledger, require_whole
from postbag.location import DEFAULT, folder_of, ledgers, locate, of_repository
from postbag.refusal import Refusal, to_the_persons_ears
from postbag.registration import FIX, NOTE, OK, Check
from postbag.room import TAKES
from postbag.vendors import reach
from postbag.words import counted

GIT_WAIT = 10.0  # seconds git may take to list what it tracks in ~/.postbag


def ledger_checks(here):
    """The Checks of the ledgers, in the order the module's docstring says them."""

    try:
        location = locate(here)
    except Refusal as refusal:
        return [Check(FIX, "the ledger", to_the_persons_ears(refusal))]
    check, found = _the_ledger(location)
    joins, exchange = found or ({}, None)
    reached = [(peer, reach(peer, joined, here, exchange)) for peer, joined in joins.items() if joined is not None]
    doors = [Check(OK if door.state == TAKES else NOTE, f"{peer}'s door", door.words) for peer, door in reached]
    listed = [_listed(path, here) for path in ledgers(here)]
    return [check, *doors, *_joined_before(here), *listed, *_tracked(here)]


def _listed(path, here):
    """A note of the ledger at `path`: whose it is (and whether that repository is still where its records say),
    its last record's time, and the command that reads it."""
    from postbag.envelope import program_of

    reads = f"{' '.join(program_of(here))} read --ledger {shell_word(os.path.basename(path).removesuffix('.jsonl'))}"
    try:
        with Ledger(path) as bag:
            last = bag.tail(1)
            named = bag.latest_repository()
    except (Refusal, OSError) as error:
        return Check(NOTE, "a ledger", f"{path} cannot be read ({error}); {reads} shows what it can")
    when = f"last written at {last[0]['at']}" if last else "empty"
    if os.path.basename(path) == DEFAULT:
        whose = "the ledger outside repositories, and of every repository before each had its own"
    elif named is None:
        whose = "it names no repository (a ledger from before ledgers named theirs)"
    else:
        whose = f"the repository {_repository_words(named)}"
    return Check(NOTE, "a ledger", f"{path}: {whose}; {when}; {reads} reads it")


def _repository_words(named):
    """The repository a ledger's records name (`named`, what they keep of it), and whether it is still there."""
    recorded = named.get("path") if type(named.get("path")) is str else "?"
    folder, base = os.path.split(recorded)
    shown = folder if base == ".git" else recorded
    try:
        status = os.stat(recorded)
    except (OSError, ValueError):
        return f"that was at {shown}, since moved or removed"
    if (status.st_ino, status.st_dev) == (named.get("inode"), named.get("device")):
        return f"at {shown}"
    return f"that was at {shown}, since moved or removed (another stands there now)"


def _joined_before(here):
    """A note where the default ledger's open exchange goes to a session that joined it from inside a repository,
    before each repository had a ledger of its own: no letter reaches it now, and what the person does instead."""
    from postbag.repository import containing

    path = of_repository(None, here).path
    try:
        with Ledger(path) as bag:
            exchange, joins = bag.exchange(), bag.latest_joins()
    except (Refusal, OSError):
        return []
    if exchange.barred:
        return []
    found = []
    for peer, joined in joins.items():
        directory = joined.get("cwd") if joined is not None and "repository" not in joined else None
        if type(directory) is not str or not os.path.isdir(directory):
            continue
        try:
            inside = containing(directory, here)
        except Refusal:
            continue
        if inside is not None:
            top = inside.main_tree
            found.append(
                Check(
                    NOTE,
                    "the default ledger",
                    f"{path} holds an open exchange that {peer} joined from the repository {top}, before each "
                    f"repository had a ledger of its own, and no letter goes to it from there now: to go on, let "
                    f"both agents join again in {top}, then open an exchange there (cd {shell_word(top)} && postbag "
                    "open)",
                )
            )
    return found


def _tracked(here):
    """A fix where git tracks ledgers in ~/.postbag (a home kept in git): a commit would carry a live session token."""
    import subprocess

    folder = folder_of(here)
    if not os.path.isdir(folder):
        return []
    from postbag.processes import which

    git = which("git", here.env.get("PATH", os.defpath))
    if git is None:
        return []
    try:
        listed = subprocess.run(
            [git, "-C", folder, "ls-files", "-z", "--", "*.jsonl"],
            capture_output=True,
            env=here.child_env(),
            timeout=GIT_WAIT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    names = [name for name in listed.stdout.decode(errors="replace").split("\0") if name]
    if listed.returncode != 0 or not names:
        return []
    shown = " ".join(shell_word(name) for name in names)
    return [
        Check(
            FIX,
            "the ledgers' folder",
            f"git tracks ledgers in {folder}, which hold a live session token: git -C {shell_word(folder)} rm "
            f"--cached {shown}, then commit that (its .gitignore keeps new ones out)",
        )
    ]


def _the_ledger(location):
    """The ledger's Check at `location` (whether it can be made, or opened to write as `open` opens it; its owner and
    mode; every line a record), and, where it is there and whole, its (latest joins, exchange); else None."""
    what, path = "the ledger", location.path
    called = _called(location)
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return _none_yet(path, called), None
    except OSError as error:
        return Check(FIX, what, f"{path} cannot be looked at ({error.strerror})"), None
    try:
        fd, _, _ = ledger_file.open_checked(path, write=True, create=False, sandbox=None)  # as open opens it
        os.close(fd)
        require_whole(path)
        with Ledger(path, serves=location.repository) as bag:
            count, joins, exchange, unfinished = bag.count, bag.latest_joins(), bag.exchange(), bag.unfinished
    except Refusal as refusal:  # what stops open comes first: a loose mode, open mends itself
        return Check(FIX, what, to_the_persons_ears(refusal)), None
    if unfinished is not None:  # as read says it: nothing the next writer does not mend
        return Check(NOTE, what, unfinished_words(unfinished, path)), (joins, exchange)
    if stat.S_IMODE(status.st_mode) & 0o077:
        mode = f"{stat.S_IMODE(status.st_mode):o}"
        return Check(FIX, what, f"{path} can be read by others (mode {mode}): chmod 600 {path}"), (joins, exchange)
    return Check(OK, what, f"{called}, yours and private, {counted(count, 'record')}"), (joins, exchange)


def _called(location):
    """The ledger at `location` as doctor names it: its path, and whose it is, or that POSTBAG_LEDGER names it."""
    if location.repository is not None:
        return f"{location.path}, the repository {location.repository.main_tree}'s"
    if location.named:
        return f"{location.path}, which POSTBAG_LEDGER names"
    return location.path


def _none_yet(path, called):
    """The Check of a ledger not there yet at `path` (`called`, with whose it is): whether open can make it."""
    why_not = _cannot_make(path)
    if why_not is not None:
        return Check(FIX, "the ledger", f"none yet at {called}, and open could not make it: {why_not}")
    return Check(OK, "the ledger", f"none yet at {called}: the first join or open makes it, private to you")


def _cannot_make(path):
    """Why open could not make the ledger at `path` (not there), in words; None where it could. A probe of the kind
    open would make first (a folder, or the file) is made in the nearest folder above that is there, and removed."""
    folder = os.path.dirname(path)
    while not os.path.lexists(folder):
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        return f"{folder} is not a folder"
    probe = os.path.join(folder, f".postbag-doctor-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        if folder == os.path.dirname(path):
            os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
            os.unlink(probe)
        else:
            os.mkdir(probe, 0o700)
            os.rmdir(probe)
    except OSError as error:
        return f"{error.strerror} in {folder}"
    return None
