"""A ledger that is not whole, told as a refusal with its fix: its first line that is not a record, a last
line something other than postbag cut short, or records that name another repository."""

import os

from postbag import contract, ledger_file, records
from postbag.refusal import Refusal


def truncated(count, path):
    return f"{contract.truncated_after(count)} ({path})"


def cut_short(count, path):
    """The refusal of a ledger whose complete lines are records but whose last line something else cut short."""
    return Refusal(truncated(count, path), records.AFRESH)


# What a person does about a ledger that holds another repository's records.
ANOTHER_REPOSITORYS = (
    "postbag open --afresh sets it aside, whole, and starts this repository's own, which both agents then join"
)


def another_repositorys(path, found, repository):
    """The refusal of the ledger at `path`, found for `repository`, whose records name
    another repository (`found`, what they keep of it)."""
    recorded = found.get("path") if type(found.get("path")) is str else "a path it does not give"
    folder, base = os.path.split(recorded)
    named = folder if base == ".git" else recorded
    return Refusal(
        f"the ledger {path} holds another repository's records: they name the repository at {named} (inode "
        f"{found.get('inode')}), not this one at {repository.main_tree} (inode {repository.inode}); it stays "
        f"readable with postbag read --ledger {path}",
        ANOTHER_REPOSITORYS,
    )


def first_damage(path, found):
    """The refusal of the first line of the ledger at `path` that is not a record in its place, which may come
    before `found`, the refusal of the check that failed; else `found` itself."""
    try:
        fd = ledger_file.open_to_follow(path)
        data = ledger_file.read_from(fd, 0) if fd is not None else b""
        if fd is not None:
            os.close(fd)
    except (OSError, Refusal):
        return found
    whole = data[: data.rfind(b"\n") + 1]
    try:
        for _ in records.from_bytes(whole, 1, path):
            pass
    except Refusal as refusal:
        return refusal
    return found


def unfinished_words(line, path):
    """What a reader says of a last record left unfinished after `line`, which the next writer removes."""
    return (
        f"{truncated(line, path)}: its last record is unfinished, most likely from "
        "an interrupted send, and the next send, join or open removes it"
    )
