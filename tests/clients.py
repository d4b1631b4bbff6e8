"""The real Claude Code and Codex CLIs, pinned and installed from npm into .cache/clients,
run offline: each inside a network namespace that holds only loopback, with a stand-in
model on loopback where a client needs one.

    python3 tests/clients.py install      # what .ci/run and the README's prerequisites run

The versions below are the ones the real-client tier proved; move a pin only with the
facts file checked again (../shared/facts/real-clients.md in the project's workspace).
"""

import ctypes
import glob
import http.server
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".cache", "clients")
PINS = {"codex": ("@openai/codex", "0.169.0"), "claude": ("@anthropic-ai/claude-code", "2.1.328")}
CLONE_NEWNET = 0x40000000
WAIT = 30.0  # generous: every wait ends as soon as what it waits for has happened

# What keeps Claude Code from reaching out on its own (the model is the stand-in's).
CLAUDE_OFFLINE = {
    "ANTHROPIC_API_KEY": "stand-in",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_MAX_RETRIES": "0",
}
# And Codex: a model provider on loopback, and none of its own services.
CODEX_CONFIG = """\
model = "stand-in"
model_provider = "standin"
chatgpt_base_url = "http://127.0.0.1:9/"
check_for_update_on_startup = false

[model_providers.standin]
name = "stand-in"
base_url = "http://127.0.0.1:9/v1"
env_key = "STANDIN_KEY"
wire_api = "responses"

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"

[features]
plugins = false
"""


def install():
    """npm-install the pinned clients into .cache/clients, unless they are there already."""
    if missing() is None:
        return
    if shutil.which("npm") is None:
        raise SystemExit("npm is not installed")
    packages = [f"{name}@{version}" for name, version in PINS.values()]
    os.makedirs(CACHE, exist_ok=True)
    subprocess.run(
        ["npm", "install", "--prefix", CACHE, "--no-audit", "--no-fund", "--loglevel=error", *packages], check=True
    )


def installed_version(peer):
    package = os.path.join(CACHE, "node_modules", *PINS[peer][0].split("/"), "package.json")
    try:
        with open(package) as file:
            return json.load(file)["version"]
    except (OSError, ValueError, KeyError):
        return None


def missing():
    """Why the real-client tier cannot run here, in one line, or None when it can."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed, so the real clients cannot be"
    for peer, (name, version) in PINS.items():
        if installed_version(peer) != version:
            return f"{name}@{version} is not installed: run python3 tests/clients.py install"
    if sys.platform != "linux" or os.geteuid() != 0 or shutil.which("nsenter") is None:
        return "no network namespace to keep the clients local (it needs Linux, root and nsenter)"
    return None


def codex_binary():
    return os.path.join(CACHE, "node_modules", ".bin", "codex")


def claude_binary():
    """The native binary: npm skips the wrapper's postinstall on Node older than 22."""
    found = glob.glob(os.path.join(CACHE, "node_modules", "@anthropic-ai", "claude-code-*", "claude"))
    return found[0] if found else os.path.join(CACHE, "node_modules", ".bin", "claude")


# The network namespace

_HOLDER = r"""
import ctypes, fcntl, socket, struct, sys
if ctypes.CDLL(None, use_errno=True).unshare(0x40000000):
    sys.exit("unshare failed")
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
    fcntl.ioctl(s, 0x8914, struct.pack("16sh14x", b"lo", 1))  # SIOCSIFFLAGS: lo up
print("ready", flush=True)
sys.stdin.read()
"""


class Namespace:
    """A network namespace holding only loopback, kept alive by a small process. Clients
    run inside it through nsenter; a thread of ours enters it before it listens."""

    def __init__(self):
        self._holder = subprocess.Popen(
            [sys.executable, "-c", _HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        if self._holder.stdout.readline().strip() != "ready":
            raise RuntimeError("the network namespace could not be made")
        self.path = f"/proc/{self._holder.pid}/ns/net"

    def inside(self, argv):
        return ["nsenter", f"--net={self.path}", "--", *argv]

    def enter_this_thread(self):
        fd = os.open(self.path, os.O_RDONLY)
        try:
            if ctypes.CDLL(None, use_errno=True).setns(fd, CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), "setns")
        finally:
            os.close(fd)

    def links(self):
        """The network interfaces inside: the proof that only loopback is there."""
        shown = subprocess.run(self.inside(["ip", "-o", "link"]), capture_output=True, text=True, check=True)
        return [line.split(":")[1].strip() for line in shown.stdout.splitlines()]

    def close(self):
        self._holder.stdin.close()
        self._holder.wait()


# Stand-in models: one agent, two wire formats


class Agent:
    """What a stand-in model decides, as an agent would: a letter whose envelope gives a
    reply command is answered by running that command, read from the envelope; a letter
    that says not to reply gets words only; a person's "Run: COMMAND" is run as asked."""

    def __init__(self, answers="Thank you; reviewed and agreed."):
        """`answers`: one answer for every letter, or a list given in turn, the last repeated."""
        self._answers = [answers] if isinstance(answers, str) else list(answers)
        self.answer = self._answers[0]

    def decide(self, texts, after_a_command):
        """The shell command to run next, or None to end the turn with words."""
        if after_a_command:
            return None
        asked = next((t[len("Run: ") :] for t in texts if t.startswith("Run: ")), None)
        if asked is not None:
            return asked
        letter = next((t for t in texts if "via postbag." in t), None)
        if letter is None or "do not reply" in letter.split("\n", 1)[0]:
            return None
        self.answer = self._answers.pop(0) if len(self._answers) > 1 else self._answers[0]
        return reply_to(letter, self.answer)


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
        self._server.shutdown()
        self._server.server_close()

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
                model.requests.append(body)
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

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._ready.set()
        self._server.serve_forever(poll_interval=0.1)


def _event(kind, data):
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()


class ClaudeModel(_StandIn):
    """The part of the Anthropic Messages streaming API that Claude Code uses. Its request's
    messages may end with a system-role entry: the letter is in the last user-role one."""

    PATH = "/v1/messages"

    def events(self, body):
        last = next((m for m in reversed(body.get("messages", [])) if m.get("role") == "user"), {})
        content = last.get("content", "")
        if isinstance(content, str):
            texts, results = [content], []
        else:
            texts = [block.get("text", "") for block in content if block.get("type") == "text"]
            results = [block for block in content if block.get("type") == "tool_result"]
        command = self.agent.decide(texts, after_a_command=bool(results))
        if command is None:
            block = {"type": "text", "text": "Sent." if results else "Noted; no reply is needed."}
        else:
            block = {"type": "tool_use", "name": "Bash", "input": {"command": command}}
        return _messages_stream(block)


def _messages_stream(block):
    message = {"id": "msg_standin", "type": "message", "role": "assistant", "model": "stand-in", "content": []}
    message.update({"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}})
    yield _event("message_start", {"message": message})
    if block["type"] == "tool_use":
        stop = "tool_use"
        start = {"type": "tool_use", "id": "toolu_standin", "name": block["name"], "input": {}}
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


class CodexModel(_StandIn):
    """The part of the Responses streaming API that Codex uses with a custom provider: a
    command is an `exec_command` function call (its shell tool), whose output comes back
    as the next request's last input item."""

    PATH = "/v1/responses"

    def events(self, body):
        items = body.get("input") or []
        asked = max((i for i, item in enumerate(items) if item.get("role") == "user"), default=-1)
        texts = [part.get("text", "") for part in items[asked].get("content", [])] if asked >= 0 else []
        after = any(item.get("type") == "function_call_output" for item in items[asked + 1 :])
        command = self.agent.decide(texts, after_a_command=after)
        n = len(self.requests)
        if command is None:
            text = "Sent." if after else "Noted; no reply is needed."
            item = {"type": "message", "role": "assistant", "id": f"msg_{n}"}
            item["content"] = [{"type": "output_text", "text": text}]
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

    def commands(self):
        """Every command Codex's shell tool ran for the model, as the tool reported it to
        the model: (command, exit code, output), oldest first."""
        ran = {}
        for body in self.requests:
            for item in body.get("input", []):
                if item.get("type") == "function_call":
                    ran.setdefault(item["call_id"], [json.loads(item["arguments"])["cmd"], None, None])
                elif item.get("type") == "function_call_output" and item.get("call_id") in ran:
                    report = item["output"] if isinstance(item["output"], str) else json.dumps(item["output"])
                    status = re.search(r"Process exited with code (-?\d+)", report)
                    ran[item["call_id"]][1:] = [int(status[1]) if status else None, report.partition("Output:\n")[2]]
        return [tuple(command) for command in ran.values() if command[2] is not None]


# The sessions


class CodexHome:
    """A throwaway CODEX_HOME with an offline config, its threads and its queue."""

    def __init__(self, directory, namespace):
        self.home, self.namespace = directory, namespace
        os.makedirs(self.home, exist_ok=True)
        with open(os.path.join(self.home, "config.toml"), "w") as file:
            file.write(CODEX_CONFIG)
        self.env = {"CODEX_HOME": self.home, "STANDIN_KEY": "stand-in"}

    def wrapper(self, directory):
        """An executable that runs the real codex inside the namespace: POSTBAG_CODEX points here."""
        path = os.path.join(directory, "codex")
        with open(path, "w") as file:
            file.write(f'#!/bin/sh\nexec nsenter --net={self.namespace.path} -- {codex_binary()} "$@"\n')
        os.chmod(path, 0o755)
        return path

    def new_thread(self, env):
        """Start a thread with `codex exec` and stop it once its rollout exists; its id."""
        before = set(self._rollouts())
        child = subprocess.Popen(
            self.namespace.inside([codex_binary(), "exec", "--skip-git-repo-check", "Wait for letters."]),
            env={**env, **self.env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + WAIT
            # The file appears before its first record: a thread whose rollout is still empty
            # is one that codex queue refuses ("rollout ... is empty").
            while not (new := {path for path in set(self._rollouts()) - before if _has_a_line(path)}):
                if time.monotonic() > deadline:
                    raise RuntimeError("codex exec wrote no rollout")
                time.sleep(0.05)
        finally:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        return os.path.basename(new.pop())[-len("00000000-0000-0000-0000-000000000000.jsonl") : -len(".jsonl")]

    def queued(self, thread):
        """The text of every message queued for `thread`, oldest first."""
        import sqlite3

        with sqlite3.connect(os.path.join(self.home, "queue_1.sqlite")) as db:
            rows = db.execute("SELECT payload_json FROM queued_items WHERE thread_id = ? ORDER BY rowid", (thread,))
            payloads = [json.loads(payload) for (payload,) in rows]
        return ["".join(part["text"] for part in p["UserInput"]["content"]) for p in payloads]

    def _rollouts(self):
        return glob.glob(os.path.join(self.home, "sessions", "*", "*", "*", "rollout-*.jsonl"))


class CodexSession:
    """A real Codex session on a thread: Codex's app server (what its IDE and desktop
    clients drive) with the thread resumed, driven by the stand-in model. An idle thread
    takes the letters that `codex queue` stored for it and runs a turn for each; its shell
    tool runs commands with the thread's variables, as for any Codex user."""

    def __init__(self, codex_home, thread, model, env, workdir, *, sandbox="danger-full-access", settings=None):
        self.thread, self.model, self.workdir = thread, model, workdir
        self._replies, self._next_id = {}, 0
        self.notifications = []
        self._changed = threading.Condition()
        os.makedirs(workdir, exist_ok=True)
        argv = [codex_binary(), "app-server", "-c", f'model_providers.standin.base_url="{model.url}/v1"']
        self.process = subprocess.Popen(
            codex_home.namespace.inside(argv),
            env={**env, **codex_home.env},
            cwd=workdir,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        self._call("initialize", {"clientInfo": {"name": "postbag-tests", "version": "0"}})
        self._send({"method": "initialized"})
        resumed = {"threadId": thread, "approvalPolicy": "never", "sandbox": sandbox, "cwd": workdir}
        self._call("thread/resume", {**resumed, "config": settings or {}})

    def say(self, text):
        """The person types `text` into the session: a turn of its own."""
        self._call("turn/start", {"threadId": self.thread, "input": [{"type": "text", "text": text}]})

    def turns_done(self):
        return sum(1 for n in self.notifications if n.get("method") == "turn/completed")

    def user_messages(self):
        """The text of every user message the thread's turns started from, oldest first."""
        items = [n["params"]["item"] for n in self.notifications if n.get("method") == "item/completed"]
        return ["".join(c.get("text", "") for c in i["content"]) for i in items if i.get("type") == "userMessage"]

    def wait_for(self, condition, what, timeout=WAIT):
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition():
                if self.process.poll() is not None:
                    raise RuntimeError(f"codex exited ({self.process.returncode}) while waiting for {what}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"codex gave no {what} within {timeout:g} s")
                self._changed.wait(0.05)  # or sooner: what the model is told arrives elsewhere

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def _call(self, method, params):
        self._next_id += 1
        asked = self._next_id
        self._send({"id": asked, "method": method, "params": params})
        self.wait_for(lambda: asked in self._replies, f"answer to {method}")
        reply = self._replies[asked]
        if "error" in reply:
            raise RuntimeError(f"codex refused {method}: {reply['error']}")
        return reply["result"]

    def _send(self, message):
        self.process.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        self.process.stdin.flush()

    def _read(self):
        for line in self.process.stdout:
            message = json.loads(line)
            with self._changed:
                if "id" in message and "method" not in message:
                    self._replies[message["id"]] = message
                elif "method" in message:
                    self.notifications.append(message)
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()


class ClaudeSession:
    """A real Claude Code session (print mode, stream-json) with its inbox socket, driven by
    the stand-in model, in a throwaway HOME whose SessionStart hook records what the
    session exports to its commands, then runs the commands `at_start`."""

    def __init__(self, home, workdir, namespace, model, env, *, settings=None, at_start=()):
        self.home, self.workdir, self.model = home, workdir, model
        # Claude Code takes a socket path of at most 103 bytes: a short private directory
        # (0700, as it requires), whatever the depth of the test's own.
        self.socket_dir = tempfile.mkdtemp(prefix="postbag-inbox-", dir="/tmp")
        os.makedirs(os.path.join(home, ".claude"), exist_ok=True)
        os.makedirs(workdir, exist_ok=True)
        self.socket = os.path.join(self.socket_dir, "in.sock")
        self.exported = os.path.join(home, "session.env")
        # Written aside, then renamed: whoever sees the file sees all of it.
        hook = {
            "type": "command",
            "command": f"env -0 > {self.exported}.part && mv {self.exported}.part {self.exported}",
        }
        hooks = [hook, *({"type": "command", "command": command} for command in at_start)]
        with open(os.path.join(home, ".claude", "settings.json"), "w") as file:
            json.dump({"hooks": {"SessionStart": [{"hooks": hooks}]}, **(settings or {})}, file)
        argv = [claude_binary(), "-p", "--input-format", "stream-json", "--output-format", "stream-json"]
        argv += ["--verbose", "--allowedTools", "Bash", "--messaging-socket-path", self.socket]
        full = {**env, **CLAUDE_OFFLINE, "HOME": home, "ANTHROPIC_BASE_URL": model.url}
        self.output = open(os.path.join(home, "stream.jsonl"), "wb")  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            namespace.inside(argv),
            env=full,
            cwd=workdir,
            stdin=subprocess.PIPE,
            stdout=self.output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self._wait_until(lambda: os.path.exists(self.exported) and _answers(self.socket), "the session's socket")

    def session_env(self):
        """What the session exports to the commands it runs, as its SessionStart hook saw it."""
        with open(self.exported, "rb") as file:
            pairs = [item.split(b"=", 1) for item in file.read().split(b"\0") if b"=" in item]
        return {k.decode(): v.decode() for k, v in pairs}

    def transcript(self):
        """The session's transcript records, as Claude Code wrote them."""
        session = self.session_env()["CLAUDE_CODE_SESSION_ID"]
        found = glob.glob(os.path.join(self.home, ".claude", "projects", "*", f"{session}.jsonl"))
        if not found:
            return []
        return [json.loads(line) for line in _whole_lines(found[0]) if line.strip()]

    def enqueued(self):
        return [
            r["content"]
            for r in self.transcript()
            if r.get("type") == "queue-operation" and r.get("operation") == "enqueue"
        ]

    def stream(self):
        """The session's stream-json output so far."""
        return [json.loads(line) for line in _whole_lines(os.path.join(self.home, "stream.jsonl")) if line[:1] == "{"]

    def wait_for(self, condition, what):
        self._wait_until(condition, what)

    def kill(self):
        """As a crash would: the socket file stays behind."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.output.close()

    def stop(self):
        """As a clean exit does: end of input; Claude Code removes its socket."""
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(WAIT)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.output.close()

    def remove(self):
        """Stopped, and its socket's directory gone."""
        self.stop()
        shutil.rmtree(self.socket_dir, ignore_errors=True)

    def _wait_until(self, condition, what):
        deadline = time.monotonic() + WAIT
        while not condition():
            if self.process.poll() is not None:
                raise RuntimeError(f"claude exited ({self.process.returncode}) while waiting for {what}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"claude gave no {what} within {WAIT:g} s")
            time.sleep(0.05)


def _whole_lines(path):
    """The lines of a file another process is still writing, but for a last one it has not
    finished: Claude Code writes its records in more than one write."""
    with open(path, "rb") as file:
        data = file.read()
    return data[: data.rfind(b"\n") + 1].decode(errors="replace").splitlines()


def _has_a_line(path):
    with open(path, "rb") as file:
        return b"\n" in file.read(1 << 16)


def _answers(path):
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(path)
        except OSError:
            return False
    return True


if __name__ == "__main__":
    if sys.argv[1:] != ["install"]:
        raise SystemExit("usage: python3 tests/clients.py install")
    install()
    print(", ".join(f"{name}@{installed_version(peer)}" for peer, (name, _) in PINS.items()))
