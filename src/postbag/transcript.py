"""The ledger as `read` shows it: aligned lines for people, JSON Lines for scripts.

Bodies are written by agents and may hold anything, so every character a terminal would
act on is shown as an escape instead of reaching the screen.
"""

import json

# Every field but the doors (socket, token, thread): they unlock a session, so they stay
# in the ledger and never reach any output.
_SHOWN_FIELDS = ("n", "at", "kind", "peer", "limit", "from", "to", "body")

# Bidirectional embeddings, overrides and isolates reorder what a terminal draws.
_BIDI = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))


def is_unsafe(char):
    """Whether a terminal would act on `char` instead of drawing it (newline and tab aside)."""
    code = ord(char)
    return code < 0x20 or 0x7F <= code <= 0x9F or code in _BIDI or 0xD800 <= code <= 0xDFFF


def visible(text):
    """`text` with every unsafe character but newline and tab written as an escape."""
    if text.isprintable():
        return text
    return "".join(_escape(c) if c not in "\n\t" and is_unsafe(c) else c for c in text)


def _escape(char):
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def human_line(record):
    """One record as `read` prints it: a heading, then any body indented by six spaces."""
    kind = record["kind"]
    if kind == "letter":
        body = record["body"]
        if not body.isprintable():  # printable text needs no escape and holds no newline
            body = visible(body).replace("\n", "\n      ")
        return f"{record['n']:>4}  {record['at']}  letter {record['from']} -> {record['to']}\n      {body}\n"
    detail = record["peer"] if kind == "join" else f"{record['limit']} letters"
    return f"{record['n']:>4}  {record['at']}  {kind:<6} {detail}\n"


def json_line(record):
    """One record as `read --json` prints it: known fields only, never a door."""
    shown = {field: record[field] for field in _SHOWN_FIELDS if field in record}
    return json.dumps(shown) + "\n"
