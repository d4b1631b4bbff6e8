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

from postbag import processes
from postbag.codex import CLIENT, PROGRAM
from postbag.codex.files import home_directory
from postbag.codex.queue import find_codex
from postbag.codex.wake import DAEMON_START, RUNS, STOPPED, daemon_runs
from postbag.refusal import Refusal
from postbag.registration import (
    COMMAND_TIMEOUT,
    NOTE,
    OK,
    Check,
    Client,
    command,
    failure,
    registration_from,
    version_words,
)
from postbag.vendor_files import json_of, record, table, text
from postbag.vendors import for_a_child

# How to get the newest Codex postbag is proven on (room.PROVEN's), from its npm package.
INSTALLING = "npm install -g @openai/codex@0.171.0 (Node 16 or later)"
SERVER_NAME = "postbag"  # the name postbag's MCP server is registered under: letters name its tools by it
# What doctor (of "such a thread") and setup (of "a thread nobody has loaded") say of a daemon not running.
DAEMON_DOWN = "Codex's daemon is not running, so {} keeps its letters until it runs: start it with " + DAEMON_START
UNTOLD = "whether Codex's daemon runs cannot be told from its record"


def installing(here):
    del here  # the same command everywhere
    return INSTALLING


def find(here):
    try:
        return Client(CLIENT, PROGRAM, find_codex(here))
    except Refusal as missing:
        return Client(CLIENT, PROGRAM, missing=str(missing).partition(";")[0])


def version(here, client):
    words = version_words(client, for_a_child(here.env))
    return words[-1] if words else None


def registered(here, client):
    if client.program is None:
        return None
    get = [client.program, "mcp", "get", SERVER_NAME, "--json"]
    status, said, err = processes.ask(get, for_a_child(here.env), COMMAND_TIMEOUT)
    if status != 0:
        if "no mcp server named" in err.lower():
            return None
        return Refusal(f"codex mcp get postbag --json failed ({failure(status)})")
    try:
        shown = record(json_of(said))
    except ValueError:
        return Refusal("codex mcp get postbag --json said what postbag does not know")
    transport = table(shown, "transport")
    found = registration_from(text(transport, "command"), transport.get("args") or [], table(transport, "env"))
    if found is None:
        return Refusal("Codex's MCP server postbag is of a shape postbag does not know")
    return found if shown.get("enabled", True) is not False else Refusal("Codex's MCP server postbag is disabled")


def registering(here, client, registration):
    env = [word for name, value in registration.env.items() for word in ("--env", f"{name}={value}")]
    add = ["mcp", "add", SERVER_NAME, *env, "--", *registration.argv]
    return command(client, for_a_child(here.env), "registers postbag's MCP server", add)


def unregistering(here, client):
    return command(client, for_a_child(here.env), "takes out postbag's MCP server", ["mcp", "remove", SERVER_NAME])


def allowing_tools(here, removing):
    """None: Codex runs postbag's tools without asking, for they are annotated as neither
    destructive nor open to the world (docs/doors.md), so there is nothing to change."""
    del here, removing


def checks(here):
    """Codex's daemon, which wakes a thread nobody has loaded."""
    state = daemon_runs(home_directory(here.env))
    what = "waking a thread nobody has loaded"
    if state == RUNS:
        return [Check(OK, what, "Codex's daemon runs, and takes a letter for such a thread at once")]
    if state == STOPPED:
        return [Check(NOTE, what, DAEMON_DOWN.format("such a thread"))]
    return [Check(NOTE, what, UNTOLD)]


def notes(here):
    """What setup says of Codex's daemon, which it leaves to the person."""
    state = daemon_runs(home_directory(here.env))
    if state == RUNS:
        return []
    said = DAEMON_DOWN.format("a thread nobody has loaded") if state == STOPPED else UNTOLD
    return [f"{said} (setup starts no daemon)"]
