"""The rooms, the upper half of the registry of the vendors: each peer's Room, which is how
everything above the rooms reaches a vendor, never by branching on its name. A room is
imported when it is first asked for, so that a send to one vendor loads nothing of the
other's. vendors.py is the lower half, which must load fast: the peers, and what each
vendor's package declares of itself. What a room offers is written once, in room.py."""

from postbag import claude, codex
from postbag.vendors import PEERS, SWITCHES


def _claude():
    from postbag.claude.room import Claude

    return Claude


def _codex():
    from postbag.codex.room import Codex

    return Codex


_IMPORTERS = {claude.NAME: _claude, codex.NAME: _codex}
assert tuple(_IMPORTERS) == PEERS  # one list of the vendors, in the ledger's order


def room_class(peer):
    """`peer`'s Room, the class."""
    return _IMPORTERS[peer]()


def all_rooms():
    """Every peer's Room class, by its name, in the ledger's order."""
    return {peer: room_class(peer) for peer in PEERS}


def room(peer, here, exchange=None):
    """`peer`'s room, for `here`; in `exchange` (an exchange.Exchange), with the switches its
    human set that this room honours."""
    fields = {switch.field for switch in SWITCHES if switch.peer == peer}
    switches = {} if exchange is None else {k: v for k, v in exchange.switches.items() if k in fields}
    return room_class(peer)(here, switches)
