"""The verbs, whoever calls them: each takes `here` (what the process gives it, its
environment above all), does its work under the ledger's lock, and returns what it did
in words, or raises a Refusal.

The command line (cli.py) and the MCP server (mcp.py) are two ways in; neither decides
anything these functions decide. What is asked of a peer's door and records is asked of
its room (rooms.py), which the exchange's switches go to.
"""

import os

from postbag import ledger
from postbag.contract import door_fields
from postbag.escape import as_text, masked, one_line, shell_word
from postbag.exchange import CLOSED, NOT_OPENED, SPENT
from postbag.ledger import not_there
from postbag.location import keep_out_of_git, ledgers, locate
from postbag.refusal import Refusal
from postbag.times import moment
from postbag.vendors import LETTER_MOST, PEERS, SWITCHES, door_in, room, sandbox_of
from postbag.words import counted

# The rooms, and all they read of the vendors, are imported by the verbs that reach a
# door or a vendor's files, where they are asked: send, open and receipts; join, of the
# joining peer's room alone (claude's reads its session file). read imports none.

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
# What a join records besides the door: the fields that name the session are the door's.
JOIN_FIELDS = ("n", "at", "kind", "peer", "cwd", "repository")
RECENT = 24 * 3600  # seconds: a join this recent in another ledger is named where open finds nobody joined
OTHERS_MOST = 3  # other ledgers open names at most


class Done:
    """What a verb did: `said`, the line that says it (stdout, or a tool's text), and
    `news`, what the person should know beside it (notices on stderr, or further lines of
    the text)."""

    __slots__ = ("news", "said")

    def __init__(self, said, *news):
        self.said, self.news = said, [line for line in news if line]


def which_ledger(bag, where, *, always=False):
    """What a writer says of the ledger it wrote, where a person could think it wrote
    another: that it created the file (and the directory for it), or which one it is, for
    a ledger POSTBAG_LEDGER names, and, `always`, for any (open and close, the person's
    verbs, name the ledger they acted on); else None. `where` is where the ledger was found
    (a location.Location)."""
    if bag.made is not None:
        made = f"created the ledger {bag.path}"
        if where.repository is not None:
            made += f" for the repository {where.repository.main_tree}"
        return made + (f", and the directory {bag.made.directory} for it" if bag.made.directory else "")
    return f"wrote to {where.words()}" if where.named or always else None


def _elsewhere(where):
    """The words a refusal adds that could come from the agents' and the human's ledgers
    differing: which ledger this one is, unless it is the default."""
    return "" if where.is_default else f" ({where.words()})"


def _no_exchange(location):
    """Why a send finds no exchange open: 1.0's words, and which ledger, and, for a
    repository's, what the human runs and where."""
    if location.repository is None:
        return SEND_REFUSED[NOT_OPENED] + _elsewhere(location)
    return (
        f"no exchange is open in the ledger of the repository {location.repository.main_tree} "
        "(the human runs postbag open there)"
    )


def join(here, peer, door, *, again=True, location=None):
    """Record `door`, the fields that reach `peer`'s session and how it joined, with the
    session's directory (`here`'s). Unless `again`, a door that is already `peer`'s
    latest is not recorded a second time. A join that takes letters from another session
    says so. `location`: the ledger's (default: here's)."""
    where = location or locate(here)
    with _ledger(here, where, write=True, create=True) as bag:
        before = bag.latest_join(peer)
        if not again and _is_latest(before, door):
            return Done(f"{peer} was joined already: letters to {peer} reach this session", *bag.news)
        _write_record(bag, "join", peer=peer, **door, **_directory(here), **_repository_fields(where))
    replaced = _replaced_session(peer, before, door)
    return Done(f"{peer} joined", *bag.news, which_ledger(bag, where), replaced)


def _directory(here):
    """What a join records of the session's directory: `cwd`, as text any reader of the
    ledger takes, where it is known."""
    return {} if here.cwd is None else {"cwd": as_text(here.cwd)}


def _repository_fields(where):
    """What a join or an open records of whose ledger `where` is: the repository's
    identity, or None outside any repository; nothing for a ledger named by path."""
    if where.named or where.chosen:
        return {}
    return {"repository": None if where.repository is None else where.repository.recorded()}


def _replaced_session(peer, before, door):
    """What a join of `door` says of `before`, `peer`'s latest join, where that was
    another session's: when it joined, from where, and that letters now come here."""
    if before is None or all(before.get(field) == door.get(field) for field in door_fields(peer)):
        return None
    where = before.get("cwd")
    whence = f" from {where}" if type(where) is str else ""
    return f"this replaces the {peer} session that joined at {before['at']}{whence}: letters to {peer} now come here"


def open_exchange(here, limit, chosen=None, *, afresh=False):
    """Grant `limit` letters, with the switches `chosen` (vendors.Switch fields and values),
    `afresh` on a new ledger, the damaged one set aside; its news says what it replaces,
    who has yet to join, and whether each joined door can take a letter."""
    chosen = chosen or {}
    where = locate(here)
    aside = ledger.set_aside(where, here.clock) if afresh else None
    with _ledger(here, where, write=True, create=True) as bag:
        replaced = _replaced(bag.exchange())
        _write_record(bag, "open", limit=limit, **chosen, **_repository_fields(where))
        exchange, joins = bag.exchange(), bag.latest_joins()
    # Read outside the lock, as receipts are: the vendors' records are theirs.
    absent = [peer for peer, joined in joins.items() if joined is None]
    doors = [reach(peer, joined, here, exchange).words for peer, joined in joins.items() if joined is not None]
    switched = [switch.opened for switch in SWITCHES if switch.set_in(chosen)]
    opened = ", ".join([f"exchange open: {counted(limit, 'letter')}", *switched])
    wrote = which_ledger(bag, where, always=True)
    elsewhere = _joined_elsewhere(here, where, limit) if len(absent) == len(PEERS) else []
    return Done(opened, aside, *bag.news, wrote, replaced, _not_joined(absent), *elsewhere, *doors)


def _joined_elsewhere(here, where, limit):
    """What open says, where nobody has joined its ledger, of the other ledgers agents
    joined in the last day: where they joined from, and the command that opens an
    exchange there; or, where that folder is no longer there, the one that reads it."""
    from postbag.envelope import program_of

    program = " ".join(program_of(here))
    said = []
    for found in recent_joins(here, where.path)[:OTHERS_MOST]:
        joined = ", ".join(f"{peer} at {record['at']}" for peer, record in found.joins.items())
        if found.directory is not None:
            opens = f"cd {shell_word(found.directory)} && {program} open {limit}"
            whence = found.whence()
            said.append(f"agents joined another ledger ({joined}), {whence}: to open an exchange there, {opens}")
        else:
            reads = f"{program} read --ledger {shell_word(found.path)}"
            gone = "from a folder since moved or removed"
            said.append(f"agents joined another ledger ({joined}) {gone}: {reads} shows it")
    return said


class Joined:
    """Another ledger's joins in the last day: `path`, `joins` (each peer's latest, by
    peer, in the ledger's order of peers) and `directory`, the one the latest came from,
    where it is still there (else None)."""

    __slots__ = ("directory", "joins", "path")

    def __init__(self, path, joins):
        self.path, self.joins = path, joins
        self.directory = still_there(max(joins.values(), key=lambda record: record["n"]))

    @property
    def latest(self):
        return max(moment(record["at"]) or 0 for record in self.joins.values())

    def whence(self):
        """Where the joins came from, in words: the directory of the one, or of the latest."""
        return ("from {directory}" if len(self.joins) == 1 else "the latest from {directory}").format(
            directory=self.directory
        )


def recent_joins(here, path):
    """The ledgers under ledger.FOLDER, other than the one at `path`, that a session joined
    in the last day from a directory the join names: Joined, the latest first. A ledger
    that cannot be read is passed over: this is news, never a refusal."""
    now, found = here.clock.now(), []
    for other in ledgers(here.env):
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


def _replaced(exchange):
    """What a new open says of the exchange it replaces, where that one still had letters."""
    if exchange.barred:
        return None
    return (
        f"this replaces the open exchange, which still had {exchange.left} of its {counted(exchange.granted, 'letter')}"
    )


def reach(peer, joined, here, exchange):
    """Whether `peer`'s session behind the door of its join record `joined` can take a
    letter now, in `exchange`: a room.Reach."""
    from postbag.room import CANNOT_TELL, Reach

    try:
        return room(peer, here, exchange).reachability(joined)
    except OSError as error:  # a record that cannot be read is something not known, not a failure
        return Reach(CANNOT_TELL, f"whether {peer} can take a letter now cannot be told ({error.strerror})")


def reach_of(here, peer, location=None):
    """The same of `peer`'s latest door in the ledger (at `location`, default here's), in
    words, or that it has not joined; None without a ledger."""
    with _ledger(here, location or locate(here)) as bag:
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
    location = locate(here)
    with _ledger(here, location, write=True) as bag:
        exchange = bag.exchange()
        if exchange.barred:
            looked = None if location.is_default else f"looked in {location.words()}"
            return Done(NOTHING_CLOSED[exchange.barred], *bag.news, looked)
        _write_record(bag, "close")
    closed = f"exchange closed: {exchange.sent} of {counted(exchange.granted, 'letter')} sent"
    return Done(closed, *bag.news, which_ledger(bag, location, always=True))


def send(here, sender, recipient, body, *, handed_over=None, sender_door=None, location=None):  # noqa: PLR0913
    """Knock on `recipient`'s door with `body`, then record the letter, whose reply command
    starts this postbag as `here` was started (envelope.program_of); `handed_over` is
    called once the door has the letter, when nothing may interrupt the rest.

    Only the session joined for the sender's side may send: `sender_door` is the door of
    the session an MCP call comes from, which joins first where no session of its side
    has; else the door is read from the environment. A letter goes only to a session that
    works in the ledger's repository (outside any, for the default ledger). `location`:
    the ledger's (default: here's)."""
    from postbag import envelope

    sandbox = sandbox_of(here.env)
    where = location or locate(here)
    envelope.check_body(body, LETTER_MOST)
    door = door_in(sender, here.env) if sender_door is None else sender_door
    with _ledger(here, where, write=True) as bag:
        exchange = bag.exchange()
        if exchange.barred:
            raise Refusal(_no_exchange(where) if exchange.barred == NOT_OPENED else SEND_REFUSED[exchange.barred])
        joins = bag.latest_joins((recipient, sender))
        joined = joins[recipient]
        if joined is None:
            raise Refusal(f"{recipient} has not joined" + _elsewhere(where))
        _require_the_joined_session(sender, joins[sender], door, where)
        recipient_room = room(recipient, here, exchange)
        _require_working_here(recipient, joined, where, here, recipient_room)
        rejoined = ""
        if sender_door is not None and not _is_latest(joins[sender], sender_door):  # its first, or a fresh word of it
            _write_record(bag, "join", peer=sender, **sender_door, **_directory(here), **_repository_fields(where))
            rejoined = f"{sender} joined; "
        number, left = bag.next_number, exchange.left - 1
        command = envelope.reply_command(envelope.program_of(here), where.path if where.named else None)
        tool = recipient_room.SEND_TOOL if joined.get("via") == "mcp" else None
        text = envelope.wrap(number, sender, body, last=left == 0, command=command, send_tool=tool)
        post = recipient_room.post(joined)  # reads the recipient's records around the knock
        try:
            post.knock(text, sandbox)
            if handed_over is not None:
                handed_over()
            try:
                letter = bag.append("letter", **{"from": sender, "to": recipient, "body": body}, **post.recorded())
            except OSError as error:
                raise Refusal(
                    f"letter {number} was submitted to {recipient}'s door but not recorded ({error.strerror}); "
                    f"do not resend before checking {recipient}'s session"
                ) from None
        except Refusal as refused:
            post.finish()  # what it reads ends before the refusal does: no thread outlives it into shutdown
            # A client's own words may quote a door field: each one the ledger holds is hidden.
            secrets = bag.door_values() | {value for value in (door or {}).values() if type(value) is str}
            raise Refusal(masked(str(refused), secrets), refused.fix) from None
    delivered = rejoined + f"letter {number} delivered to {recipient}, {left} left"
    return Done(delivered + _after(post, letter), *bag.news, which_ledger(bag, where))


def _require_the_joined_session(peer, joined, door, where):
    """Refuse a send from a session of `peer`'s side, behind `door`, other than the one
    `joined` last; where none has, any may send, as in 1.0."""
    if joined is None or door is None:
        return
    if all(joined.get(field) == door.get(field) for field in door_fields(peer)):
        return
    raise Refusal(
        f"this {peer} session is not the one joined for {peer} in {where.words()}: the {peer} session that joined at "
        f"{joined['at']}{_from(joined)} is, and letters to {peer} reach it; to take the door, this session joins "
        f"(postbag join {peer}, or the join tool), and letters to {peer} then come here"
    )


def _from(joined):
    """Where a join came from, in words: its directory, where it is still there."""
    if type(joined.get("cwd")) is not str:
        return ""
    where = still_there(joined)
    return " from a folder since moved or removed" if where is None else f" from {where}"


def still_there(joined):
    """The directory a join came from, where it is still there and still in the repository
    the join names (a repository moved, or cloned anew at its path, leaves its joins'
    folders naming another or none); else None."""
    where, recorded = joined.get("cwd"), joined.get("repository")
    if type(where) is not str or not os.path.isdir(where):
        return None
    if type(recorded) is dict and type(recorded.get("path")) is str:
        try:
            status = os.stat(recorded["path"])
        except (OSError, ValueError):
            return None
        if status.st_ino != recorded.get("inode"):
            return None
    return where


def _require_working_here(peer, joined, where, here, its_room):
    """Refuse a letter to `peer`'s session behind `joined`, its join, where the session does
    not work in the repository whose ledger `where` is (outside any, for the default): as
    its join records it, or, for a join from before joins recorded it, as its directory or
    its client's own records show. A ledger named by path serves anyone's."""
    if where.named or where.chosen:
        return
    recorded = joined.get("repository")
    if type(recorded) is dict:
        if where.repository is not None and where.repository.is_recorded_as(recorded):
            return
    elif "repository" in joined and recorded is None and where.repository is None:
        return
    directory = joined.get("cwd") if type(joined.get("cwd")) is str else its_room.directory(joined)
    if directory is None or not os.path.isdir(directory):
        raise Refusal(
            f"{peer}'s join does not show where its session works (a join from before each repository had a ledger "
            f"of its own names no folder, or its folder is gone), so no letter goes to it: {peer} joins again from "
            "its session"
        )
    from postbag.repository import containing  # only for a join from before joins named their repository

    found = containing(directory, here.env)
    if found != where.repository:
        works = "outside any repository" if found is None else f"in the repository {found.main_tree}"
        raise Refusal(
            f"{peer}'s session works {works}, not in {where.words()}, so no letter from here goes to it: a {peer} "
            "session that works here joins, and letters reach it"
        )


def _after(post, letter):
    """What a send adds once `letter` is recorded, from what its post found; nothing where
    that fails, for the letter is delivered and must be said to be."""
    try:
        said = post.caveat(letter)
    except Exception:
        said = None
    finally:
        post.finish()
    return f"; {said}" if said else ""


def receipts(here, sender=None, count=None, location=None):
    """Where letters stand, from the recipients' own records: `sender`'s last `count`
    letters (default its last one), or with no sender the last `count` letters (default
    those of the latest exchange), oldest first, as (letter, Receipt); None without a
    ledger. `location`: the ledger's, where the person named one (default: here's)."""
    with _ledger(here, location or locate(here)) as bag:
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


class Snapshot:
    """What `read` shows, taken under the lock and shown after it is released: `records`,
    which raise the Refusal of the first line that is not one once those before it are
    shown; `news` beside them; and, for a follower, where to follow from. `found` is
    whether there is a ledger at `location` (a location.Location) at all."""

    def __init__(self, found, location, records, *, position=None, news=None):
        self.found, self.location, self.records, self.position, self.news = found, location, records, position, news

    @property
    def path(self):
        return self.location.path


def snapshot(here, count=None, *, on_wait=None, following=False, location=None):
    """The last `count` records (None: every record); `following`, where to follow from; of
    the ledger at `location`, where the person named one (default: here's)."""
    location = location or locate(here)
    with _ledger(here, location, on_wait=on_wait, reading=True) as bag:
        shown = bag.records() if count is None else bag.last_records(count)  # the bytes in hand, parsed as shown
        news = None if bag.unfinished is None else unfinished_words(bag.unfinished, location.path)
        position = bag.position() if following else None
        return Snapshot(bag.fd is not None, location, shown, position=position, news=news)


def unfinished_words(line, path):
    """What a reader says of a last record left unfinished after `line`, which the next writer removes."""
    return (
        f"{ledger.truncated(line, path)}: its last record is unfinished, most likely from "
        "an interrupted send, and the next send, join or open removes it"
    )


def status(here, location=None):
    """Where the bag stands, as the status line says, or that there is no ledger yet, of
    the ledger at `location` (default: here's)."""
    location = location or locate(here)
    with _ledger(here, location) as bag:
        return not_there(location) if bag.fd is None else status_line(bag, location)


def status_line(bag, location):
    """One line for the human: the ledger (and which repository's, or that POSTBAG_LEDGER
    names it), the exchange, and who has joined since when."""
    exchange = bag.exchange()
    if exchange.barred == NOT_OPENED:
        state = "no exchange opened"
    else:
        state = f"exchange of {counted(exchange.granted, 'letter')}, {exchange.sent} sent, "
        state += STANDING.get(exchange.barred) or f"{exchange.left} left"
        state += "".join(f", {s.standing}" for s in SWITCHES if s.set_in(exchange.switches))
    peers = [_joined_words(peer, joined) for peer, joined in bag.latest_joins().items()]
    return f"{ledger_called(location)}: {state}; {', '.join(peers)}"


def _joined_words(peer, joined):
    """How the status line says when `peer` joined, and from where, or that it has not."""
    if joined is None:
        return f"{peer} has not joined"
    return f"{peer} joined {one_line(joined['at'])}" + one_line(_from(joined))


def ledger_called(location):
    """The ledger at `location` as a status line names it: its path, and why it is that one."""
    if location.repository is not None:
        return f"ledger {location.path}, of the repository {location.repository.main_tree}"
    return f"ledger {location.path}" + (", which POSTBAG_LEDGER names" if location.named else "")


def _is_latest(joined, door):
    """Whether `door` (with how it joined) is what `joined`, a peer's latest join, recorded."""
    return joined is not None and {k: v for k, v in joined.items() if k not in JOIN_FIELDS} == door


def _ledger(here, location, **options):
    """The ledger at `location`, told of the sandbox around this process, and of the
    repository whose records it must hold."""
    serves = location.repository
    bag = ledger.Ledger(location.path, sandbox=sandbox_of(here.env), clock=here.clock, serves=serves, **options)
    if options.get("write") and bag.fd is not None and not (location.named or location.chosen):
        keep_out_of_git(os.path.dirname(location.path))
    return bag


def _write_record(bag, kind, **fields):
    try:
        bag.append(kind, **fields)
    except OSError as error:
        raise Refusal(f"cannot write the ledger ({error.strerror})") from None
