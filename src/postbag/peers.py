"""The two rooms, as everything above them asks for one: by the peer's name, never by
branching on it. What a room offers is written once, in room.py."""

from postbag.claude.room import Claude
from postbag.codex.room import Codex
from postbag.sessions import PEERS

ROOMS = {made.NAME: made for made in (Claude, Codex)}


def room(peer, here, exchange=None):
    """`peer`'s room, for `here`; in `exchange` (a ledger.Exchange), with the switches its
    human set that this room honours."""
    made = ROOMS[peer]
    fields = {switch.field for switch in made.SWITCHES}
    switches = {} if exchange is None else {k: v for k, v in exchange.switches.items() if k in fields}
    return made(here, switches)


def switches():
    """Every room's switches, in the order of the peers."""
    return [switch for peer in PEERS for switch in ROOMS[peer].SWITCHES]


def sandbox_of(here):
    """The Sandbox around this process's commands, as the room whose session runs it says; or None."""
    return next((found for peer in PEERS if (found := ROOMS[peer](here).sandbox()) is not None), None)
