"""What postbag 1.0 fixed that agents, scripts and existing ledgers depend on: the peers'
names and the fields of their doors in the ledger, the variable that names a ledger, and
the words agents and scripts match on. Every other sentence is written whole where it is
said; these are named, for a change to one is a change of the contract."""

# The peers, as the ledger names them, in its order, and the fields of each one's join
# record that reach its session (its door), which no output shows.
DOOR_FIELDS = {"claude": ("socket", "token"), "codex": ("thread",)}
PEERS = tuple(DOOR_FIELDS)
# The ledger, wherever it is set, over each repository's own.
LEDGER_VARIABLE = "POSTBAG_LEDGER"
# How every refusal an agent gets ends.
STOP = "; stop and ask the human"


def door_fields(peer):
    """The fields of `peer`'s join record that reach its session."""
    return DOOR_FIELDS[peer]


def heading(number, sender):
    """The first words of every envelope of letter `number` from `sender`, which receipts
    look for in the recipient's records."""
    return f"Letter {number} from {sender} via postbag."
