"""What setup and doctor know of Codex (observed on 0.153.0 to 0.171.0):

- the codex program the door runs (door.find_codex), whose `codex --version` says
  "codex-cli 0.171.0";
- the MCP servers it starts, which `codex mcp add NAME --env K=V -- COMMAND ARGS`
  registers in config.toml, `codex mcp get NAME --json` shows ({"enabled", "transport":
  {"type": "stdio", "command", "args", "env", ...}, ...}; exit 1, "No MCP server named"
  where there is none) and `codex mcp remove NAME` takes out. Codex runs a tool without
  asking where its hints say it is neither destructive nor open to the world, as
  postbag's say: it needs no rule of its own;
- its app-server daemon, which wakes a thread nobody has loaded (wake.py), and which
  setup never starts.
"""

from postbag import children
from postbag.codex import CLIENT
from postbag.codex import NAME as NAME_TYPED
from postbag.codex.door import find_codex
from postbag.codex.records import home_directory
from postbag.codex.wake import DAEMON_START, RUNS, STOPPED, daemon_runs
from postbag.refusal import Refusal
from postbag.room import COMMAND_TIMEOUT, NOTE, OK, Check, Client, Plan, command, failure, server_from, version_words
from postbag.sessions import for_a_child
from postbag.vendor_files import json_of, quoted, record, table, text

NAME = "postbag"  # the name the MCP server is registered under: letters name its tools by it


def find(here):
    try:
        return Client(CLIENT, NAME_TYPED, find_codex(here))
    except Refusal as missing:
        return Client(CLIENT, NAME_TYPED, missing=str(missing).partition(";")[0])


def version(here, client):
    words = version_words(client, for_a_child(here.env))
    return words[-1] if words else None


def registered(here, client):
    if client.program is None:
        return None
    get = [client.program, "mcp", "get", NAME, "--json"]
    status, said, err = children.ask(get, for_a_child(here.env), COMMAND_TIMEOUT)
    if status != 0:
        if "no mcp server named" in err.lower():
            return None
        return Refusal(f"codex mcp get postbag --json failed ({failure(status)})")
    try:
        shown = record(json_of(said))
    except ValueError:
        return Refusal("codex mcp get postbag --json said what postbag does not know")
    transport = table(shown, "transport")
    found = server_from(text(transport, "command"), transport.get("args") or [], table(transport, "env"))
    if found is None:
        return Refusal("Codex's MCP server postbag is of a shape postbag does not know")
    return found if shown.get("enabled", True) is not False else Refusal("Codex's MCP server postbag is disabled")


def plan(here, client, server, *, removing):  # noqa: PLR0911 - one answer a case, removing and adding
    """Register `server` with Codex, or take it out."""
    found = registered(here, client)
    if isinstance(found, Refusal):
        return Plan(blocked=str(found))
    if removing:
        if found == server:
            remove = ["mcp", "remove", NAME]
            return Plan([command(client, for_a_child(here.env), "takes out postbag's MCP server", remove)])
        if found is not None:
            return Plan(notes=[f"Codex's MCP server postbag starts {quoted(found.words())}, not this postbag: left"])
        return Plan()
    if found == server:
        return Plan(notes=_daemon_notes(here))
    if found is not None:
        return Plan(
            blocked=f"Codex's MCP server postbag starts {quoted(found.words(), 200)}, not this postbag: take it out "
            "with codex mcp remove postbag, or run setup from the postbag it starts"
        )
    env = [word for name, value in server.env.items() for word in ("--env", f"{name}={value}")]
    add = ["mcp", "add", NAME, *env, "--", *server.argv]
    add = command(client, for_a_child(here.env), "registers postbag's MCP server", add)
    return Plan([add], notes=_daemon_notes(here))


def checks(here):
    """Codex's daemon, which wakes a thread nobody has loaded."""
    state = daemon_runs(home_directory(here.env))
    what = "waking a thread nobody has loaded"
    if state == RUNS:
        return [Check(OK, what, "Codex's daemon runs, and takes a letter for such a thread at once")]
    if state == STOPPED:
        return [Check(NOTE, what, f"Codex's daemon is not running: such a thread's letters wait until {DAEMON_START}")]
    return [Check(NOTE, what, "whether Codex's daemon runs cannot be told from its record")]


def _daemon_notes(here):
    [check] = checks(here)
    return [] if check.state == OK else [f"{check.said} (setup starts no daemon)"]
