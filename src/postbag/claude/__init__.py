"""Claude Code's room. Here, the light part of its contract (vendors.py says what it holds). This file imports
nothing, so that a human's verb refused in a session loads no more of the room than this; the rest of the room
is in the modules beside it (CONCEPT.md's table says what each holds)."""

NAME = "claude"
CLIENT = "Claude Code"  # its vendor's name for the program
PROGRAM = "claude"  # the program's name, as a person types it
SESSION_NAME = "a Claude Code session"  # what one of its sessions is called, after "a" or "an"
FILES = "Claude Code's transcript"  # the files receipts read of a session, as help names them
DELIVERED = "the socket accepted it"  # what "delivered" means at its door
VARIABLES = {}  # postbag's own variables for this vendor, and what each names
SOCKET = "CLAUDE_CODE_MESSAGING_SOCKET"
TOKEN = "CLAUDE_CODE_MESSAGING_TOKEN"
SESSION = "CLAUDE_CODE_SESSION_ID"
# The door's variables, then what marks a Claude session even without them: Claude Code unsets its inbox
# variables in a session whose cross-session messaging is off (a --restricted session, or the feature off).
DOOR_VARIABLES = (SOCKET, TOKEN)
MARKS = ("CLAUDECODE", SESSION)
LETTER_MOST = None  # its inbox takes a letter of any length postbag sends


SWITCHES = ()  # no switch of the human's is its own
SANDBOX = None  # it marks no command as run inside a sandbox of its own


def is_session_variable(name):
    """Whether `name` is one Claude Code sets for its session: a family, not a list a new variable could slip past."""
    return name == "CLAUDECODE" or name.startswith("CLAUDE_CODE_")


def inside(env):
    """Whether the shell whose variables are `env` runs inside a Claude Code session that has its inbox."""
    return bool(env.get(SOCKET)) and bool(env.get(TOKEN))


def door_in(env):
    """The door fields of the session whose variables are `env`, as a join records them; else None."""
    return {"socket": env[SOCKET], "token": env[TOKEN]} if inside(env) else None


def without_an_inbox(env):
    """Whether `env` holds a Claude Code session's variables, with neither of its inbox's."""
    return any(env.get(name) for name in MARKS) and not (env.get(SOCKET) or env.get(TOKEN))
