"""Who may run which verb, decided by the variables each vendor exports into its sessions
(each room's package says which are its own: vendors.py; the human's verbs are human_verbs.py's).

This is a guardrail against mixed-up roles, not authentication: any program of the same
user can set or unset these variables. Every function takes what it judges.
"""

from postbag import wording as W
from postbag.human_verbs import in_a_persons_terminal
from postbag.refusal import Refusal
from postbag.rooms import room
from postbag.vendors import PEERS, VENDORS, inside, other


def require_inside(peer, verb, env):
    """Refuse `verb` outside `peer`'s session; inside the other peer's, say what it meant."""
    if inside(peer, env):
        return
    reason = W.AGENTS_VERB.format(verb=verb, peer=peer)
    the_other = other(peer)
    if inside(the_other, env):
        reason += W.IN_THE_OTHER.format(other=the_other, peer=peer)
    elif in_a_persons_terminal(env):
        reason += W.BY_A_PERSON.format(peer=peer)
    raise Refusal(reason)


def door_of_this_session(peer, here):
    """What `join` records for `peer`, read from its session: its door fields, and what
    else finds its records. In a person's terminal, the refusal says what to do instead."""
    try:
        return room(peer, here).door_of_session()
    except Refusal as refusal:
        if in_a_persons_terminal(here.env):
            raise Refusal(f"{refusal}{W.BY_A_PERSON.format(peer=peer)}") from None
        raise


def caller_of_mcp(here, meta):
    """The peer whose session makes an MCP tool call, and its door, as the rooms tell it
    from the environment the server was started with and the call's `meta`: a session
    of exactly one vendor. Identity is never an argument the model could choose."""
    calling = [peer for peer in PEERS if room(peer, here).calls(meta)]
    if len(calling) > 1:
        both = " and ".join(VENDORS[peer].SESSION_NAME for peer in calling)
        raise Refusal(W.SEES_BOTH.format(both=both))
    if not calling:
        neither = " nor ".join(VENDORS[peer].SESSION_NAME for peer in PEERS)
        raise Refusal(W.SEES_NEITHER.format(neither=neither))
    [peer] = calling
    return peer, room(peer, here).caller(meta)
