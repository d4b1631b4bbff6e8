"""`send`: the knock on the recipient's door, then the letter recorded, under the ledger's lock; only from the
session joined for the sender's side, and only to a session that works in the ledger's repository."""

from postbag import contract
from postbag.contract import door_fields
from postbag.escape import masked
from postbag.exchange import CLOSED, SPENT
from postbag.location import require_works_in
from postbag.refusal import Refusal
from postbag.vendors import LETTER_MOST, room
from postbag.verbs.bag import ledger_at, which_ledger, write_record
from postbag.verbs.join import came_from, is_latest
from postbag.words import Done


def _refuse_barred(exchange, where):
    """Refuse a send the exchange takes no letter for, in 1.0's words; where no exchange is open in a ledger other
    than the default, they say which, and for a repository's, what the human runs and where."""
    if exchange.barred == CLOSED:
        raise Refusal(contract.CLOSED_BY_THE_HUMAN)
    if exchange.barred == SPENT:
        raise Refusal(contract.LETTERS_SPENT)
    if where.repository is not None:
        raise Refusal(
            f"no exchange is open in the ledger of the repository {where.repository.main_tree} (the human runs "
            "postbag open there)"
        )
    if where.is_default:
        raise Refusal(contract.NO_EXCHANGE)
    raise Refusal(f"{contract.NO_EXCHANGE} ({where.words()})")


def _refuse_unjoined(recipient, where):
    if where.is_default:
        raise Refusal(contract.not_joined(recipient))
    raise Refusal(f"{contract.not_joined(recipient)} ({where.words()})")


def send(here, sender, recipient, body, door, *, location, join=None, handed_over=None):  # noqa: PLR0913
    """Knock on `recipient`'s door with `body`, then record the letter in the ledger at `location` (a
    location.Location); the letter's reply command starts this postbag as `here` was started. `handed_over` is
    called once the door has the letter, when nothing may interrupt the rest. `door` is the sender's: its own
    session's (vendors.session_door), or the one an MCP call comes from, whose `join` (the fields its join
    records) is recorded first where no session of its side has joined, or this one joins afresh."""
    from postbag import envelope  # a send's alone: read and receipts need none of it

    envelope.check_body(body, LETTER_MOST)
    with ledger_at(here, location, write=True) as bag:
        exchange = bag.exchange()
        if exchange.barred:
            _refuse_barred(exchange, location)
        joins = bag.latest_joins((recipient, sender))
        joined = joins[recipient]
        if joined is None:
            _refuse_unjoined(recipient, location)
        _require_the_joined_session(sender, joins[sender], door, location)
        recipient_room = room(recipient, here, exchange)
        if not _works_here_as_recorded(joined, location):
            directory = joined.get("cwd") if type(joined.get("cwd")) is str else recipient_room.directory(joined)
            require_works_in(location, directory, recipient, here)
        said = []  # what the send says, clause by clause
        if join is not None and not is_latest(joins[sender], door):  # its first, or a fresh word of it
            write_record(bag, "join", peer=sender, **join)
            said.append(contract.joined(sender))
        number, left = bag.next_number, exchange.left - 1
        tool = recipient_room.SEND_TOOL if joined.get("via") == "mcp" else None
        text = envelope.wrap(number, sender, body, here, last=left == 0, ledger=location, send_tool=tool)
        delivery = recipient_room.delivery(joined)  # reads the recipient's records around the knock
        try:
            delivery.knock(text, bag.sandbox)
            if handed_over is not None:
                handed_over()
            try:
                letter = bag.append("letter", **{"from": sender, "to": recipient, "body": body}, **delivery.recorded())
            except OSError as error:
                raise Refusal(
                    f"{contract.not_recorded(number, recipient)} ({error.strerror}); "
                    f"do not resend before checking {recipient}'s session"
                ) from None
        except Refusal as refused:
            delivery.finish()  # what it reads ends before the refusal does: no thread outlives it into shutdown
            # A client's own words may quote a door field: each one the ledger holds is hidden.
            secrets = bag.door_values() | {value for value in door.values() if type(value) is str}
            raise Refusal(masked(str(refused), secrets), refused.fix) from None
    said += [contract.delivered(number, recipient, left), _note(delivery, letter)]
    return Done("; ".join(filter(None, said)), *bag.news, which_ledger(bag, location))


def _require_the_joined_session(peer, joined, door, where):
    """Refuse a send from a session of `peer`'s side, behind `door`, other than the one
    `joined` last; where none has, any may send, as in 1.0."""
    if joined is None:
        return
    if all(joined.get(field) == door.get(field) for field in door_fields(peer)):
        return
    raise Refusal(
        f"this {peer} session is not the one joined for {peer} in {where.words()}: the {peer} session that joined at "
        f"{joined['at']}{came_from(joined)} is, and letters to {peer} reach it; to take the door, this session joins "
        f"(postbag join {peer}, or the join tool), and letters to {peer} then come here"
    )


def _works_here_as_recorded(joined, where):
    """Whether the join `joined` records its session as working in the repository whose ledger `where` is
    (outside any, for the default); a ledger named by path serves anyone's. False where the join does not say."""
    if where.named or where.chosen:
        return True
    recorded = joined.get("repository")
    if type(recorded) is dict:
        return where.repository is not None and where.repository.is_recorded_as(recorded)
    return "repository" in joined and recorded is None and where.repository is None


def _note(delivery, letter):
    """What a send adds once `letter` is recorded, from what its delivery found; None where
    that fails, for the letter is delivered and must be said to be."""
    try:
        return delivery.note(letter)
    except Exception:
        return None
    finally:
        delivery.finish()
