"""Stand-in models: one agent that answers letters as an agent would, and the two wire
formats the real clients speak to their models (the Anthropic Messages API for Claude
Code, the Responses API for Codex), served on loopback inside the namespace."""

import http.server
import json
import os
import re
import sys
import threading
import time
import traceback

WAIT = 30.0  # generous: every wait ends as soon as what it waits for has happened


# A letter's heading, wherever a client puts the envelope in what it shows its model.
HEADING = re.compile(r"^Letter (\d+) from (?:claude|codex) via postbag\. (.*)$", re.MULTILINE)
# The name postbag's MCP server is registered under, in every client the tier sets up.
SERVER = "postbag"


class ToolCall:
    """A call of one of the MCP server's tools, as a model decides on one; each client's
    stand-in writes it the way that client names the tool."""

    __slots__ = ("arguments", "tool")

    def __init__(self, tool, arguments=None):
        self.tool, self.arguments = tool, arguments or {}


class Agent:
    """What a stand-in model decides, as an agent would: a letter whose envelope gives a
    reply command is answered by running that command, read from the envelope, and one
    whose envelope names the door's send tool by calling that tool; a letter that says
    not to reply gets words only; a person's "Run: COMMAND" is run as asked, and a
    person's "Call: TOOL [TEXT]" calls the door's tool (send takes TEXT).
    Each letter is answered once, wherever it stands in a request and whatever else the
    request holds: a client may bring a new letter in the same message as the result of
    the command that answered the last one."""

    def __init__(self, answers="Thank you; reviewed and agreed."):
        """`answers`: one answer for every letter, or a list given in turn, the last repeated."""
        self._answers = [answers] if isinstance(answers, str) else list(answers)
        self.answer = self._answers[0]
        self.taken = []  # the number of each letter this agent was shown, in order

    def decide(self, texts):
        """What to do about `texts`, what the request brings that is new: the shell command
        to run next (a string), a ToolCall, or None to end the turn with words."""
        for text in texts:
            for heading in HEADING.finditer(text):
                number = int(heading[1])
                if number in self.taken:
                    continue
                self.taken.append(number)
                if "do not reply" not in heading[2]:
                    self.answer = self._answers.pop(0) if len(self._answers) > 1 else self._answers[0]
                    if heading[2].startswith("If it needs an answer, reply with the tool"):
                        return ToolCall("send", {"text": self.answer})
                    return reply_to(text[heading.start() :], self.answer)
        for text in texts:
            if text.startswith("Run: "):
                return text[len("Run: ") :]
            if text.startswith("Call: "):
                tool, _, words = text[len("Call: ") :].partition(" ")
                return ToolCall(tool, {"text": words} if tool == "send" else {})
        return None


def reply_to(envelope, answer):
    """The reply an agent writes: the envelope's own command, with `answer` as the letter,
    its heredoc delimited by a word that no line of the answer is, as the envelope asks."""
    lines = envelope.split("\n")
    at = next(i for i, line in enumerate(lines) if line.endswith("reply with:"))
    command = lines[at + 1].removesuffix("<<'POSTBAG'")  # e.g. postbag send codex -
    delimiter = "POSTBAG"
    while delimiter in answer.split("\n"):
        delimiter += "_"
    return f"{command}<<'{delimiter}'\n{answer}\n{delimiter}"


class _StandIn:
    """An HTTP server on loopback inside the namespace, answering a client's model calls;
    `requests` keeps every call's body, for what the model was shown."""

    def __init__(self, namespace, agent):
        self.agent = agent
        self.requests = []
        self.arrivals = []  # time.monotonic() of each call, beside `requests`: when a turn asked
        self.hold = 0.0  # seconds the next call's answer waits: a turn that is busy working
        self.released = None  # time.monotonic() when a held answer was given
        self.errors = []  # what went wrong answering a call: close() fails the test with it
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(namespace,), daemon=True)
        self._thread.start()
        if not self._ready.wait(WAIT):
            raise RuntimeError("the stand-in model did not start")

    @property
    def answer(self):
        return self.agent.answer

    @property
    def url(self):
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def shown(self):
        """Everything the model was shown, as one string."""
        return json.dumps(self.requests)

    def close(self):
        """Stop serving; a stand-in that failed to answer a call fails the test here."""
        self._server.shutdown()
        self._server.server_close()
        if self.errors:
            raise AssertionError("the stand-in model failed to answer:\n" + "\n".join(self.errors))

    def events(self, body):
        """The server-sent events answering one model call."""
        raise NotImplementedError

    def _serve(self, namespace):
        namespace.enter_this_thread()
        model = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if not self.path.startswith(model.PATH) or "count_tokens" in self.path:
                    self._json({"input_tokens": 1})
                    return
                model.arrivals.append(time.monotonic())
                model.requests.append(body)
                held, model.hold = model.hold, 0.0
                if os.environ.get("POSTBAG_RECORD_REQUESTS"):  # debugging aid
                    with open(os.environ["POSTBAG_RECORD_REQUESTS"], "a") as f:
                        f.write(json.dumps({"path": self.path, "body": body}) + "\n")
                if held:
                    time.sleep(held)
                    model.released = time.monotonic()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for event in model.events(body):
                    self.wfile.write(event)
                self.wfile.flush()

            def do_GET(self):
                self._json({"models": []})

            def do_HEAD(self):
                self._json({})

            def _json(self, value):
                data = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):  # a client that left
                    model.errors.append(traceback.format_exc())

        self._server = Server(("127.0.0.1", 0), Handler)
        self._ready.set()
        self._server.serve_forever(poll_interval=0.1)


def _event(kind, data):
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()


class ClaudeModel(_StandIn):
    """The part of the Anthropic Messages streaming API that Claude Code uses. Its request's
    messages may end with a system-role entry: the letter is in the last user-role one."""

    PATH = "/v1/messages"

    def events(self, body):
        texts, results = claude_news(body)
        command = self.agent.decide(texts)
        if command is None:
            block = {"type": "text", "text": "Sent." if results else "Noted; no reply is needed."}
        elif isinstance(command, ToolCall):  # Claude Code names an MCP tool mcp__SERVER__TOOL
            block = {"type": "tool_use", "name": f"mcp__{SERVER}__{command.tool}", "input": command.arguments}
        else:
            block = {"type": "tool_use", "name": "Bash", "input": {"command": command}}
        return _messages_stream(block, len(self.requests))

    def tool_results(self):
        """What each call of the MCP server's tools gave the model: (tool, arguments, text,
        whether it was an error), oldest first, from the requests Claude Code made."""
        called, given = {}, {}  # by the call's id: each request repeats the ones before
        for body in self.requests:
            for message in body.get("messages", []):
                for block in message.get("content", []) if isinstance(message.get("content"), list) else []:
                    if block.get("type") == "tool_use" and block.get("name", "").startswith(f"mcp__{SERVER}__"):
                        called[block["id"]] = (block["name"].rsplit("__", 1)[1], block.get("input", {}))
                    elif block.get("type") == "tool_result" and block.get("tool_use_id") in called:
                        content = block.get("content")
                        text = content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
                        given[block["tool_use_id"]] = (*called[block["tool_use_id"]], text, bool(block.get("is_error")))
        return list(given.values())


def claude_news(body):
    """What a Claude Code request brings that is new: the texts of its last user-role
    message, whatever else that message holds, and the tool results in it. The request may
    end with a system-role entry; a letter arrives framed by Claude Code's own words."""
    last = next((m for m in reversed(body.get("messages", [])) if m.get("role") == "user"), {})
    content = last.get("content", "")
    if isinstance(content, str):
        return [content], []
    texts = [block.get("text", "") for block in content if block.get("type") == "text"]
    return texts, [block for block in content if block.get("type") == "tool_result"]


def _messages_stream(block, n):
    # A reply of its own id: Claude Code takes replies that share one for parts of one message.
    message = {"id": f"msg_standin_{n}", "type": "message", "role": "assistant", "model": "stand-in", "content": []}
    message.update({"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}})
    yield _event("message_start", {"message": message})
    if block["type"] == "tool_use":
        stop = "tool_use"
        start = {"type": "tool_use", "id": f"toolu_standin_{n}", "name": block["name"], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        stop = "end_turn"
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    yield _event("content_block_start", {"index": 0, "content_block": start})
    yield _event("content_block_delta", {"index": 0, "delta": delta})
    yield _event("content_block_stop", {"index": 0})
    ended = {"delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 1}}
    yield _event("message_delta", ended)
    yield _event("message_stop", {})


def codex_news(body):
    """What a Codex request brings that is new: the texts of the turn's user input, which
    stays in every request of the turn, so only until a call's output follows it; and
    whether one does."""
    items = body.get("input") or []
    asked = max((i for i, item in enumerate(items) if item.get("role") == "user"), default=-1)
    texts = [part.get("text", "") for part in items[asked].get("content", [])] if asked >= 0 else []
    after = any(item.get("type") == "function_call_output" for item in items[asked + 1 :])
    return ([] if after else texts), after


class CodexModel(_StandIn):
    """The part of the Responses streaming API that Codex uses with a custom provider: a
    command is an `exec_command` function call (its shell tool), whose output comes back
    as the next request's last input item."""

    PATH = "/v1/responses"

    def events(self, body):
        texts, after = codex_news(body)
        command = self.agent.decide(texts)
        n = len(self.requests)
        if command is None:
            text = "Sent." if after else "Noted; no reply is needed."
            item = {"type": "message", "role": "assistant", "id": f"msg_{n}"}
            item["content"] = [{"type": "output_text", "text": text}]
        elif isinstance(command, ToolCall):  # Codex runs an MCP tool only as a function of its server's namespace
            item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "namespace": f"mcp__{SERVER}"}
            item.update(name=command.tool, arguments=json.dumps(command.arguments))
        else:
            # login false: a login shell would reset PATH from the system's profile
            arguments = json.dumps({"cmd": command, "login": False})
            item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "exec_command"}
            item["arguments"] = arguments
        response = {"id": f"resp_{n}", "object": "response", "status": "in_progress", "output": []}
        yield _event("response.created", {"response": response})
        yield _event("response.output_item.done", {"output_index": 0, "item": item})
        usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
        done = {**response, "status": "completed", "output": [item], "usage": usage}
        yield _event("response.completed", {"response": done})

    def tool_results(self):
        """What each call of the MCP server's tools gave the model: (tool, arguments, text),
        oldest first. Codex puts a header of its own ("Wall time: ...") before the output."""
        called, given = {}, {}
        for body in self.requests:
            for item in body.get("input", []):
                if item.get("type") == "function_call" and item.get("namespace") == f"mcp__{SERVER}":
                    called[item["call_id"]] = (item["name"], json.loads(item["arguments"]))
                elif item.get("type") == "function_call_output" and item.get("call_id") in called:
                    parts = item["output"] if isinstance(item["output"], list) else [{"text": item["output"]}]
                    text = "".join(part.get("text", "") for part in parts[1:]) if len(parts) > 1 else parts[0]["text"]
                    given[item["call_id"]] = (*called[item["call_id"]], text)
        return list(given.values())

    def commands(self):
        """Every command Codex's shell tool ran for the model, as the tool reported it to
        the model: (command, exit code, output), oldest first."""
        ran = {}
        for body in self.requests:
            for item in body.get("input", []):
                if item.get("type") == "function_call" and item.get("name") == "exec_command":
                    ran.setdefault(item["call_id"], [json.loads(item["arguments"])["cmd"], None, None])
                elif item.get("type") == "function_call_output" and item.get("call_id") in ran:
                    report = item["output"] if isinstance(item["output"], str) else json.dumps(item["output"])
                    status = re.search(r"Process exited with code (-?\d+)", report)
                    ran[item["call_id"]][1:] = [int(status[1]) if status else None, report.partition("Output:\n")[2]]
        return [tuple(command) for command in ran.values() if command[2] is not None]
