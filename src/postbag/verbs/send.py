"""`send`: the knock on the recipient's door, then the letter recorded, under the ledger's
lock; only from the session joined for the sender's side, and only to a session that
works in the ledger's repository."""

import os

from postbag import contract
from postbag.contract import door_fields
from postbag.escape import masked
from postbag.exchange import CLOSED, SPENT
from postbag.refusal import Refusal
from postbag.vendors import LETTER_MOST, room
from postbag.verbs.bag import directory_fields, ledger_at, repository_fields, which_ledger, write_record
from postbag.verbs.join import came_from, is_latest
from postbag.words import Done


def _refuse_barred(exchange, where):
    """Refuse a send the exchange takes no letter for: 1.0's words, and, where the ledger is
    not the default, which ledger, and for a repository's, what the human runs and where."""
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


def send(here, sender, recipient, body, door, *, location, joins_first=False, handed_over=None):  # noqa: PLR0913
    """Knock on `recipient`'s door with `body`, then record the letter in the ledger at
    `location` (a location.Location); the letter's reply command starts this postbag as
    `here` was started (envelope.program_of). `handed_over` is called once the door has
    the letter, when nothing may interrupt the rest.

    Only the session joined for the sender's side may send: `door` is the sender's, its
    own session's (vendors.session_door), or the one an MCP call comes from, which
    `joins_first` where no session of its side has. A letter goes only to a session that
    works in the ledger's repository (outside any, for the default ledger)."""
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
        _require_working_here(recipient, joined, location, here, recipient_room)
        said = []  # what the send says, clause by clause
        if joins_first and not is_latest(joins[sender], door):  # its first, or a fresh word of it
            write_record(bag, "join", peer=sender, **door, **directory_fields(here), **repository_fields(location))
            said.append(contract.joined(sender))
        number, left = bag.next_number, exchange.left - 1
        command = envelope.reply_command(envelope.program_of(here), location.path if location.named else None)
        tool = recipient_room.SEND_TOOL if joined.get("via") == "mcp" else None
        text = envelope.wrap(number, sender, body, last=left == 0, command=command, send_tool=tool)
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


def _require_working_here(peer, joined, where, here, recipient_room):
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
    directory = joined.get("cwd") if type(joined.get("cwd")) is str else recipient_room.directory(joined)
    if directory is None or not os.path.isdir(directory):
        raise Refusal(
            f"{peer}'s join does not show where its session works (a join from before each repository had a ledger "
            f"of its own names no folder, or its folder is gone), so no letter goes to it: {peer} joins again from "
            "its session"
        )
    from postbag.repository import containing  # only for a join from before joins named their repository

    found = containing(directory, here)
    if found != where.repository:
        works = "outside any repository" if found is None else f"in the repository {found.main_tree}"
        raise Refusal(
            f"{peer}'s session works {works}, not in {where.words()}, so no letter from here goes to it: a {peer} "
            "session that works here joins, and letters reach it"
        )


def _note(delivery, letter):
    """What a send adds once `letter` is recorded, from what its delivery found; None where
    that fails, for the letter is delivered and must be said to be."""
    try:
        return delivery.note(letter)
    except Exception:
        return None
    finally:
        delivery.finish()
