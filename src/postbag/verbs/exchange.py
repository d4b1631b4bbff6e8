"""`open` and `close`, the human's verbs, and what `open` says beside the exchange: who has yet to join, whether
each joined door can take a letter now, and, where nobody joined this ledger, other ledgers joined in the last day."""

from postbag import contract, ledger
from postbag.escape import shell_word
from postbag.exchange import CLOSED, NOT_OPENED, SPENT
from postbag.location import ledgers, locate
from postbag.refusal import Refusal
from postbag.times import moment
from postbag.vendors import PEERS, SWITCHES, reach
from postbag.verbs.bag import ledger_at, repository_fields, set_aside, which_ledger, write_record
from postbag.verbs.join import still_there
from postbag.words import Done, counted

NOTHING_CLOSED = {
    NOT_OPENED: "no exchange is open; nothing was closed",
    CLOSED: "the exchange is already closed; nothing was recorded",
    SPENT: "the exchange's letters are already spent; nothing was recorded",
}


RECENT = 24 * 3600  # seconds: a join this recent in another ledger is named where open finds nobody joined


OTHERS_MOST = 3  # other ledgers open names at most


def open_exchange(here, limit, chosen, *, afresh=False):
    """Grant `limit` letters, with the switches `chosen` (vendors.Switch fields and values), `afresh` on a new
    ledger, the damaged one set aside. Its news says what it replaces, and what open says beside the exchange."""
    where = locate(here)
    aside = set_aside(where, here.clock) if afresh else None
    with ledger_at(here, where, write=True, create=True) as bag:
        replaced = _replaced(bag.exchange())
        write_record(bag, "open", limit=limit, **chosen, **repository_fields(where))
        exchange, joins = bag.exchange(), bag.latest_joins()
    # Read outside the lock, as receipts are: the vendors' records are theirs.
    absent = [peer for peer, joined in joins.items() if joined is None]
    doors = [reach(peer, joined, here, exchange).words for peer, joined in joins.items() if joined is not None]
    switched = [switch.said_at_open for switch in SWITCHES if switch.set_in(chosen)]
    opened = ", ".join([contract.exchange_open(limit), *switched])
    wrote = which_ledger(bag, where, always=True)
    elsewhere = _joined_elsewhere(here, where, limit) if len(absent) == len(PEERS) else []
    return Done(opened, aside, *bag.news, wrote, replaced, _yet_to_join(absent), *elsewhere, *doors)


def _replaced(exchange):
    """What a new open says of the exchange it replaces, where that one still had letters."""
    if exchange.barred:
        return None
    return (
        f"this replaces the open exchange, which still had {exchange.left} of its {counted(exchange.granted, 'letter')}"
    )


def _yet_to_join(absent):
    if not absent:
        return None
    if len(absent) == len(PEERS):
        return "neither agent has joined yet: no letter can reach them until each joins from its own session"
    return f"{absent[0]} has not joined yet: no letter can reach it until it joins from its own session"


def reach_of(here, peer, location):
    """Whether `peer`'s latest door in the ledger (at `location`) can take a letter now, in
    words, or that it has not joined; None without a ledger."""
    with ledger_at(here, location) as bag:
        if bag.fd is None:
            return None
        joined, exchange = bag.latest_join(peer), bag.exchange()
    return contract.not_joined(peer) if joined is None else reach(peer, joined, here, exchange).words


def _joined_elsewhere(here, where, limit):
    """Of each other ledger agents joined in the last day, where they joined from and the command that opens an
    exchange there; or, where that folder is no longer there, the one that reads it."""
    from postbag.envelope import program_of

    program = " ".join(program_of(here))
    said = []
    for found in recent_joins(here, where.path)[:OTHERS_MOST]:
        joined = ", ".join(f"{peer} at {record['at']}" for peer, record in found.joins.items())
        if found.joined_from is not None:
            opens = f"cd {shell_word(found.joined_from)} && {program} open {limit}"
            whence = f"from {found.joined_from}" if len(found.joins) == 1 else f"the latest from {found.joined_from}"
            said.append(f"agents joined another ledger ({joined}), {whence}: to open an exchange there, {opens}")
        else:
            reads = f"{program} read --ledger {shell_word(found.path)}"
            gone = "from a folder since moved or removed"
            said.append(f"agents joined another ledger ({joined}) {gone}: {reads} shows it")
    return said


class Joined:
    """Another ledger's joins in the last day: `path`, `joins` (each peer's latest, in the ledger's order of
    peers) and `joined_from`, the directory the latest came from where it is still there, else None."""

    __slots__ = ("joined_from", "joins", "path")

    def __init__(self, path, joins):
        self.path, self.joins = path, joins
        self.joined_from = still_there(max(joins.values(), key=lambda record: record["n"]))

    @property
    def latest(self):
        return max(moment(record["at"]) or 0 for record in self.joins.values())


def recent_joins(here, path):
    """A Joined, latest first, for each ledger but `path` that a session joined in the last day from a
    directory the join names. A ledger that cannot be read is passed over: this is news, never a refusal."""
    now, found = here.clock.now(), []
    for other in ledgers(here):
        if other == path:
            continue
        try:
            with ledger.Ledger(other) as bag:
                joins = bag.latest_joins()
        except (Refusal, OSError):
            continue
        recent = {
            peer: record
            for peer, record in joins.items()
            if record is not None and now - (moment(record["at"]) or 0) < RECENT and type(record.get("cwd")) is str
        }
        if recent:
            found.append(Joined(other, recent))
    return sorted(found, key=lambda each: -each.latest)


def close_exchange(here):
    location = locate(here)
    with ledger_at(here, location, write=True) as bag:
        exchange = bag.exchange()
        if exchange.barred:
            looked = None if location.is_default else f"looked in {location.words()}"
            return Done(NOTHING_CLOSED[exchange.barred], *bag.news, looked)
        write_record(bag, "close")
    closed = f"exchange closed: {exchange.sent} of {counted(exchange.granted, 'letter')} sent"
    return Done(closed, *bag.news, which_ledger(bag, location, always=True))
