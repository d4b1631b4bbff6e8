"""Who may run which verb, decided by the variables each vendor exports into its sessions (vendors.py): the human's
verbs outside them all, refused before their arguments are read and before the rest of postbag loads (this module
loads only the refusal, the contract and the vendors' light packages); each agent's inside its own.

This is a guardrail against mixed-up roles, not authentication: any program of the same user can set or unset these
variables.
"""

from postbag import contract
from postbag.refusal import Refusal
from postbag.vendors import PEERS, VARIABLES, VENDORS, in_a_persons_terminal, in_no_session, room

HUMAN_VERBS = ("open", "close", "setup")


def require_human(verb, here):
    """Refuse `verb` in an agent's session, naming each of its variables `here` holds: its
    name only, for a value may be a token."""
    _require_human(verb, here.env)


def _require_human(verb, names):
    found = [name for name in VARIABLES if name in names]
    if found:
        listed = " and ".join([", ".join(found[:-1]), found[-1]] if len(found) > 1 else found)
        marks = "marks" if len(found) == 1 else "mark"
        raise Refusal(f"{contract.humans_verb(verb)} (this shell has {listed}, which {marks} an agent's session)")


def require_human_first(argv, names):
    """Refuse the human's verbs inside a session before their arguments are read, so that whatever else the command
    line holds, the answer is the same; only help passes. `names`: the names of the process's variables."""
    if argv[:1] and argv[0] in HUMAN_VERBS and "-h" not in argv and "--help" not in argv:
        _require_human(argv[0], names)


def door_of_this_session(peer, here):
    """What `join` records for `peer`, read from its session: its door fields, and what
    else finds its records. In a person's terminal, the refusal says what to do instead."""
    try:
        return room(peer, here).door_of_session()
    except Refusal as refusal:
        if in_a_persons_terminal(here):
            raise Refusal(f"{refusal} ({in_no_session(peer)})") from None
        raise


def caller_of_mcp(here, meta):
    """The peer whose session makes an MCP tool call, and its door, from the server's environment and the call's
    `meta`: a session of exactly one vendor. Identity is never an argument the model could choose."""
    calling = [peer for peer in PEERS if room(peer, here).calls(meta)]
    if len(calling) > 1:
        both = " and ".join(VENDORS[peer].SESSION_NAME for peer in calling)
        raise Refusal(
            f"this MCP server sees both {both}; run postbag setup from your terminal, which "
            "registers postbag mcp with each client, and call its tools from a session"
        )
    if not calling:
        neither = " nor ".join(VENDORS[peer].SESSION_NAME for peer in PEERS)
        raise Refusal(
            f"this MCP server runs in neither {neither}; run postbag setup from your terminal, "
            "which registers postbag mcp with each client, and call its tools from a session"
        )
    [peer] = calling
    return peer, room(peer, here).caller(meta)
