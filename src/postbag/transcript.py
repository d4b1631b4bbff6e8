"""The ledger as `read` shows it: aligned lines for people, JSON Lines for scripts.

Bodies are written by agents and may hold anything, so every character a terminal would
act on is shown as an escape instead of reaching the screen. The same escaping serves
every other string postbag prints: paths, timestamps, values from the environment.
"""

import json

# Every field but the doors (socket, token, thread): they unlock a session, so they stay
# in the ledger and never reach any output.
_SHOWN_FIELDS = ("n", "at", "kind", "peer", "limit", "from", "to", "body")

INDENT = "      "
# What str.splitlines() breaks a line at, as 1.0's `read` laid bodies out with it.
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# Bidirectional embeddings, overrides and isolates reorder what a terminal draws.
_BIDI = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
_UNSAFE = (*range(0x20), *range(0x7F, 0xA0), *_BIDI, 0x2028, 0x2029, *range(0xD800, 0xE000))
_tables = {}


def _escape(code):
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _table(kind):
    """The str.translate table for `kind`: "line" escapes every unsafe character, "body"
    keeps tabs and turns line breaks into indented new lines. Built when first needed."""
    table = _tables.get(kind)
    if table is None:
        table = {code: _escape(code) for code in _UNSAFE}
        if kind == "body":
            del table[ord("\t")]
            table.update({ord(c): "\n" + INDENT for c in _LINE_BREAKS})
        _tables[kind] = table
    return table


def has_unsafe(text):
    return one_line(text) != text


def one_line(text):
    """`text` with every character a terminal would act on, newline and tab included,
    written as an escape: it can never start a line of its own."""
    if text.isprintable():  # C speed, and true of almost everything
        return text
    return text.translate(_table("line"))


def body_lines(body):
    """A body as 1.0's `read` printed it, the lines that splitlines() gives each indented
    by six spaces, with unsafe characters escaped. Cost and memory grow with the body's
    length, never with its shape."""
    if body.isprintable():  # one line, nothing to escape: the commonest case
        return INDENT + body
    if body.replace("\n", "").replace("\t", "").isprintable():  # several lines, nothing to escape
        text = body[:-1] if body.endswith("\n") else body
        return INDENT + text.replace("\n", "\n" + INDENT)
    text = body.replace("\r\n", "\n")
    if text[-1] in _LINE_BREAKS:  # splitlines() makes no empty line after the last break
        text = text[:-1]
    return INDENT + text.translate(_table("body"))


def human_line(record):
    """One record as `read` prints it: a heading, then a letter's body."""
    kind = record["kind"]
    if kind == "letter":  # most records: one format, no heading built apart
        number = str(record["n"]).rjust(4)  # cheaper than a width in the format, which is parsed each time
        at, sender, recipient = one_line(record["at"]), record["from"], record["to"]
        return f"{number}  {at}  letter {sender} -> {recipient}\n{body_lines(record['body'])}\n"
    heading = f"{record['n']:>4}  {one_line(record['at'])}  {kind:<6}"
    if kind == "join":
        return f"{heading} {record['peer']}\n"
    if kind == "open":
        return f"{heading} {record['limit']} letters\n"
    return f"{heading} by the human\n"  # close


def json_line(record):
    """One record as `read --json` prints it: known fields only, never a door."""
    shown = {field: record[field] for field in _SHOWN_FIELDS if field in record}
    return json.dumps(shown) + "\n"
