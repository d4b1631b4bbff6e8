"""The exact text a recipient sees: the letter, wrapped in the one command that answers it.

The envelope is the whole protocol. An agent that has never heard of postbag learns from
it who wrote, and how to reply or that it must not.
"""

import os

from postbag import wording as W
from postbag.escape import shell_word
from postbag.processes import which
from postbag.refusal import Refusal

# Claude Code tells its model something like it of every peer message; Codex says nothing.
NO_AUTHORITY = W.NO_AUTHORITY


def check_body(body, most):
    """Refuse a body no door should carry: one longer than `most` bytes among them."""
    if not body.strip():  # as 1.0: whitespace alone is no letter
        raise Refusal(W.NEEDS_TEXT)
    if "\0" in body:
        raise Refusal(W.NO_NUL)
    try:
        size = len(body.encode())
    except UnicodeEncodeError:
        raise Refusal(W.UNDECODABLE) from None
    if size > most:
        raise Refusal(W.TOO_LONG.format(most=most, size=size))


def heading(number, sender):
    """How the envelope of letter `number` from `sender` begins: receipts know it by this."""
    return W.HEADING.format(number=number, sender=sender)


def wrap(number, sender, body, *, last, command, send_tool=None):  # noqa: PLR0913
    """The envelope around letter `number`: who wrote it, and how to answer it, or that it
    must not be answered. A recipient that joined through the MCP server answers with
    `send_tool`, as its client names the door's send tool; any other with `command`, the
    words that run this same postbag on this same ledger (reply_command)."""
    if last:
        how = W.LAST
    elif send_tool is None:
        how = W.REPLY_WITH_COMMAND.format(command=command, sender=sender)
    else:
        how = W.REPLY_WITH_TOOL.format(tool=send_tool)
    return W.ENVELOPE.format(heading=heading(number, sender), how=how, no_authority=NO_AUTHORITY, body=body)


def reply_command(program, ledger_path):
    """The command that runs this same postbag (`program`: program_of's words) on this same
    ledger (`ledger_path`; None: the default)."""
    command = " ".join(program)
    if ledger_path is None:
        return command
    return W.ON_THE_LEDGER.format(path=shell_word(ledger_path), command=command)


def program_of(here, *, quoted=True):
    """The words that start the program now running, as `here` was started (the Python
    executable, the path it ran, its argv[0], and whether it ran as `python -m postbag`):
    `postbag` when the PATH of `here` finds this very program under that name, else its
    own path, quoted for a shell; unless `quoted`, always its own path, each word as it
    is, as an argv."""
    executable, path, as_module = here.started
    quote = shell_word if quoted else str
    if as_module:
        return [quote(executable), "-m", "postbag"]
    program = here.absolute(path)
    found = which("postbag", here.env.get("PATH", os.defpath))
    if quoted and found is not None and os.path.realpath(found) == os.path.realpath(program):
        return ["postbag"]
    if os.access(program, os.X_OK):
        return [quote(program)]
    return [quote(executable), quote(program)]
