"""The two peers, as the environment tells their sessions apart: each room's package
(claude, codex), whose __init__ imports nothing, in the ledger's order. What loads fast
(a human's verb refused in a session) and what lies below the rooms (the ledger's
records) asks here; what postbag asks of a peer's door and records, it asks of its room
(peers.py). This is the one list of the peers."""

from postbag import claude, codex

SESSIONS = {claude.NAME: claude, codex.NAME: codex}
PEERS = tuple(SESSIONS)  # the ledger's names for the peers, in its order
# The variables that mark a shell as living inside an agent's session, in the order a
# refusal names them: every session's door variables, then what else marks one.
VARIABLES = (
    *(name for each in SESSIONS.values() for name in each.DOOR_VARIABLES),
    *(name for each in SESSIONS.values() for name in each.MARKS),
)


def other(peer):
    return next(name for name in PEERS if name != peer)


def inside(peer, env):
    """Whether the shell runs inside `peer`'s own session."""
    return SESSIONS[peer].inside(env)


def whose(env):
    """The peer whose session the shell runs in, or None."""
    return next((peer for peer in PEERS if inside(peer, env)), None)


def door_fields(peer):
    """The fields of a join record that reach `peer`'s session, which no output shows."""
    return SESSIONS[peer].DOOR_FIELDS


def is_session_variable(name):
    """Whether `name` belongs to either vendor's session: none may reach the other's process."""
    return any(each.is_session_variable(name) for each in SESSIONS.values())


def for_a_child(env):
    """`env` less every vendor session variable and the ledger's path, for a vendor's
    program a door runs: a token must not reach the other vendor."""
    return {name: value for name, value in env.items() if name != "POSTBAG_LEDGER" and not is_session_variable(name)}
