"""Codex, one of the two peers: its room, this package, holds everything postbag knows of
it. A Codex release that changes any of it changes a file here.

Here, what every command may need at once: how its thread is told from the environment.
The human's verbs, refused in a session before the rest of postbag loads, read these
names alone, so this file imports nothing. The door, its knock and its records are in
door.py.
"""

NAME = "codex"
THREAD = "CODEX_THREAD_ID"
SESSION = "CODEX_SESSION_ID"
VARIABLES = (SESSION, THREAD)  # what marks a Codex session


def is_session_variable(name):
    """Whether `name` is a Codex session or thread variable: a family, not a list."""
    return name.startswith("CODEX_") and ("SESSION" in name or "THREAD" in name)


def inside(env):
    """Whether the shell runs inside a Codex session."""
    return bool(env.get(THREAD)) or bool(env.get(SESSION))


def in_sandbox(env):
    """Whether this command runs inside Codex's sandbox, which marks every command it runs
    (CODEX_SANDBOX names the macOS sandbox; CODEX_SANDBOX_NETWORK_DISABLED is set on both)."""
    return bool(env.get("CODEX_SANDBOX_NETWORK_DISABLED") or env.get("CODEX_SANDBOX"))
