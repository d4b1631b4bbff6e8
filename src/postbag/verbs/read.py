"""What the ledger and the recipients' records say: `read`'s snapshot of the records, the
status line, and the receipts of letters."""

from postbag import contract
from postbag.damage import unfinished_words
from postbag.escape import one_line
from postbag.exchange import CLOSED, NOT_OPENED, SPENT
from postbag.location import locate, not_there
from postbag.vendors import SWITCHES, room
from postbag.verbs.bag import ledger_at
from postbag.verbs.join import came_from
from postbag.words import counted

STANDING = {CLOSED: "closed by the human", SPENT: "spent"}


def snapshot(here, count=None, *, on_wait=None, following=False, location=None):
    """The Snapshot of the last `count` records (None: all) at `location` (default: here's);
    `following`: with the position to follow from."""
    location = location or locate(here)
    with ledger_at(here, location, on_wait=on_wait, reading=True) as bag:
        shown = bag.records() if count is None else bag.last_records(count)  # the bytes in hand, parsed as shown
        news = None if bag.unfinished is None else unfinished_words(bag.unfinished, location.path)
        position = bag.position() if following else None
        return Snapshot(bag.fd is not None, location, shown, position=position, news=news)


class Snapshot:
    """What `read` shows, taken under the lock and shown after it is released: `records`, which raise the Refusal of
    the first line that is not one once those before it are shown; `news` beside them; and, for a follower, where to
    follow from. `exists` is whether there is a ledger at `location` (a location.Location) at all."""

    def __init__(self, exists, location, records, *, position=None, news=None):
        self.exists, self.location, self.records, self.position, self.news = exists, location, records, position, news


def status(here, location):
    """The status line of the ledger at `location`, or that there is no ledger yet."""
    with ledger_at(here, location) as bag:
        return not_there(location) if bag.fd is None else status_line(bag, location)


def status_line(bag, location):
    """One line for the human: the ledger and why it is that one, the exchange, and who has joined since when."""
    exchange = bag.exchange()
    if exchange.barred == NOT_OPENED:
        state = ["no exchange opened"]
    else:
        standing = STANDING.get(exchange.barred) or f"{exchange.left} left"
        switched = [switch.said_in_status for switch in SWITCHES if switch.set_in(exchange.switches)]
        state = [f"exchange of {counted(exchange.granted, 'letter')}", f"{exchange.sent} sent", standing, *switched]
    peers = [_joined_words(peer, joined) for peer, joined in bag.latest_joins().items()]
    return f"{ledger_called(location)}: {', '.join(state)}; {', '.join(peers)}"


def ledger_called(location):
    """The ledger at `location` as a status line names it: its path, and why it is that one."""
    if location.repository is not None:
        return f"ledger {location.path}, of the repository {location.repository.main_tree}"
    if location.named:
        return f"ledger {location.path}, which POSTBAG_LEDGER names"
    return f"ledger {location.path}"


def _joined_words(peer, joined):
    """How the status line says when `peer` joined, and from where, or that it has not."""
    if joined is None:
        return contract.not_joined(peer)
    return f"{peer} joined {one_line(joined['at'])}" + one_line(came_from(joined))


def receipts(here, sender=None, count=None, location=None):
    """Where letters stand, from the recipients' own records, as (letter, Receipt), oldest first: `sender`'s last
    `count` letters (default its last one), or with no sender the last `count` (default those of the latest
    exchange); None without a ledger. `location`: the ledger's, where the person named one (default: here's)."""
    with ledger_at(here, location or locate(here)) as bag:
        if bag.fd is None:
            return None
        exchange = bag.exchange()
        if count is None:
            count = 1 if sender else max(1, exchange.sent)
        letters = bag.letters(count, sender)
    # Read outside the lock: the vendors' records are theirs, and may take a moment.
    return [
        (letter, receipt_of(letter, joined, here, exchange).settled(answer))
        for letter, joined, answer in reversed(letters)
    ]


def receipt_of(letter, joined, here, exchange):
    """The receipt of `letter`, sent to the recipient's door `joined` (its join record)."""
    from postbag.receipts import UNKNOWN, Receipt

    if joined is None:
        return Receipt(UNKNOWN, f"no join of {letter['to']} comes before it in the ledger")
    return room(letter["to"], here, exchange).receipt(letter, joined)
