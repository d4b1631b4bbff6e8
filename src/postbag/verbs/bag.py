"""What every verb does with the ledger it works on: opens it, told of the sandbox around this process and of the
repository whose records it must hold; writes a record; and says which ledger it was, where a person could think it
another."""

import os

from postbag import ledger, records
from postbag.damage import ANOTHER_REPOSITORYS
from postbag.escape import as_text
from postbag.ledger import require_whole
from postbag.location import keep_out_of_git
from postbag.refusal import Refusal
from postbag.vendors import sandbox_of


def which_ledger(bag, where, *, always=False):
    """What a writer says of the ledger it wrote, where a person could think it wrote another: that it created the
    file (and its directory), or which one it is, for a ledger POSTBAG_LEDGER names and, `always`, for any (open and
    close name the ledger they acted on); else None. `where` is where the ledger was found (a location.Location)."""
    if bag.made is None:
        return f"wrote to {where.words()}" if where.named or always else None
    made = f"created the ledger {bag.path}"
    if where.repository is not None:
        made = f"created the ledger {bag.path} for the repository {where.repository.main_tree}"
    return f"{made}, and the directory {bag.made.directory} for it" if bag.made.directory else made


def repository_fields(where):
    """What a join or an open records of whose ledger `where` is: the repository's
    identity, or None outside any repository; nothing for a ledger named by path."""
    if where.named or where.chosen:
        return {}
    return {"repository": None if where.repository is None else where.repository.recorded()}


def join_fields(here, door, where):
    """What a join of the session behind `door`, whose process `here` is, records in the ledger `where` beside the
    peer: the door; `cwd`, the session's directory as text any reader takes, where known; and whose ledger it is."""
    cwd = {} if here.cwd is None else {"cwd": as_text(here.cwd)}
    return {**door, **cwd, **repository_fields(where)}


def ledger_at(here, location, **options):
    """The ledger at `location`, told of the sandbox around this process and of the repository it must serve."""
    serves = location.repository
    bag = ledger.Ledger(location.path, sandbox=sandbox_of(here), clock=here.clock, serves=serves, **options)
    if options.get("write") and bag.fd is not None and not (location.named or location.chosen):
        keep_out_of_git(os.path.dirname(bag.path))
    return bag


def write_record(bag, kind, **fields):
    try:
        bag.append(kind, **fields)
    except OSError as error:
        raise Refusal(f"cannot write the ledger ({error.strerror})") from None


def set_aside(location, clock):
    """Move the ledger at `location` aside, whole, where it is damaged or holds another repository's records, to a
    name beside it that says so and when (its bytes and mode kept, so it stays private); return the words that say
    it. A Refusal where it is neither."""
    path = location.path
    try:
        with ledger.Ledger(path, serves=location.repository):
            pass
        require_whole(path)
    except Refusal as refusal:
        if refusal.fix not in (records.AFRESH, ANOTHER_REPOSITORYS):
            raise
        damaged = refusal.fix == records.AFRESH
    else:
        raise Refusal(f"the ledger {path} is not damaged, so nothing was set aside: open it without --afresh")
    whose, why = ("damaged ledger", "damaged") if damaged else ("ledger of another repository", "another-repository")
    stamp = clock.stamp()[:19].replace(":", "")
    aside = f"{path}.{why}-{stamp}"
    tried = 1
    while os.path.lexists(aside):
        tried += 1
        aside = f"{path}.{why}-{stamp}-{tried}"
    from postbag.whole_file import sync_directory  # the human's --afresh alone

    try:
        os.rename(path, aside)
        sync_directory(os.path.dirname(path))
    except OSError as error:
        raise Refusal(f"cannot set the ledger aside ({error.strerror}: {path})") from None
    return f"set the {whose} aside, whole and private, as {aside} (postbag read --ledger {aside} reads it)"
