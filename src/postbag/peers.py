"""The two peers, each a room of its own (the packages claude and codex): what postbag
asks of a peer, it asks of its room through these tables, never by branching on the
peer's name. A room holds everything postbag knows of its vendor, so a client release
changes a file of that room alone. Its package's __init__.py imports nothing: the human's
verbs, refused in a session before the rest of postbag loads, read its variables there.

Every room offers the same. Its package: NAME, is_session_variable and inside (its
session, from the environment). Its door module: door_of_session (what join records);
knock (its door); SEND_TOOL (its MCP door's send tool, as its client names it); receipt,
reachability and look_beside (what its records say of a letter, of its door now, and
around a knock).
"""

from postbag import claude, codex
from postbag.claude import door as claude_door
from postbag.codex import door as codex_door

SESSIONS = {claude.NAME: claude, codex.NAME: codex}  # in the order of PEERS, the ledger's names
ROOMS = {claude.NAME: claude_door, codex.NAME: codex_door}


def session(peer):
    """How `peer`'s session is told from the environment."""
    return SESSIONS[peer]


def room(peer):
    """`peer`'s door, and its records."""
    return ROOMS[peer]


def other(peer):
    return next(name for name in ROOMS if name != peer)


def is_session_variable(name):
    """Whether `name` belongs to either vendor's session: none may reach the other's process."""
    return any(each.is_session_variable(name) for each in SESSIONS.values())


def for_a_child(env):
    """`env` less every vendor session variable and the ledger's path, for a vendor's
    program a door runs: a token must not reach the other vendor."""
    return {name: value for name, value in env.items() if name != "POSTBAG_LEDGER" and not is_session_variable(name)}
