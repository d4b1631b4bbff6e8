"""The two peers, each a room of its own (claude.py, codex.py): what postbag asks of a
peer, it asks of its room through this table, never by branching on the peer's name.

Every room offers the same: NAME; DOOR_VARIABLES or VARIABLES, and is_session_variable,
inside and door_of_session (its session, from the environment); knock (its door);
SEND_TOOL (its MCP door's send tool, as its client names it); receipt, reachability and
look_beside (what its records say of a letter, of its door now, and around a knock).
"""

from postbag import claude, codex

ROOMS = {room.NAME: room for room in (claude, codex)}  # in the order of PEERS, the ledger's names
# The variables that mark a shell as living inside an agent's session, in the order a
# refusal names them: the presence of any one, even empty, keeps the human's verbs out.
SESSION_VARIABLES = (*claude.DOOR_VARIABLES, *codex.VARIABLES, *claude.MARKS)


def room(peer):
    return ROOMS[peer]


def other(peer):
    return next(name for name in ROOMS if name != peer)


def is_session_variable(name):
    """Whether `name` belongs to either vendor's session: none may reach the other's process."""
    return any(room.is_session_variable(name) for room in ROOMS.values())


def for_a_child(env):
    """`env` less every vendor session variable and the ledger's path, for a vendor's
    program a door runs: a token must not reach the other vendor."""
    return {name: value for name, value in env.items() if name != "POSTBAG_LEDGER" and not is_session_variable(name)}
