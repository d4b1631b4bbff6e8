"""How the clients are to start this postbag's MCP server, and how what a client has
registered stands against that: setup makes it so, and doctor checks it."""

from postbag.envelope import program_of
from postbag.location import VARIABLE, named_path
from postbag.refusal import Refusal
from postbag.registration import Registration

# How a registration of postbag stands against this postbag, as `registration_standing` tells.
NONE, ANOTHER, ELSEWHERE, THIS = "none", "another program", "another ledger", "this postbag"
EACH_OWN = "each session's own ledger (its repository's, or the default)"  # a registration that names none


def registration_of(here):
    """The Registration by which the clients are to start postbag's server: this postbag, by its absolute path, as
    `here` was started; `mcp`; and the ledger the terminal names with POSTBAG_LEDGER, where it names one."""
    named = here.env.get(VARIABLE)
    carried = {VARIABLE: named_path(named, here)} if named else {}
    return Registration([*program_of(here, quoted=False), "mcp"], carried)


def ledger_of(registration, here):
    """The ledger postbag's server writes, started as `registration` says: the path its
    POSTBAG_LEDGER names; None where it names none, and each session's is its own."""
    named = registration.variables.get(VARIABLE)
    if not named:
        return None
    try:
        return named_path(named, here)
    except Refusal:
        return named  # a path postbag would refuse: the server refuses it too, and it differs from this one


def ledger_words(path):
    """The ledger `path` (ledger_of's) as words name it."""
    return EACH_OWN if path is None else f"the ledger {path}"


def registration_standing(registered, wanted, here):
    """How `registered`, a client's Registration of postbag (or None), stands against `wanted`, this postbag's:
    NONE, ANOTHER program, this one on ANOTHER ledger (ELSEWHERE), or THIS."""
    if registered is None:
        return NONE
    if registered.argv != wanted.argv:
        return ANOTHER
    return THIS if ledger_of(registered, here) == ledger_of(wanted, here) else ELSEWHERE
