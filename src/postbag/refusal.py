"""A refusal, the error every verb raises where it declines to act (JSON-RPC's errors stand beside it in jsonrpc.py),
and the one way anything postbag says reaches its reader: a line on stderr, or the text of an MCP tool's result.

Every module may raise `Refusal` without importing any policy. A message can carry a path or a value from the
environment, so it is escaped. The stream written to is given, never taken from the process.
"""

from postbag.contract import STOP


class Refusal(Exception):
    """A verb declined to act. The message says why; `fix`, where given, what a person does about it."""

    def __init__(self, why, fix=None):
        super().__init__(why)
        self.fix = fix


def stop(refusal, stderr, *, to_the_person=False):
    """Show a refusal on `stderr`, the way every refusal is shown, and return the exit status."""
    say(to_the_persons_ears(refusal) if to_the_person else sentence(refusal), stderr)
    return 1


def sentence(refusal):
    """A refusal as an agent always gets it: it tells the agent to stop, so a failure never turns into a retry loop."""
    return f"{refusal}{STOP}"


def to_the_persons_ears(refusal):
    """A refusal in a person's own terminal, or in doctor's check: why, and what to do where the why does not say."""
    return f"{refusal}: {refusal.fix}" if refusal.fix else str(refusal)


def told(message):
    """`message` as postbag tells it anywhere: after its name, on one line, escaped, each overlong word cut short."""
    from postbag.escape import shown  # here: the lightest refusal, of a human's verb, loads no more than it

    return f"postbag: {shown(message)}"


def say(message, stderr):
    """One line on `stderr` (None: no one to tell) that is not a refusal, but something the reader must know."""
    if stderr is None:
        return
    try:
        stderr.write(told(message) + "\n")
        stderr.flush()
    except (OSError, ValueError):
        silence(stderr)


def silence(stream):
    """Point `stream`'s descriptor at /dev/null once its reader has gone: what it still buffers would otherwise fail
    Python's last flush, which turns any exit status into 120."""
    import os

    try:
        fd = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        if devnull != fd:  # else the descriptor was closed, and now it is /dev/null
            os.dup2(devnull, fd)
            os.close(devnull)
    except (OSError, ValueError):
        pass
