"""What setup and doctor know of Codex (observed on 0.153.0 to 0.171.0):

- the codex program the door runs (queue.find_codex), whose `codex --version` says "codex-cli 0.171.0";
- the MCP servers it starts, which `codex mcp add NAME --env K=V -- COMMAND ARGS` registers in config.toml,
  `codex mcp get NAME --json` shows ({"enabled", "transport": {"type": "stdio", "command", "args", "env",
  ...}, ...}; exit 1, "No MCP server named" where there is none) and `codex mcp remove NAME` takes out.
  Codex runs a tool without asking where its hints say it is neither destructive nor open to the world, as
  postbag's say: it needs no rule of its own;
- its app-server daemon, which wakes a thread nobody has loaded (wake.py), and which setup never starts.
"""

import os

from postbag import processes, whole_file
from postbag.codex import CLIENT, PROGRAM, config
from postbag.codex.files import home_directory
from postbag.codex.queue import find_codex
from postbag.codex.wake import RUNS, STOPPED, daemon_runs
from postbag.escape import shell_word
from postbag.refusal import Refusal
from postbag.registration import (
    COMMAND_TIMEOUT,
    NOTE,
    OK,
    Check,
    Client,
    Installation,
    command,
    failed,
    registration_from,
    version_words,
)
from postbag.vendor_files import json_of, record, table, text

# How to get the newest Codex postbag is proven on (room.PROVEN's), from its npm package.
INSTALLING = "npm install -g @openai/codex@0.171.0 (Node 16 or later)"
SERVER_NAME = "postbag"  # the name postbag's MCP server is registered under: letters name its tools by it


class CodexInstallation(Installation):
    """Codex: its program, and its config.toml, which its own commands write and setup keeps as found (config.py)."""

    installing = INSTALLING

    def find(self):
        try:
            return Client(CLIENT, PROGRAM, find_codex(self.here))
        except Refusal as missing:
            return Client(CLIENT, PROGRAM, missing=str(missing).partition(";")[0])

    def version(self):
        if self.client.path is None:
            return None
        words = version_words(self.client, self.here.child_env())
        return words[-1] if words else None

    def registered(self):
        if self.client.path is None:
            return None
        get = [self.client.path, "mcp", "get", SERVER_NAME, "--json"]
        status, out, err = processes.ask(get, self.here.child_env(), COMMAND_TIMEOUT)
        if status != 0:
            if "no mcp server named" in err.lower():
                return None
            raise failed("codex mcp get postbag --json", status, err)
        try:
            shown = record(json_of(out))
        except ValueError:
            raise Refusal("codex mcp get postbag --json said what postbag does not know") from None
        transport = table(shown, "transport")
        found = registration_from(text(transport, "command"), transport.get("args") or [], table(transport, "env"))
        if found is None:
            raise Refusal("Codex's MCP server postbag is of a shape postbag does not know")
        if shown.get("enabled", True) is False:
            raise Refusal("Codex's MCP server postbag is disabled")
        return found

    def registering(self, registration):
        env = [word for name, value in registration.variables.items() for word in ("--env", f"{name}={value}")]
        add = ["mcp", "add", SERVER_NAME, *env, "--", *registration.argv]
        return self._keeping_the_file(self._command("registers postbag's MCP server", add))

    def unregistering(self, removing=False):
        """Codex's own command, which writes config.toml whole; `removing`, the file given back instead where it
        is still as setup left it (config.py), the command run after only where that file names postbag too."""
        take_out = self._command("takes out postbag's MCP server", ["mcp", "remove", SERVER_NAME])
        path = config.config_path(self.here)
        if not removing:
            return self._keeping_the_file(take_out)
        if whole_file.copy_as_left(path) is not None:
            return config.giving_back(path, take_out, lambda: self.registered() is not None)
        return config.keeping(path, take_out, keep=False)

    def allowing_tools(self, removing=False):
        """None: Codex runs postbag's tools without asking, as their hints allow (docs/doors.md)."""
        del removing

    def checks(self):
        """Codex's daemon, which wakes a thread nobody has loaded."""
        state = daemon_runs(home_directory(self.here))
        if state == RUNS:
            words = "Codex's daemon runs, and takes a letter for such a thread at once"
        elif state == STOPPED:
            words = (
                "Codex's daemon is not running, so such a thread keeps its letters until it "
                "runs: start it with codex app-server daemon start"
            )
        else:
            words = "whether Codex's daemon runs cannot be told from its record"
        return [Check(OK if state == RUNS else NOTE, "waking a thread nobody has loaded", words)]

    def notes(self, removing=False):
        """What setup says of Codex's daemon, which it leaves to the person; `removing`, of a
        copy of config.toml that remove cannot give back."""
        if removing:
            path = config.config_path(self.here)
            return [
                f"{shell_word(copy)}, a copy of Codex's config.toml, stays: setup did not make "
                "it, or the file has changed since it did, so remove does not give it back; compare "
                "the two, take from the copy what you want back, then delete it"
                for copy in whole_file.others_copies(path)
            ]
        state = daemon_runs(home_directory(self.here))
        if state == RUNS:
            return []
        if state == STOPPED:
            why = (
                "Codex's daemon is not running, so a thread nobody has loaded keeps its letters "
                "until it runs: start it with codex app-server daemon start"
            )
        else:
            why = "whether Codex's daemon runs cannot be told from its record"
        return [f"{why} (setup starts no daemon)"]

    def _command(self, does, argv):
        return command(self.client, self.here.child_env(), does, argv)

    def _keeping_the_file(self, change):
        """`change`, a Codex command that rewrites config.toml, made after setup keeps the file as found, as it says."""
        path = config.config_path(self.here)
        kept = config.keeping(path, change)
        if os.path.lexists(path) and whole_file.copy_as_left(path) is None:
            copy = shell_word(whole_file.free_copy(path))
            others = [shell_word(each) for each in whole_file.others_copies(path)]
            stay = "stay as they are" if len(others) > 1 else "stays as it is"
            older = f" ({', '.join(others)}, which setup did not make, {stay})" if others else ""
            kept.news.append(
                f"Codex's own command writes {shell_word(path)} whole again, so setup keeps the "
                f"file as it found it, in {copy}{older}, for setup --remove to give back"
            )
        return kept
