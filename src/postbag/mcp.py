"""postbag's MCP server: `postbag mcp`, on stdin and stdout, which offers an agent postbag's verbs as tools
(mcp_tools.py's Toolbox), for sessions whose shell cannot run postbag (a client's sandbox may keep its commands from
the other session's door and from the ledger, where its MCP servers run outside it: docs/doors.md says which).

It speaks newline-delimited JSON-RPC 2.0 (jsonrpc.py) with the standard library only, and answers each request in
turn. A client starts one server for each session and keeps it as long as the session lives, so the server holds
nothing between calls but the protocol version agreed on (Agreement): each call locates, opens and locks the ledger
afresh, in the calling session's directory, through the same verbs as the command line, and so sees whatever other
processes wrote since. Identity comes from the session, never from arguments (guards.caller_of_mcp). There is no tool
for open or close: those stay the human's.
"""

import signal

from postbag import __version__, jsonrpc
from postbag.jsonrpc import INVALID_PARAMS, JsonRpcError
from postbag.refusal import Refusal, sentence, told
from postbag.signals import end_as

# Newest first; a client's is taken when known (Codex 0.169 sends 2025-06-18, Claude Code 2.1.328 2025-11-25).
VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
# The versions under which the server must take a batch of messages in one line (2025-03-26); 2025-06-18 took it out.
BATCHES = ("2025-03-26", "2024-11-05")


def serve(here, toolbox):
    """Answer requests from `here`'s stdin on its stdout, with `toolbox`'s tools, until stdin closes; return 0."""
    if here.stdin is None or here.stdout is None:  # started without one: there is no client
        return 0
    stdin, stdout = here.stdin.buffer, here.stdout.buffer
    agreement = Agreement()
    methods = methods_of(here, toolbox, agreement)
    calls = _Calls()
    calls.guard()
    for line in jsonrpc.lines(stdin):
        with calls:
            reply = jsonrpc.answer(line, methods, batches=agreement.protocol in BATCHES)
            if reply is not None:
                try:
                    jsonrpc.write_message(stdout, reply)
                except (BrokenPipeError, ValueError):  # the client went away
                    return 0
    return 0


class Agreement:
    """The `protocol` version the client agreed on, which says how the wire is read (None: not yet)."""

    __slots__ = ("protocol",)

    def __init__(self):
        self.protocol = None


def methods_of(here, toolbox, agreement=None):
    """The MCP methods this server answers, for jsonrpc.answer, each in `here`, where the client started the server
    (its environment above all), with `toolbox`'s tools; `agreement` keeps the version initialize agrees on."""
    agreement = Agreement() if agreement is None else agreement
    return {
        "initialize": lambda params: _initialize(params, agreement, toolbox.instructions),
        "ping": lambda params: {},
        "tools/list": lambda params: {"tools": [tool.listed for tool in toolbox.tools.values()]},
        "tools/call": lambda params: _call_tool(params, here, toolbox),
    }


def _initialize(params, agreement, instructions):
    asked = params.get("protocolVersion")
    agreement.protocol = asked if asked in VERSIONS else VERSIONS[0]
    return {
        "protocolVersion": agreement.protocol,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "postbag", "title": "postbag", "version": __version__},
        "instructions": instructions,
    }


def _call_tool(params, here, toolbox):
    name = params.get("name")
    tool = toolbox.tools.get(name) if type(name) is str else None
    if tool is None:
        raise JsonRpcError(INVALID_PARAMS, f"unknown tool; the tools are {', '.join(toolbox.tools)}")
    arguments = params.get("arguments")
    arguments = tool.fitted({} if arguments is None else arguments)
    if arguments is None:
        return _result(tool.usage, error=True)  # the model's mistake to mend, not the human's
    try:
        return _result(tool.run(here, params.get("_meta"), arguments, toolbox.sessions))
    except Refusal as refusal:
        return _refused(refusal)
    except OSError as error:  # what no verb foresaw still fails closed, as on the command line
        return _refused(Refusal(error.strerror or "the system refused an operation"))
    except Exception as error:
        return _refused(Refusal(f"the {tool.name} tool failed unexpectedly ({type(error).__name__})"))


def _refused(refusal):
    """A refusal as a tool's result: the sentence the command line writes on stderr."""
    return _result(told(sentence(refusal)), error=True)


def _result(text, error=False):
    return {"content": [{"type": "text", "text": text}], "isError": error}


class _Calls:
    """Keeps a signal from ending the server halfway through a call. SIGTERM and SIGHUP end it at once between calls,
    and once the call is answered during one; SIGINT, which a terminal sends the whole group when the person
    interrupts the agent, is ignored, as the server must outlive that. An append blocks every signal besides."""

    STOPPING = (signal.SIGTERM, signal.SIGHUP)

    def __init__(self):
        self.busy, self.stopped_by = False, None

    def guard(self):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for number in self.STOPPING:
            signal.signal(number, self._on_signal)

    def __enter__(self):
        self.busy = True

    def __exit__(self, *exc_info):
        self.busy = False
        if self.stopped_by is not None:
            end_as(self.stopped_by)

    def _on_signal(self, number, frame):
        if self.busy:
            self.stopped_by = self.stopped_by or number  # the first to arrive says how it ends
        else:
            end_as(number)
