"""Who may run which verb, decided by the variables each vendor exports into its sessions
(each room's package says which are its own: vendors.py; the human's verbs are human_verbs.py's).

This is a guardrail against mixed-up roles, not authentication: any program of the same
user can set or unset these variables. Every function takes what it judges.
"""

from postbag.human_verbs import in_a_persons_terminal
from postbag.refusal import Refusal
from postbag.rooms import room
from postbag.vendors import PEERS, VENDORS, inside, other


def require_inside(peer, verb, env):
    """Refuse `verb` outside `peer`'s session; inside the other peer's, say what it meant."""
    if inside(peer, env):
        return
    reason = f"{verb} is {peer}'s verb; run it inside a {peer} session"
    the_other = other(peer)
    if inside(the_other, env):
        reason += f" (this is a {the_other} session: to write to {peer}, run postbag send {peer})"
    elif in_a_persons_terminal(env):
        reason += f" (this terminal is in no agent's session: ask {peer} to do it, or run it in {peer}'s session)"
    raise Refusal(reason)


def door_of_this_session(peer, here):
    """What `join` records for `peer`, read from its session: its door fields, and what
    else finds its records. In a person's terminal, the refusal says what to do instead."""
    try:
        return room(peer, here).door_of_session()
    except Refusal as refusal:
        if in_a_persons_terminal(here.env):
            person = f"this terminal is in no agent's session: ask {peer} to do it, or run it in {peer}'s session"
            raise Refusal(f"{refusal} ({person})") from None
        raise


def caller_of_mcp(here, meta):
    """The peer whose session makes an MCP tool call, and its door, as the rooms tell it
    from the environment the server was started with and the call's `meta`: a session
    of exactly one vendor. Identity is never an argument the model could choose."""
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
