"""What postbag 1.0 fixed that agents, scripts and existing ledgers depend on: the peers' names and the fields of
their doors in the ledger, the variable that names a ledger, and the words agents and scripts match on. Every other
sentence is written whole where it is said; these are named, for a change to one is a change of the contract."""

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
    """The first words of letter `number`'s envelope from `sender`, which receipts seek in the recipient's records."""
    return f"Letter {number} from {sender} via postbag."


# What a send says of an exchange that takes no more letters.
NO_EXCHANGE = "no exchange is open"
CLOSED_BY_THE_HUMAN = "the human closed the exchange"
LETTERS_SPENT = "the exchange's letters are spent"


def delivered(number, recipient, left):
    return f"letter {number} delivered to {recipient}, {left} left"


def not_recorded(number, recipient):
    """How a send that handed the letter over, and could not record it, begins."""
    return f"letter {number} was submitted to {recipient}'s door but not recorded"


def joined(peer):
    return f"{peer} joined"


def not_joined(peer):
    return f"{peer} has not joined"


def exchange_open(letters):
    return f"exchange open: {letters} letter" + ("" if letters == 1 else "s")


def line_not_a_record(number):
    return f"ledger line {number} is not a record"


def truncated_after(count):
    return f"ledger is truncated after line {count}"


def door_did_not_answer(peer):
    """How the refusal of a knock that handed nothing over begins."""
    return f"{peer}'s door did not answer"


def humans_verb(verb):
    return f"{verb} is the human's verb"


def peers_verb(verb, peer):
    return f"{verb} is {peer}'s verb; run it inside a {peer} session"


def join_from_inside(peer):
    return f"join {peer} from inside a {peer} session"
