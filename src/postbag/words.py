"""What a person or an agent reads, made in one place for the command line and the MCP server alike, and the
writing of it, which neither a closed stream nor a character the terminal's encoding lacks turns into a failure.

Bodies are written by agents and may hold anything, so every character a terminal would act on is shown as an
escape instead of reaching the screen (escape.py).
"""

from postbag import json_values
from postbag.escape import LINE_BREAKS, in_lines, one_line, shown
from postbag.refusal import say, silence, told

# What `read` shows of a record: none of the door's fields (socket, token, thread) or the Claude session (and its
# process) a join names, which lead into a session and so stay in the ledger, and none of what a room keeps with a
# record for itself (an open's switches, a letter's `recipient_said`). `via` says how a peer joined ("mcp": through
# the MCP server), and `cwd` the directory its session works in.
_SHOWN_FIELDS = ("n", "at", "kind", "peer", "via", "cwd", "limit", "from", "to", "body")
INDENT = "      "
BATCH = 256  # lines written at once: one write of bytes costs less than one of text a line


class Done:
    """What a verb did: `said`, its line (stdout, or a tool's text), and `news` beside it (stderr, or more lines)."""

    __slots__ = ("news", "said")

    def __init__(self, said, *news):
        self.said, self.news = said, [line for line in news if line]


def counted(number, noun):
    """`number` and `noun`, the noun plural but for one: 1 letter, 3 letters."""
    return f"{number} {noun}" + ("" if number == 1 else "s")  # the number as 1.0 wrote it


def body_lines(body):
    """A body as 1.0's `read` printed it: each line splitlines() gives indented by six spaces, unsafe characters
    escaped. Cost and memory grow with the body's length, never with its shape."""
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
    return json_values.dumps(shown) + "\n"


def receipt_line(letter, receipt):
    """Where `letter` stands, as `receipts` says it."""
    return f"letter {letter['n']} {letter['from']} -> {letter['to']}: {receipt.words()}"


def receipt_json(letter, receipt):
    """The same, as `receipts --json` says it."""
    shown = {field: letter[field] for field in ("n", "at", "from", "to")}
    return json_values.dumps({**shown, "receipt": receipt.as_json()})


def check_line(check, as_json=False):
    """A line of doctor: its state, what it looked at, and what it found; or, `as_json`, the same as JSON."""
    if as_json:
        return json_values.dumps({"check": check.what, "state": check.state, "said": check.finding})
    return f"{check.state:<5} {check.what}: {check.finding}"


def tool_text(done):
    """What a verb did (a Done), as an MCP tool answers: its words, then its news."""
    return "\n".join([*map(shown, done.said.split("\n")), *map(told, done.news)])


def show(done, stdout, stderr):
    """What a verb did (a Done) on `stdout`, and the news beside it on `stderr`."""
    tell(done.said, stdout, stderr)
    for news in done.news:
        say(news, stderr)


def tell(text, stdout, stderr):
    """Write `text`, each of its lines escaped, on `stdout`, whatever happens to stdout: a reader that went away must
    not turn a recorded letter into a failure that invites a resend; what stdout cannot take goes to `stderr`."""
    said = "\n".join(map(shown, text.split("\n")))
    try:
        if stdout is None:
            raise ValueError("no stdout")
        stdout.flush()
        stdout.buffer.write((said + "\n").encode(stdout.encoding or "utf-8", "backslashreplace"))
        stdout.buffer.flush()
    except (OSError, ValueError, AttributeError):
        if stdout is not None:
            silence(stdout)
        say(said, stderr)


def stream(lines, stdout, each=False):
    """Write `lines` to `stdout` as they come, in batches of bytes, or `each` at once; a character the terminal's
    encoding lacks is escaped, not fatal. BrokenPipeError where the reader has gone; a Refusal `lines` raises, once
    the lines before it are written."""
    if stdout is None:  # started with stdout closed: there is nowhere to show it
        for _ in lines:  # a follower still follows, and still stops where the file breaks
            pass
        return
    out, encoding, batch = stdout.buffer, stdout.encoding, []
    try:
        for line in lines:
            batch.append(line)
            if each or len(batch) >= BATCH:
                out.write("".join(batch).encode(encoding, "backslashreplace"))
                batch = []
                if each:
                    out.flush()
    finally:  # what came before a line that is no record is shown all the same
        if batch:
            out.write("".join(batch).encode(encoding, "backslashreplace"))
        out.flush()
