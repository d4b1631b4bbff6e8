"""Codex's room. Here, the light part of its contract (vendors.py says what it holds). This file imports nothing,
so that a human's verb refused in a session loads no more of the room than this; the rest is in the other modules."""

NAME = "codex"
CLIENT = "Codex"  # its vendor's name for the program
PROGRAM = "codex"  # the program's name, as a person types it
SESSION_NAME = "a Codex thread"  # what one of its sessions is called, after "a" or "an"
FILES = "Codex's queue and the thread's rollout"  # the files receipts read of a thread, as help names them
DELIVERED = "codex queue exited 0"  # what "delivered" means at its door
# postbag's own variables for this vendor, and what each names.
VARIABLES = {
    "POSTBAG_CODEX": "the codex binary, a path or a name on PATH (default: the ChatGPT app's, else codex on PATH)"
}
THREAD = "CODEX_THREAD_ID"
SESSION = "CODEX_SESSION_ID"
DOOR_VARIABLES = (SESSION, THREAD)  # what marks a Codex session, and names its door
MARKS = ()
# Linux passes at most 128 KiB in one argument, and `codex queue` takes the envelope as
# one: the longest letter leaves room for the heading and long paths inside it.
LETTER_MOST = 96 * 1024


def is_session_variable(name):
    """Whether `name` is a Codex session or thread variable: a family, not a list."""
    return name.startswith("CODEX_") and ("SESSION" in name or "THREAD" in name)


def inside(env):
    """Whether the shell whose variables are `env` runs inside a Codex session."""
    return bool(env.get(THREAD)) or bool(env.get(SESSION))


def door_in(env):
    """The door field of the thread whose variables are `env`, as a join records it; None outside a thread."""
    thread = env.get(THREAD) or env.get(SESSION)
    return {"thread": thread} if thread else None


# The human's switch for an exchange that this room honours (vendors.Switch says each word).
NO_WAKE = {
    "flag": "--no-wake",
    "field": "wake",
    "value": False,
    "help": "wake no Codex thread: letters to one nobody has loaded wait until a person resumes it",
    "said_at_open": "which wake no codex thread",
    "said_in_status": "waking no codex thread",
}
SWITCHES = (NO_WAKE,)
# What its sandbox keeps a command from, in a refusal's words (vendors.Sandbox says each).
SANDBOX = {
    "name": "Codex's sandbox",
    "allow_connecting": "The human can allow it with network access for the workspace sandbox "
    "(sandbox_workspace_write.network_access = true)",
    "allow_writing": "The human can add the ledger's directory to the sandbox's writable roots, or point "
    "POSTBAG_LEDGER at a path inside them",
    # It marks every command it runs: CODEX_SANDBOX names the macOS sandbox, and
    # CODEX_SANDBOX_NETWORK_DISABLED is set on both.
    "marks": ("CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_SANDBOX"),
}
