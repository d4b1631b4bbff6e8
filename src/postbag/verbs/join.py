"""`join`, and what a join record says of the session behind it: whether it is the one joined for its side, where it
came from and whether that folder is still there, and whether it works in the repository whose ledger it is."""

import os

from postbag import contract
from postbag.contract import door_fields
from postbag.location import locate
from postbag.verbs.bag import join_fields, ledger_at, which_ledger, write_record
from postbag.words import Done

# What a join records besides the door: the fields that name the session are the door's.
JOIN_FIELDS = ("n", "at", "kind", "peer", "cwd", "repository")


def join(here, peer, door, *, again=True, location=None):
    """Record `door`, the fields that reach `peer`'s session and how it joined, with the session's directory
    (`here`'s). Unless `again`, a door that is already `peer`'s latest is not recorded a second time. A join that
    takes letters from another session says so. `location`: the ledger's (default: here's)."""
    where = location or locate(here)
    with ledger_at(here, where, write=True, create=True) as bag:
        before = bag.latest_join(peer)
        if not again and is_latest(before, door):
            return Done(f"{peer} was joined already: letters to {peer} reach this session", *bag.news)
        write_record(bag, "join", peer=peer, **join_fields(here, door, where))
    replaced = _replaced_session(peer, before, door)
    return Done(contract.joined(peer), *bag.news, which_ledger(bag, where), replaced)


def _replaced_session(peer, before, door):
    """What a join of `door` says of `before`, `peer`'s latest join, where that was another session's."""
    if before is None or all(before.get(field) == door.get(field) for field in door_fields(peer)):
        return None
    where = before.get("cwd")
    whence = f" from {where}" if type(where) is str else ""
    return f"this replaces the {peer} session that joined at {before['at']}{whence}: letters to {peer} now come here"


def is_latest(joined, door):
    """Whether `door` (with how it joined) is what `joined`, a peer's latest join, recorded."""
    return joined is not None and {k: v for k, v in joined.items() if k not in JOIN_FIELDS} == door


def came_from(joined):
    """Where a join came from, in words: its directory, where it is still there."""
    if type(joined.get("cwd")) is not str:
        return ""
    where = still_there(joined)
    return " from a folder since moved or removed" if where is None else f" from {where}"


def still_there(joined):
    """The directory a join came from, where it is still there and still in the repository the join names (a
    repository moved, or cloned anew at its path, leaves its joins' folders naming another or none); else None."""
    where, recorded = joined.get("cwd"), joined.get("repository")
    if type(where) is not str or not os.path.isdir(where):
        return None
    if type(recorded) is dict and type(recorded.get("path")) is str:
        try:
            status = os.stat(recorded["path"])
        except (OSError, ValueError):
            return None
        if status.st_ino != recorded.get("inode"):
            return None
    return where
