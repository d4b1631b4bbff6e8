"""What setup and doctor know of Claude Code (observed on 2.1.248 to 2.1.337):

- the claude program on PATH, whose `claude --version` says "2.1.337 (Claude Code)";
- the MCP servers it starts in every project, under "mcpServers" in .claude.json (in CLAUDE_CONFIG_DIR, else the
  home directory), {"type": "stdio", "command", "args", "env"}, which
  `claude mcp add --scope user NAME -e K=V -- COMMAND ARGS` writes and `claude mcp remove NAME -s user` takes out
  (its -e takes every word up to the next option, so the name comes before it);
- the rule in its settings.json that lets an MCP server's tools run without asking (permission.py);
- what it lets in from other sessions (acceptance.py), which setup never changes.
"""

import os

from postbag import repository
from postbag.claude import CLIENT, PROGRAM, permission
from postbag.claude.acceptance import ACCEPT, HOLD, MANAGED_SETTINGS, PROJECT_SETTINGS, REFUSE, Settings
from postbag.claude.files import config_directory
from postbag.claude.modes import BYPASSES
from postbag.claude.settings import RULE, holding_back, settings_at
from postbag.processes import which
from postbag.refusal import Refusal
from postbag.registration import (
    FIX,
    NOTE,
    OK,
    RUN_SETUP,
    Check,
    Client,
    Installation,
    command,
    registration_from,
    version_words,
)
from postbag.vendor_files import read_json, record, table, text

# How to get the newest Claude Code postbag is proven on that npm's package wraps: its Linux builds run ahead of it
# (README's table says how to get them). The package asks for Node 22; on an older Node, npm warns and installs it
# all the same, and the native program it carries runs (seen on Node 20).
INSTALLING = (
    "npm install -g @anthropic-ai/claude-code@2.1.332 (npm warns where Node is older than 22; Claude Code runs)"
)
SERVER_NAME = "postbag"  # the name postbag's MCP server is registered under: letters name its tools by it
CLAUDE_JSON_MOST = 64 << 20  # bytes of .claude.json read: it keeps every project's history, and grows


class ClaudeInstallation(Installation):
    """Claude Code as installed: the claude program on PATH, .claude.json's registration, the person's settings.json."""

    installing = INSTALLING

    def find(self):
        program = which(PROGRAM, self.here.env.get("PATH", os.defpath))
        if program is None:
            return Client(CLIENT, PROGRAM, missing="no claude on PATH")
        return Client(CLIENT, PROGRAM, self.here.absolute(program))

    def version(self):
        if self.client.path is None:
            return None
        words = version_words(self.client, self.here.child_env())
        return words[0] if words else None

    def registered(self):
        """What .claude.json registers as postbag, read whether claude is installed or not: a later claude starts it."""
        try:
            servers = table(record(read_json(global_config(self.here), CLAUDE_JSON_MOST)), "mcpServers")
        except FileNotFoundError:
            return None
        except OSError as error:
            raise Refusal(f"Claude Code's .claude.json cannot be read ({error.strerror or error})") from None
        except ValueError as error:
            found = hasattr(error, "lineno")
            why = f"it is not JSON at line {error.lineno} column {error.colno}" if found else "it is not JSON"
            raise Refusal(f"Claude Code's .claude.json cannot be read ({why})") from None
        entry = servers.get(SERVER_NAME)
        if entry is None:
            return None
        entry = record(entry)
        found = registration_from(text(entry, "command"), entry.get("args", []), table(entry, "env"))
        if found is None:
            raise Refusal("Claude Code's MCP server postbag is of a shape postbag does not know")
        return found

    def registering(self, registration):
        env = [word for name, value in registration.variables.items() for word in ("-e", f"{name}={value}")]
        add = ["mcp", "add", "--transport", "stdio", "--scope", "user", SERVER_NAME, *env, "--", *registration.argv]
        return command(self.client, self.here.child_env(), "registers postbag's MCP server", add)

    def unregistering(self, removing=False):
        del removing  # .claude.json is Claude Code's record, not the person's: nothing of it is kept
        remove = ["mcp", "remove", SERVER_NAME, "-s", "user"]
        return command(self.client, self.here.child_env(), "takes out postbag's MCP server", remove)

    def allowing_tools(self, removing=False):
        held = [] if removing else holding_back(settings_paths(self.here))
        return permission.change(settings_path(self.here), removing=removing, unasked=not held)

    def checks(self):
        """The permission rule, and what Claude Code does with letters from other sessions."""
        here, what = self.here, "the permission rule"
        try:
            allowed = settings_at(settings_path(here)).allowed()
        except Refusal as refusal:
            return [Check(FIX, what, f"{refusal}: mend it, then {RUN_SETUP}"), _acceptance(here)]
        held = holding_back(settings_paths(here))
        denied = [each for each in held if each.listed_in == "deny"]
        if denied:
            found = Check(
                FIX, what, f"{denied[0].words()}: take it out there, if the agents are to write to each other"
            )
        elif not allowed:
            found = Check(FIX, what, f"Claude Code would ask before each of postbag's tools: {RUN_SETUP}")
        elif held:
            found = Check(NOTE, what, held[0].words())
        else:
            found = Check(OK, what, f"Claude Code runs postbag's tools without asking ({RULE} is allowed)")
        return [found, _acceptance(here)]

    def notes(self, removing=False):
        """What setup says, and leaves to the person, of what Claude Code lets in, of the rules that keep postbag's
        tools from running without asking, and of the copies of its settings.json setup did not make."""
        left = permission.leftovers(settings_path(self.here), removing=removing)
        if removing:
            return left
        held = [f"{each.words()} (setup leaves that to you)" for each in holding_back(settings_paths(self.here))]
        check = _acceptance(self.here)
        about = f"Claude Code and {check.what}: {check.finding}"
        return held + ([] if check.state == OK else [f"{about} (setup leaves that to you)"]) + left


def global_config(here):
    """Claude Code's own file of what it keeps for the person, its MCP servers among it."""
    return os.path.join(here.env.get("CLAUDE_CONFIG_DIR") or here.home(), ".claude.json")


def settings_path(here):
    """The person's settings.json, where the permission rule goes."""
    return os.path.join(config_directory(here), "settings.json")


def settings_paths(here):
    """Every settings file whose permission rules Claude Code applies to a session started in this terminal's
    directory, in its order: an administrator's, the person's, and the project's (.claude/settings.json and
    .claude/settings.local.json, in this directory and at the top of its repository)."""
    folders = [here.cwd] if here.cwd else []
    try:
        found = repository.containing(here.cwd, here) if here.cwd else None
    except Refusal:  # the ledger's check says why; the rules of this directory are read all the same
        found = None
    if found is not None and found.top not in folders:
        folders.append(found.top)
    projects = [os.path.join(folder, ".claude", name) for folder in folders for name in PROJECT_SETTINGS]
    paths = [*(here.system(path) for path in MANAGED_SETTINGS), settings_path(here), *projects]
    # In the home folder the project's settings.json is the person's own: one file, read once.
    named = {}
    for path in paths:
        named.setdefault(os.path.realpath(path), path)
    return list(named.values())


def _acceptance(here):
    settings = Settings(here, config_directory(here), None)
    value, _ = settings.inbound()
    what = "letters from another session"
    if value == ACCEPT:
        return Check(OK, what, "Claude Code lets them in (crossSessionInbound accept)")
    if value in (HOLD, REFUSE):
        does = "holds them for your review" if value == HOLD else "refuses them"
        return Check(
            FIX,
            what,
            f"Claude Code {does} (crossSessionInbound {value}): set crossSessionInbound to "
            "accept in claude's settings.json",
        )
    if settings.default_mode() == BYPASSES:
        return Check(
            FIX,
            what,
            "sessions start bypassing permission prompts (permissions.defaultMode), and such "
            "a session holds postbag's letters for your review while crossSessionInbound "
            "is unset: set crossSessionInbound to accept in claude's settings.json",
        )
    return Check(
        NOTE,
        what,
        "a session that prompts for permissions takes them; one started with --dangerously-skip-permissions "
        "holds each for your review, since postbag claims no permission mode: to let "
        "them in, set crossSessionInbound to accept in claude's settings.json",
    )
