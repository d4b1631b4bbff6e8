"""A ledger's records: what a well-formed one is, how a line becomes one, and how one is written.

The rules are 1.0's, and a little stricter where 1.0 let through what no door or output
can carry: a door field with a NUL, or a lone surrogate in any field.
"""

from postbag import contract, json_values
from postbag.contract import PEERS, door_fields
from postbag.doors import is_door_field, is_text
from postbag.refusal import Refusal

_JSON_SPACE = " \t\r"  # what json.loads allows around a value, less the newline that ends a line


def line_of(record):
    """The bytes of `record`'s line, as 1.0 wrote them: ASCII, for json escapes the rest."""
    return (json_values.dumps(record) + "\n").encode()


def line_start(number):
    """How line_of begins the line of record `number`: it marks an unfinished last line as one postbag was appending."""
    return line_of({"n": number})[: -len(b"}\n")] + b", "


# What a person does about a damaged ledger: the one way to start afresh without an editor.
AFRESH = "run postbag open --afresh to set it aside, whole, and start a new one, which both agents then join"


def not_a_record(number, path):
    return Refusal(f"{contract.line_not_a_record(number)} ({path})", AFRESH)


def from_bytes(data, number, path):
    """The records of the bytes `data`, whose first line is line `number`, validated in order: the first line that
    is not a record is refused by its number."""
    try:
        text = data.decode()
    except UnicodeDecodeError as error:
        cut = data.rfind(b"\n", 0, error.start) + 1  # where the bad line starts
        if cut:
            yield from from_bytes(data[:cut], number, path)
        raise not_a_record(number + data.count(b"\n", 0, cut), path) from None
    at, size, find_end, scan = 0, len(text), text.index, _scan_record
    escapes = _may_escape_a_surrogate(text)  # once for all, not once a line
    while at < size:
        end = find_end("\n", at)
        # The common line, a record from its first character to its last, is taken here without a call; anything
        # else, and any line of a text that may escape a surrogate, gets parse_record(), which decides alike.
        stop = None
        if not escapes:
            try:
                record, stop = scan(text, at)
            except (*json_values.NOT_JSON, RecursionError):
                pass
        if stop != end or not is_record(record, number):
            record = parse_record(text, at, end, number, escapes)
            if record is None:
                raise not_a_record(number, path)
        yield record
        at, number = end + 1, number + 1


def parse_record(text, start, end, number, escapes=True):
    """The record that fills text[start:end], JSON spaces aside, and is well-formed as line `number`; or None.
    `escapes` false says the text holds no escape a surrogate could come from."""
    while start < end and text[start] in _JSON_SPACE:
        start += 1
    try:
        record, stop = _scan_record(text, start)
    except (*json_values.NOT_JSON, RecursionError):
        return None
    if (stop != end and text[stop:end].strip(_JSON_SPACE)) or not is_record(record, number):
        return None
    # A lone surrogate can only come from a \ud800-\udfff escape; no door and no output
    # can carry one, so such a record is not valid text.
    if escapes and _may_escape_a_surrogate(text, start, end) and not is_text(record):
        return None
    return record


def is_record(record, number):
    """Whether `record` is well-formed as line `number`: 1.0's rules, and door fields that a door can carry."""
    if type(record) is not dict:
        return False
    n, at, kind = record.get("n"), record.get("at"), record.get("kind")
    if n != number or type(n) is not int or type(at) is not str or at == "":
        return False
    shape = _SHAPES.get(kind) if type(kind) is str else None
    return shape is not None and shape(record)


def _is_letter(record):
    sender, recipient, body = record.get("from"), record.get("to"), record.get("body")
    peers_differ = sender in PEERS and recipient in PEERS and sender != recipient
    return peers_differ and type(body) is str and body != ""


def _is_open(record):
    limit = record.get("limit")
    return type(limit) is int and limit >= 1


def _is_join(record):
    peer = record.get("peer")
    return peer in PEERS and all(type(v := record.get(f)) is str and is_door_field(v) for f in door_fields(peer))


# close: the human's brake carries nothing but its number, time and kind
_SHAPES = {"letter": _is_letter, "open": _is_open, "join": _is_join, "close": lambda record: True}


def _may_escape_a_surrogate(text, start=0, end=None):
    """Whether text[start:end] holds an escape a surrogate could come from, without a copy."""
    return text.find("\\ud", start, end) >= 0 or text.find("\\uD", start, end) >= 0


# json's own scanner parses one value in place, where the line starts, with no copy of the line and none of
# json.loads's wrapping. NaN and Infinity are not JSON, so they are refused too.
_scan_record = json_values.scanner(constants=False)
