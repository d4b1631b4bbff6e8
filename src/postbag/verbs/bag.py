"""What every verb does with the ledger it works on: opens it, told of the sandbox around
this process and of the repository whose records it must hold; writes a record; and says
which ledger it was, where a person could think it another."""

import os

from postbag import ledger
from postbag.escape import as_text
from postbag.location import keep_out_of_git
from postbag.refusal import Refusal
from postbag.vendors import sandbox_of


def which_ledger(bag, where, *, always=False):
    """What a writer says of the ledger it wrote, where a person could think it wrote
    another: that it created the file (and the directory for it), or which one it is, for
    a ledger POSTBAG_LEDGER names, and, `always`, for any (open and close, the person's
    verbs, name the ledger they acted on); else None. `where` is where the ledger was found
    (a location.Location)."""
    if bag.made is not None:
        made = f"created the ledger {bag.path}"
        if where.repository is not None:
            made += f" for the repository {where.repository.main_tree}"
        return made + (f", and the directory {bag.made.directory} for it" if bag.made.directory else "")
    return f"wrote to {where.words()}" if where.named or always else None


def elsewhere(where):
    """The words a refusal adds that could come from the agents' and the human's ledgers
    differing: which ledger this one is, unless it is the default."""
    return "" if where.is_default else f" ({where.words()})"


def repository_fields(where):
    """What a join or an open records of whose ledger `where` is: the repository's
    identity, or None outside any repository; nothing for a ledger named by path."""
    if where.named or where.chosen:
        return {}
    return {"repository": None if where.repository is None else where.repository.recorded()}


def directory_fields(here):
    """What a join records of the session's directory: `cwd`, as text any reader of the
    ledger takes, where it is known."""
    return {} if here.cwd is None else {"cwd": as_text(here.cwd)}


def ledger_at(here, location, **options):
    """The ledger at `location`, told of the sandbox around this process, and of the
    repository whose records it must hold."""
    serves = location.repository
    bag = ledger.Ledger(location.path, sandbox=sandbox_of(here), clock=here.clock, serves=serves, **options)
    if options.get("write") and bag.fd is not None and not (location.named or location.chosen):
        keep_out_of_git(os.path.dirname(location.path))
    return bag


def write_record(bag, kind, **fields):
    try:
        bag.append(kind, **fields)
    except OSError as error:
        raise Refusal(f"cannot write the ledger ({error.strerror})") from None
