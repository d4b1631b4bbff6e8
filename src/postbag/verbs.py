"""The verbs, whoever calls them: each takes `here` (what the process gives it, its
environment above all), does its work under the ledger's lock, and returns what it did
in words, or raises a Refusal.

The command line (cli.py) and the MCP server (mcp.py) are two ways in; neither decides
anything these functions decide. What is asked of a peer's door and records is asked of
its room (rooms.py), which the exchange's switches go to.
"""

from postbag import ledger
from postbag.escape import one_line
from postbag.exchange import CLOSED, NOT_OPENED, SPENT
from postbag.human_verbs import require_human
from postbag.ledger import not_there
from postbag.refusal import Refusal
from postbag.vendors import LETTER_MOST, PEERS, SWITCHES, sandbox_of

# The rooms, and all they read of the vendors, are imported by the verbs that reach a
# door or a vendor's files (send, open, receipts), where they are asked: read and join by
# the command line import none of them.

# What each verb says of an exchange that takes no more letters, by Exchange.barred.
SEND_REFUSED = {
    NOT_OPENED: "no exchange is open",
    CLOSED: "the human closed the exchange",
    SPENT: "the exchange's letters are spent",
}
NOTHING_CLOSED = {
    NOT_OPENED: "no exchange is open; nothing was closed",
    CLOSED: "the exchange is already closed; nothing was recorded",
    SPENT: "the exchange's letters are already spent; nothing was recorded",
}
STANDING = {CLOSED: "closed by the human", SPENT: "spent"}
NAMED = "the ledger {}, which POSTBAG_LEDGER names"  # a ledger a person may not have meant


class Done:
    """What a verb did: `said`, the line that says it (stdout, or a tool's text), and
    `news`, what the person should know beside it (notices on stderr, or further lines of
    the text)."""

    __slots__ = ("news", "said")

    def __init__(self, said, *news):
        self.said, self.news = said, [line for line in news if line]


def which_ledger(bag, named):
    """What a writer says of the ledger it wrote, where a person could think it wrote
    another: that it created the file (and the directory for it), or, for a ledger other
    than the default (`named`, as ledger.named gives it), which one it is; None for the
    default ledger, as it was."""
    if bag.made is not None:
        made = f"created the ledger {bag.path}"
        return made + (f", and the directory {bag.made.directory} for it" if bag.made.directory else "")
    return None if named is None else f"wrote to {NAMED.format(named)}"


def _elsewhere(named):
    """The words a refusal adds that could come from the agents' and the human's ledgers
    differing: which ledger this one is (`named`), unless it is the default."""
    return "" if named is None else f" ({NAMED.format(named)})"


def join(here, peer, door, *, again=True):
    """Record `door`, the fields that reach `peer`'s session, and how it joined. Unless
    `again`, a door that is already `peer`'s latest is not recorded a second time."""
    with _ledger(here, write=True, create=True) as bag:
        if not again and _is_latest(bag.latest_join(peer), door):
            return Done(f"{peer} was joined already: letters to {peer} reach this session", *bag.news)
        _write_record(bag, "join", peer=peer, **door)
    return Done(f"{peer} joined", *bag.news, which_ledger(bag, ledger.named(bag.path, here.env)))


def open_exchange(here, limit, chosen=None, *, afresh=False):
    """Grant `limit` letters, with the switches `chosen` (vendors.Switch fields and values),
    `afresh` on a new ledger, the damaged one set aside; its news says what it replaces,
    who has yet to join, and whether each joined door can take a letter."""
    require_human("open", here.env)
    chosen = chosen or {}
    aside = None
    if afresh:
        aside = ledger.set_aside(ledger.locate(here.env), here.clock)
        aside = f"set the damaged ledger aside, whole and private, as {aside}"
    with _ledger(here, write=True, create=True) as bag:
        replaced = _replaced(bag.exchange())
        _write_record(bag, "open", limit=limit, **chosen)
        exchange, joins = bag.exchange(), bag.latest_joins()
    # Read outside the lock, as receipts are: the vendors' records are theirs.
    absent = [peer for peer, joined in joins.items() if joined is None]
    doors = [reach(peer, joined, here, exchange).words for peer, joined in joins.items() if joined is not None]
    opened = ", ".join([f"exchange open: {limit} letters", *(s.opened for s in SWITCHES if s.set_in(chosen))])
    wrote = which_ledger(bag, ledger.named(bag.path, here.env))
    return Done(opened, aside, *bag.news, wrote, replaced, _not_joined(absent), *doors)


def _replaced(exchange):
    """What a new open says of the exchange it replaces, where that one still had letters."""
    if exchange.barred:
        return None
    return f"this replaces the open exchange, which still had {exchange.left} of its {exchange.granted} letters"


def reach(peer, joined, here, exchange):
    """Whether `peer`'s session behind the door of its join record `joined` can take a
    letter now, in `exchange`: a room.Reach."""
    from postbag.room import CANNOT_TELL, Reach
    from postbag.rooms import room

    try:
        return room(peer, here, exchange).reachability(joined)
    except OSError as error:  # a record that cannot be read is something not known, not a failure
        return Reach(CANNOT_TELL, f"whether {peer} can take a letter now cannot be told ({error.strerror})")


def reach_of(here, peer):
    """The same of `peer`'s latest door in the ledger, in words, or that it has not joined;
    None without a ledger."""
    with _ledger(here) as bag:
        if bag.fd is None:
            return None
        joined, exchange = bag.latest_join(peer), bag.exchange()
    return f"{peer} has not joined" if joined is None else reach(peer, joined, here, exchange).words


def _not_joined(absent):
    if not absent:
        return None
    if len(absent) == len(PEERS):
        return "neither agent has joined yet: no letter can reach them until each joins from its own session"
    return f"{absent[0]} has not joined yet: no letter can reach it until it joins from its own session"


def close_exchange(here):
    require_human("close", here.env)
    with _ledger(here, write=True) as bag:
        exchange = bag.exchange()
        named = ledger.named(bag.path, here.env)
        if exchange.barred:
            looked = None if named is None else f"looked in {NAMED.format(named)}"
            return Done(NOTHING_CLOSED[exchange.barred], *bag.news, looked)
        _write_record(bag, "close")
    closed = f"exchange closed: {exchange.sent} of {exchange.granted} letters were sent"
    return Done(closed, *bag.news, which_ledger(bag, named))


def send(here, sender, recipient, body, *, handed_over=None, sender_door=None):  # noqa: PLR0913
    """Knock on `recipient`'s door with `body`, then record the letter, whose reply command
    starts this postbag as `here` was started (envelope.program_of); `handed_over` is
    called once the door has the letter, when nothing may interrupt the rest. With a
    `sender_door`, the sender's session joins first unless that is its latest door, so
    that the answer comes back to the session that wrote."""
    from postbag import envelope
    from postbag.rooms import room

    env, sandbox = here.env, sandbox_of(here.env)
    path = ledger.locate(env)
    named = ledger.named(path, env)
    envelope.check_body(body, LETTER_MOST)
    with ledger.Ledger(path, write=True, sandbox=sandbox, clock=here.clock) as bag:
        exchange = bag.exchange()
        if exchange.barred:
            elsewhere = _elsewhere(named) if exchange.barred == NOT_OPENED else ""
            raise Refusal(SEND_REFUSED[exchange.barred] + elsewhere)
        joins = bag.latest_joins((recipient, sender) if sender_door is not None else (recipient,))
        joined = joins[recipient]
        if joined is None:
            raise Refusal(f"{recipient} has not joined{_elsewhere(named)}")
        rejoined = ""
        if sender_door is not None and not _is_latest(joins[sender], sender_door):
            _write_record(bag, "join", peer=sender, **sender_door)
            rejoined = f"{sender} joined; "
        number, left, door = bag.next_number, exchange.left - 1, room(recipient, here, exchange)
        command = envelope.reply_command(envelope.program_of(here), named)
        tool = door.SEND_TOOL if joined.get("via") == "mcp" else None
        text = envelope.wrap(number, sender, body, last=left == 0, command=command, send_tool=tool)
        post = door.post(joined)  # reads the recipient's records around the knock
        try:
            post.knock(text, sandbox)
            if handed_over is not None:
                handed_over()
            try:
                bag.append("letter", **{"from": sender, "to": recipient, "body": body}, **post.recorded())
            except OSError as error:
                raise Refusal(
                    f"letter {number} was submitted to {recipient}'s door but not recorded ({error.strerror}); "
                    f"do not resend before checking {recipient}'s session"
                ) from None
        except Refusal:
            post.finish()  # what it reads ends before the refusal does: no thread outlives it into shutdown
            raise
    delivered = f"{rejoined}letter {number} delivered to {recipient}, {left} left"
    return Done(delivered + _after(post), *bag.news, which_ledger(bag, named))


def _after(post):
    """What a send adds once its letter is recorded, from what its post found; nothing
    where that fails, for the letter is delivered and must be said to be."""
    try:
        said = post.said()
    except Exception:
        said = None
    finally:
        post.finish()
    return f"; {said}" if said else ""


def receipts(here, sender=None, count=None):
    """Where letters stand, from the recipients' own records: `sender`'s last `count`
    letters (default its last one), or with no sender the last `count` letters (default
    those of the latest exchange), oldest first, as (letter, Receipt); None without a ledger."""
    with _ledger(here) as bag:
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
    from postbag.rooms import room

    if joined is None:
        return Receipt(UNKNOWN, f"no join of {letter['to']} comes before it in the ledger")
    return room(letter["to"], here, exchange).receipt(letter, joined)


class Snapshot:
    """What `read` shows, taken under the lock and shown after it is released: the
    records, then a refusal to end with or a status line, and, for a follower, where to
    follow from. `found` is whether there is a ledger at `path` at all."""

    def __init__(self, found, path, records, *, position=None, refusal=None, status=None):  # noqa: PLR0913
        self.found, self.path, self.records, self.position = found, path, records, position
        self.refusal, self.status = refusal, status


def snapshot(here, count=None, *, with_status=False, on_wait=None, following=False):
    """The last `count` records (None: every record) and, `with_status`, the status line;
    `following`, where to follow from."""
    path = ledger.locate(here.env)
    with _ledger(here, path, on_wait=on_wait) as bag:
        shown = bag.records() if count is None else bag.tail(count)
        refusal = status = None
        if bag.unfinished is not None:
            refusal = Refusal(
                f"{ledger.truncated(bag.unfinished, path)}: its last record is unfinished, most likely from an "
                "interrupted send, and the next send, join or open removes it"
            )
        elif with_status:
            try:
                status = standing(bag)
            except Refusal as damaged:  # told after the records, as is any other refusal of read
                refusal = damaged
        position = bag.position() if following else None
        return Snapshot(bag.fd is not None, path, shown, position=position, refusal=refusal, status=status)


def status(here):
    """Where the bag stands, as the status line says, or that there is no ledger yet."""
    with _ledger(here) as bag:
        return not_there(bag.path) if bag.fd is None else standing(bag)


def standing(bag):
    """One line for the human: the ledger, the exchange, and who has joined since when."""
    exchange = bag.exchange()
    if exchange.barred == NOT_OPENED:
        state = "no exchange opened"
    else:
        state = f"exchange of {exchange.granted} letters, {exchange.sent} sent, "
        state += STANDING.get(exchange.barred) or f"{exchange.left} left"
        state += "".join(f", {s.standing}" for s in SWITCHES if s.set_in(exchange.switches))
    peers = [
        f"{peer} has not joined" if joined is None else f"{peer} joined {one_line(joined['at'])}"
        for peer, joined in bag.latest_joins().items()
    ]
    return f"ledger {bag.path}: {state}; {', '.join(peers)}"


def _is_latest(joined, door):
    """Whether `door` (with how it joined) is what `joined`, a peer's latest join, recorded."""
    return joined is not None and {k: v for k, v in joined.items() if k not in ("n", "at", "kind", "peer")} == door


def _ledger(here, path=None, **options):
    """The ledger at `path` (default: where `here` says), told of the sandbox around this process."""
    return ledger.Ledger(path or ledger.locate(here.env), sandbox=sandbox_of(here.env), clock=here.clock, **options)


def _write_record(bag, kind, **fields):
    try:
        bag.append(kind, **fields)
    except OSError as error:
        raise Refusal(f"cannot write the ledger ({error.strerror})") from None
