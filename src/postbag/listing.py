"""The ledger as `read` shows it: aligned lines for people, JSON Lines for scripts.

Bodies are written by agents and may hold anything, so every character a terminal would
act on is shown as an escape instead of reaching the screen (escape.py).
"""

import json

from postbag.escape import LINE_BREAKS, in_lines, one_line

# Every field but the doors (socket, token, thread) and the Claude session a join names:
# they lead into a session, so they stay in the ledger and never reach any output. `via`
# says how a peer joined ("mcp": through the MCP door).
_SHOWN_FIELDS = ("n", "at", "kind", "peer", "via", "limit", "from", "to", "body")
INDENT = "      "


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
    if text[-1] in LINE_BREAKS:  # splitlines() makes no empty line after the last break
        text = text[:-1]
    return INDENT + in_lines(text, INDENT)


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
