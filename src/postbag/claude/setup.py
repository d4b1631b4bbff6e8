"""What setup and doctor know of Claude Code (observed on 2.1.248 to 2.1.332):

- the claude program on PATH, whose `claude --version` says "2.1.332 (Claude Code)";
- the MCP servers it starts in every project, under "mcpServers" in .claude.json (in
  CLAUDE_CONFIG_DIR, else the home directory), {"type": "stdio", "command", "args",
  "env"}, which `claude mcp add --scope user NAME -e K=V -- COMMAND ARGS` writes and
  `claude mcp remove NAME -s user` takes out (its -e takes every word up to the next
  option, so the name comes before it);
- the rule in its settings.json that lets an MCP server's tools run without asking:
  "mcp__NAME" in permissions.allow, which setup writes itself, whole or not at all, the
  file as it was kept beside it;
- what it lets in from other sessions (acceptance.py), which setup never changes.
"""

import os

from postbag.children import which
from postbag.claude import CLIENT
from postbag.claude import NAME as NAME_TYPED
from postbag.claude.acceptance import ACCEPT, BYPASSES, HOLD, REFUSE, Settings
from postbag.claude.records import config_directory
from postbag.homes import home_of
from postbag.refusal import Refusal
from postbag.room import FIX, NOTE, OK, RUN_SETUP, Change, Check, Client, Plan, command, server_from, version_words
from postbag.sessions import for_a_child
from postbag.vendor_files import quoted, read_json, record, table, text

NAME = "postbag"  # the name the MCP server is registered under: letters name its tools by it
RULE = f"mcp__{NAME}"  # the permission rule that lets every tool of the server run without asking
RULES = (RULE, f"{RULE}__*")  # what counts as that rule already
KEPT = ".before-postbag"  # the settings file as it was before setup changed it, beside it
CLAUDE_JSON_MOST = 64 << 20  # bytes of .claude.json read: it keeps every project's history, and grows
LETS_IN = "set crossSessionInbound to accept in claude's settings.json"


def find(here):
    program = which("claude", here.env.get("PATH", os.defpath))
    if program is None:
        return Client(CLIENT, NAME_TYPED, missing="no claude on PATH")
    return Client(CLIENT, NAME_TYPED, here.absolute(program))


def version(here, client):
    words = version_words(client, for_a_child(here.env))
    return words[0] if words else None


def global_config(env):
    """Claude Code's own file of what it keeps for the person, its MCP servers among it."""
    return os.path.join(env.get("CLAUDE_CONFIG_DIR") or home_of(env), ".claude.json")


def registered(here, client):
    """What .claude.json registers as postbag, read whether `client` was found or not: the
    file outlives an uninstalled claude, and a later one starts what it says."""
    try:
        servers = table(record(read_json(global_config(here.env), CLAUDE_JSON_MOST)), "mcpServers")
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        return Refusal(f"Claude Code's .claude.json cannot be read ({_why(error)})")
    entry = servers.get(NAME)
    if entry is None:
        return None
    entry = record(entry)
    found = server_from(text(entry, "command"), entry.get("args", []), table(entry, "env"))
    if found is None:
        return Refusal("Claude Code's MCP server postbag is of a shape postbag does not know")
    return found


def plan(here, client, server, *, removing):
    """Register `server` with Claude Code and let its tools run, or take out both."""
    found = registered(here, client)
    changes, notes = [], []
    if isinstance(found, Refusal):
        return Plan(blocked=str(found))
    if removing:
        if found == server:
            remove = ["mcp", "remove", NAME, "-s", "user"]
            changes.append(command(client, for_a_child(here.env), "takes out postbag's MCP server", remove))
        elif found is not None:
            notes.append(f"Claude Code's MCP server postbag starts {quoted(found.words())}, not this postbag: left")
    elif found is None:
        env = [word for name, value in server.env.items() for word in ("-e", f"{name}={value}")]
        add = ["mcp", "add", "--transport", "stdio", "--scope", "user", NAME, *env, "--", *server.argv]
        changes.append(command(client, for_a_child(here.env), "registers postbag's MCP server", add))
    elif found != server:
        return Plan(blocked=_elsewhere(found))
    rule = _rule_change(here, removing)
    if isinstance(rule, Refusal):
        return Plan(blocked=str(rule))
    changes += [rule] if rule else []
    return Plan(changes, notes=[*notes, *([] if removing else _acceptance_notes(here))])


def checks(here):
    """The permission rule, and what Claude Code does with letters from other sessions."""
    path = os.path.join(config_directory(here.env), "settings.json")
    found = _allowed(path)
    if isinstance(found, Refusal):
        rule = Check(FIX, "the permission rule", f"{found}: mend it, then {RUN_SETUP}")
    elif found:
        rule = Check(OK, "the permission rule", f"Claude Code runs postbag's tools without asking ({RULE} is allowed)")
    else:
        rule = Check(FIX, "the permission rule", f"Claude Code would ask before each of postbag's tools: {RUN_SETUP}")
    return [rule, _acceptance(here)]


def _acceptance(here):
    settings = Settings(here, config_directory(here.env), None)
    value, _ = settings.inbound()
    what = "letters from another session"
    if value == ACCEPT:
        return Check(OK, what, "Claude Code lets them in (crossSessionInbound accept)")
    if value in (HOLD, REFUSE):
        verb = "holds them for your review" if value == HOLD else "refuses them"
        return Check(FIX, what, f"Claude Code {verb} (crossSessionInbound {value}): {LETS_IN}")
    if settings.default_mode() == BYPASSES:
        return Check(
            FIX,
            what,
            "sessions start bypassing permission prompts (permissions.defaultMode), and such a session holds "
            f"postbag's letters for your review while crossSessionInbound is unset: {LETS_IN}",
        )
    return Check(
        NOTE,
        what,
        "a session that prompts for permissions takes them; one started with --dangerously-skip-permissions holds "
        f"each for your review, since postbag claims no permission mode: to let them in, {LETS_IN}",
    )


def _acceptance_notes(here):
    """What setup says, and leaves to the person, of what Claude Code lets in."""
    check = _acceptance(here)
    return [] if check.state == OK else [f"Claude Code and {check.what}: {check.said} (setup leaves that to you)"]


def _rule_change(here, removing):
    """The Change that puts postbag's permission rule in settings.json, or takes it out;
    None where nothing needs changing; a Refusal where the file cannot be changed safely."""
    path = os.path.join(config_directory(here.env), "settings.json")
    found = _allowed(path)
    if isinstance(found, Refusal):
        return found
    if found == (not removing):
        return None
    said = "takes out" if removing else "lets postbag's tools run without asking: adds"
    where = "from" if removing else "to"
    return Change(f"{said} {RULE} {where} permissions.allow in {path}", lambda: _edit_rule(path, removing))


def _allowed(path):
    """Whether the settings at `path` allow postbag's tools; a Refusal where they cannot be read."""
    try:
        settings = read_json(path)
    except FileNotFoundError:
        return False
    except (OSError, ValueError) as error:
        return Refusal(f"claude's settings.json cannot be read ({_why(error)})")
    if type(settings) is not dict or type(settings.get("permissions", {})) is not dict:
        return Refusal("claude's settings.json is not an object of settings")
    allow = settings.get("permissions", {}).get("allow", [])
    if type(allow) is not list:
        return Refusal("permissions.allow in claude's settings.json is not a list")
    return any(rule in allow for rule in RULES)


def _edit_rule(path, removing):
    """Put postbag's rule in permissions.allow of the settings at `path`, or take it out:
    the file is written whole or not at all, and where there was one, it is kept as it
    was beside it. A link is written through, to the file it names."""
    import json

    path = os.path.realpath(path)
    found = _allowed(path)  # as it is now, whatever it was when setup planned
    if isinstance(found, Refusal):
        raise found
    try:
        with open(path, "rb") as file:
            before, mode = file.read(), os.fstat(file.fileno()).st_mode & 0o777
    except FileNotFoundError:
        before, mode = None, 0o600
    settings = json.loads(before) if before else {}
    allow = settings.setdefault("permissions", {}).setdefault("allow", [])
    if removing:
        allow[:] = [rule for rule in allow if rule not in RULES]
    else:
        allow.append(RULE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if before is not None:
        _write_whole(path + KEPT, before, mode)
    _write_whole(path, (json.dumps(settings, indent=2) + "\n").encode(), mode)


def _write_whole(path, data, mode):
    """`data` at `path`, with `mode`, whole or not at all: written beside it, made durable,
    then renamed over it."""
    aside = f"{path}.{os.getpid()}.part"
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        try:
            os.fchmod(fd, mode)
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(aside, path)
    except OSError:
        try:
            os.unlink(aside)
        except OSError:
            pass
        raise


def _elsewhere(found):
    return (
        f"Claude Code's MCP server postbag starts {quoted(found.words(), 200)}, not this postbag: take it out with "
        "claude mcp remove postbag -s user, or run setup from the postbag it starts"
    )


def _why(error):
    return error.strerror if isinstance(error, OSError) and error.strerror else "it is not JSON"
