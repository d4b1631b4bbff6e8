"""Who may run which verb, decided by the variables each vendor exports into its sessions
(each room says which are its own: peers.py).

This is a guardrail against mixed-up roles, not authentication: any program of the same
user can set or unset these variables. Every function takes the environment it judges.
"""

from postbag import claude, codex
from postbag.peers import SESSION_VARIABLES, other, room
from postbag.refusal import Refusal

HUMAN_VERBS = ("open", "close")
# How to set up the MCP door, for a server that cannot tell whose session calls it.
REGISTER = (
    "register postbag mcp in Claude Code (claude mcp add) or in Codex's config.toml ([mcp_servers.postbag]), "
    "as README's Quick start shows, and call its tools from that session"
)


def inside(peer, env):
    """Whether the shell runs inside `peer`'s own session."""
    return room(peer).inside(env)


def require_inside(peer, verb, env):
    """Refuse `verb` outside `peer`'s session; inside the other peer's, say what it meant."""
    if inside(peer, env):
        return
    reason = f"{verb} is {peer}'s verb; run it inside a {peer} session"
    here = other(peer)
    if inside(here, env):
        reason += f" (this is a {here} session: to write to {peer}, run postbag send {peer})"
    raise Refusal(reason)


def require_human(verb, env):
    """Refuse `verb` where `env` (a mapping, or the set of its names) holds a session
    variable, naming each one found: its name only, for a value may be a token."""
    found = [name for name in SESSION_VARIABLES if name in env]
    if found:
        names = " and ".join([", ".join(found[:-1]), found[-1]] if len(found) > 1 else found)
        marks = "marks" if len(found) == 1 else "mark"
        raise Refusal(f"{verb} is the human's verb (this shell has {names}, which {marks} an agent's session)")


def require_human_first(argv, env):
    """Refuse the human's verbs inside a session before their arguments are read, so that
    whatever else the command line holds, the answer is the same; only help passes."""
    if argv[:1] and argv[0] in HUMAN_VERBS and "-h" not in argv and "--help" not in argv:
        require_human(argv[0], env)


def door_of_this_session(peer, env):
    """What `join` records for `peer`, read from its session: its door fields, and for a
    Claude session its id, by which its transcript is found."""
    return room(peer).door_of_session(env)


def caller_of_mcp(env, meta):
    """The peer whose session makes an MCP tool call, and its door. A Claude Code session
    is known by the inbox variables its MCP server inherits; a Codex thread by the
    threadId that Codex puts in each call's _meta, as it gives its servers no variables
    of the thread. Identity is never an argument the model could choose."""
    thread = codex.thread_of_call(meta)
    if thread is None and claude.without_an_inbox(env):
        raise Refusal(claude.NO_INBOX)
    if claude.inside(env):
        if thread is not None:
            raise Refusal(f"this MCP server sees both a Claude Code session and a Codex thread; {REGISTER}")
        return claude.NAME, claude.door_of_session(env)
    if thread is None:
        raise Refusal(f"this MCP server runs in neither a Claude Code session nor a Codex thread; {REGISTER}")
    return codex.NAME, codex.door_of_call(thread)
