"""Who may run which verb, decided by the variables each vendor exports into its sessions
(each room says which are its own: peers.py; the human's verbs are human.py's).

This is a guardrail against mixed-up roles, not authentication: any program of the same
user can set or unset these variables. Every function takes the environment it judges.
"""

from postbag import claude, codex
from postbag.claude import door as claude_door
from postbag.codex import door as codex_door
from postbag.peers import other, room, session
from postbag.refusal import Refusal

# How to set up the MCP door, for a server that cannot tell whose session calls it.
REGISTER = (
    "register postbag mcp in Claude Code (claude mcp add) or in Codex's config.toml ([mcp_servers.postbag]), "
    "as README's Quick start shows, and call its tools from that session"
)


def inside(peer, env):
    """Whether the shell runs inside `peer`'s own session."""
    return session(peer).inside(env)


def require_inside(peer, verb, env):
    """Refuse `verb` outside `peer`'s session; inside the other peer's, say what it meant."""
    if inside(peer, env):
        return
    reason = f"{verb} is {peer}'s verb; run it inside a {peer} session"
    here = other(peer)
    if inside(here, env):
        reason += f" (this is a {here} session: to write to {peer}, run postbag send {peer})"
    raise Refusal(reason)


def door_of_this_session(peer, env):
    """What `join` records for `peer`, read from its session: its door fields, and for a
    Claude session its id, by which its transcript is found."""
    return room(peer).door_of_session(env)


def caller_of_mcp(env, meta):
    """The peer whose session makes an MCP tool call, and its door. A Claude Code session
    is known by the inbox variables its MCP server inherits; a Codex thread by the
    threadId that Codex puts in each call's _meta, as it gives its servers no variables
    of the thread. Identity is never an argument the model could choose."""
    thread = codex_door.thread_of_call(meta)
    if thread is None and claude.without_an_inbox(env):
        raise Refusal(claude.NO_INBOX)
    if claude.inside(env):
        if thread is not None:
            raise Refusal(f"this MCP server sees both a Claude Code session and a Codex thread; {REGISTER}")
        return claude.NAME, claude_door.door_of_session(env)
    if thread is None:
        raise Refusal(f"this MCP server runs in neither a Claude Code session nor a Codex thread; {REGISTER}")
    return codex.NAME, codex_door.door_of_call(thread)
