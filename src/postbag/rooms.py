"""The rooms, the upper half of the registry of the vendors: each peer's Room by its name,
which is how everything above the rooms reaches a vendor, never by branching on the
name. vendors.py is the lower half, which must load fast: the peers, and what each
vendor's package declares of its sessions. What a room offers is written once, in room.py."""

from postbag.claude.room import Claude
from postbag.codex.room import Codex
from postbag.vendors import PEERS, SWITCHES

ROOMS = {made.NAME: made for made in (Claude, Codex)}
assert tuple(ROOMS) == PEERS  # one list of the vendors, in the ledger's order
# The longest letter, in bytes, that every door carries: a letter goes either way, and
# 1.0 took one cap for both.
LETTER_MOST = min(made.LETTER_MOST for made in ROOMS.values() if made.LETTER_MOST is not None)


def room(peer, here, exchange=None):
    """`peer`'s room, for `here`; in `exchange` (an exchange.Exchange), with the switches its
    human set that this room honours."""
    fields = {switch.field for switch in SWITCHES if switch.peer == peer}
    switches = {} if exchange is None else {k: v for k, v in exchange.switches.items() if k in fields}
    return ROOMS[peer](here, switches)
