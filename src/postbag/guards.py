"""Who may run which verb, decided by the variables each vendor exports into its sessions.

This is a guardrail against mixed-up roles, not authentication: any program of the same
user can set or unset these variables. Every function takes the environment it judges.
"""

from postbag.refusal import Refusal

CLAUDE_SOCKET = "CLAUDE_CODE_MESSAGING_SOCKET"
CLAUDE_TOKEN = "CLAUDE_CODE_MESSAGING_TOKEN"
CLAUDE_SESSION = "CLAUDE_CODE_SESSION_ID"
CODEX_THREAD = "CODEX_THREAD_ID"
CODEX_SESSION = "CODEX_SESSION_ID"

# The variables that mark a shell as living inside an agent's session: the presence of
# any one, even empty, keeps the human's verbs out.
SESSION_VARIABLES = (
    CLAUDE_SOCKET,
    CLAUDE_TOKEN,
    CODEX_SESSION,
    CODEX_THREAD,
    "CLAUDECODE",
    CLAUDE_SESSION,
)
# Claude Code unsets its inbox variables in a session whose cross-session messaging is
# off (a --restricted session, or the feature switched off in that Claude Code): a
# Claude session is still known by these, but it has no door.
CLAUDE_MARKS = ("CLAUDECODE", CLAUDE_SESSION)
NO_INBOX = (
    "this Claude Code session has no inbox for letters: its cross-session messaging is off "
    "(a --restricted session, or messaging switched off in this Claude Code), so no letter can reach it"
)

_HEX = frozenset("0123456789abcdefABCDEF")


def is_vendor_session_variable(name):
    """Whether `name` belongs to a vendor's session, by family rather than by a list a new
    variable could slip past: everything Claude Code sets for its session, and every Codex
    session or thread variable. None of them may reach the other vendor's process."""
    if name == "CLAUDECODE" or name.startswith("CLAUDE_CODE_"):
        return True
    return name.startswith("CODEX_") and ("SESSION" in name or "THREAD" in name)


def other(peer):
    return "codex" if peer == "claude" else "claude"


def inside(peer, env):
    """Whether the shell runs inside `peer`'s own session."""
    if peer == "claude":
        return bool(env.get(CLAUDE_SOCKET)) and bool(env.get(CLAUDE_TOKEN))
    return bool(env.get(CODEX_THREAD)) or bool(env.get(CODEX_SESSION))


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


HUMAN_VERBS = ("open", "close")


def require_human_first(argv, env):
    """Refuse the human's verbs inside a session before their arguments are read, so that
    whatever else the command line holds, the answer is the same; only help passes."""
    if argv[:1] and argv[0] in HUMAN_VERBS and "-h" not in argv and "--help" not in argv:
        require_human(argv[0], env)


def door_of_this_session(peer, env):
    """What `join` records for `peer`, read from its session: its door fields, and for a
    Claude session its id, by which its transcript is found (receipts.py)."""
    import os

    from postbag.records import is_door_field

    if peer == "claude" and _without_an_inbox(env):
        raise Refusal(NO_INBOX)
    if not inside(peer, env):
        raise Refusal(f"join {peer} from inside a {peer} session")
    if peer == "claude":
        names = {"socket": CLAUDE_SOCKET, "token": CLAUDE_TOKEN}
    elif CODEX_THREAD in env:
        # CODEX_SESSION_ID can name a root shared by sub-agent threads, so a thread id that
        # is present but malformed is refused rather than silently replaced by the root.
        if not is_uuid(env[CODEX_THREAD]):
            raise Refusal(f"{CODEX_THREAD} is not a thread id")
        names = {"thread": CODEX_THREAD}
    else:
        names = {"thread": CODEX_SESSION}
    door = {field: env[name] for field, name in names.items()}
    for field, name in names.items():
        if not is_door_field(door[field]):
            raise Refusal(f"{name} is not valid text")
    if "socket" in door:
        door["socket"] = os.path.abspath(door["socket"])
        _require_a_socket(door["socket"])
        session = env.get(CLAUDE_SESSION)
        if session and is_door_field(session):
            door["session"] = session
    return door


def _without_an_inbox(env):
    """Whether `env` is a Claude Code session's, with neither of its inbox variables."""
    return any(env.get(name) for name in CLAUDE_MARKS) and not (env.get(CLAUDE_SOCKET) or env.get(CLAUDE_TOKEN))


def _require_a_socket(path):
    """Refuse to record an inbox socket that is not there: no one would ever bind it."""
    import os
    import stat

    try:
        is_socket = stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError as error:
        why = "it does not exist" if isinstance(error, FileNotFoundError) else error.strerror
    else:
        why = None if is_socket else "it is not a socket"
    if why is not None:
        raise Refusal(
            f"Claude Code named an inbox socket that is not there ({why}); no letter could reach this session"
        )


# How to set up the MCP door, for a server that cannot tell whose session calls it.
REGISTER = (
    "register postbag mcp in Claude Code (claude mcp add) or in Codex's config.toml ([mcp_servers.postbag]), "
    "as README's Quick start shows, and call its tools from that session"
)


def caller_of_mcp(env, meta):
    """The peer whose session makes an MCP tool call, and its door. A Claude Code session
    is known by the inbox variables its MCP server inherits; a Codex thread by the
    threadId that Codex puts in each call's _meta, as it gives its servers no variables
    of the thread. Identity is never an argument the model could choose."""
    thread = meta.get("threadId") if isinstance(meta, dict) else None
    if thread is None and _without_an_inbox(env):
        raise Refusal(NO_INBOX)
    if inside("claude", env):
        if thread is not None:
            raise Refusal(f"this MCP server sees both a Claude Code session and a Codex thread; {REGISTER}")
        return "claude", door_of_this_session("claude", env)
    if thread is None:
        raise Refusal(f"this MCP server runs in neither a Claude Code session nor a Codex thread; {REGISTER}")
    if type(thread) is not str or not is_uuid(thread):
        raise Refusal("the call's threadId is not a thread id")
    return "codex", {"thread": thread}


def is_uuid(text):
    parts = text.split("-")
    return [len(part) for part in parts] == [8, 4, 4, 4, 12] and all(c in _HEX for c in "".join(parts))


def in_codex_sandbox(env):
    """Whether this command runs inside Codex's sandbox, which marks every command it runs
    (CODEX_SANDBOX names the macOS sandbox; CODEX_SANDBOX_NETWORK_DISABLED is set on both)."""
    return bool(env.get("CODEX_SANDBOX_NETWORK_DISABLED") or env.get("CODEX_SANDBOX"))
