"""Who may run which verb, decided by the variables each vendor exports into its sessions.

This is a guardrail against mixed-up roles, not authentication: any program of the same
user can set or unset these variables.
"""

import os
import sys

PEERS = ("claude", "codex")

CLAUDE_SOCKET = "CLAUDE_CODE_MESSAGING_SOCKET"
CLAUDE_TOKEN = "CLAUDE_CODE_MESSAGING_TOKEN"
CODEX_THREAD = "CODEX_THREAD_ID"
CODEX_SESSION = "CODEX_SESSION_ID"

# Every variable that marks a shell as living inside an agent's session. None of them may
# reach the other vendor's process, and the presence of any one keeps `open` out.
SESSION_VARIABLES = (
    CLAUDE_SOCKET,
    CLAUDE_TOKEN,
    CODEX_SESSION,
    CODEX_THREAD,
    "CLAUDECODE",
    "CLAUDE_CODE_SESSION_ID",
)

_HEX = frozenset("0123456789abcdefABCDEF")


class Refusal(Exception):
    """A verb declined to act. The message says why; `stop` adds the rest."""


def stop(refusal):
    """Show a refusal the one way every refusal is shown, and return the exit status.

    Every refusal ends by telling the agent to stop, so a failure never turns into a retry loop.
    """
    sys.stderr.write(f"postbag: {refusal}; stop and ask the human\n")
    return 1


def other(peer):
    return "codex" if peer == "claude" else "claude"


def inside(peer, env):
    """Whether the shell runs inside `peer`'s own session."""
    if peer == "claude":
        return bool(env.get(CLAUDE_SOCKET)) and bool(env.get(CLAUDE_TOKEN))
    return bool(env.get(CODEX_THREAD)) or bool(env.get(CODEX_SESSION))


def require_inside(peer, verb):
    if not inside(peer, os.environ):
        raise Refusal(f"{verb} is {peer}'s verb; run it inside a {peer} session")


def require_human():
    if any(name in os.environ for name in SESSION_VARIABLES):
        raise Refusal("open is the human's verb")


def door_of_this_session(peer):
    """The door fields `join` records for `peer`, read from its session."""
    env = os.environ
    if not inside(peer, env):
        raise Refusal(f"join {peer} from inside a {peer} session")
    if peer == "claude":
        return {"socket": os.path.abspath(env[CLAUDE_SOCKET]), "token": env[CLAUDE_TOKEN]}
    if CODEX_THREAD in env:
        # CODEX_SESSION_ID can name a root shared by sub-agent threads, so a thread id that
        # is present but malformed is refused rather than silently replaced by the root.
        thread = env[CODEX_THREAD]
        if not is_uuid(thread):
            raise Refusal(f"{CODEX_THREAD} is not a thread id")
        return {"thread": thread}
    return {"thread": env[CODEX_SESSION]}


def is_uuid(text):
    parts = text.split("-")
    return [len(part) for part in parts] == [8, 4, 4, 4, 12] and all(c in _HEX for c in "".join(parts))
