"""Codex's room (peers.py says how a room is laid out): here, how its thread is told from
the environment; its door, knock and records are in door.py."""

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
