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
import shutil
import signal
import socket
import subprocess
import sys
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


# A stand-in for Claude's model


class StandInModel:
    """The part of the Anthropic Messages streaming API that Claude Code uses, on loopback
    inside the namespace. It answers as an agent would: a letter whose envelope gives a
    reply command is answered by running that command, read from the envelope, through the
    Bash tool; a letter that says not to reply gets words only."""

    def __init__(self, namespace, answer="Thank you; reviewed and agreed."):
        self.answer = answer
        self.requests = []
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(namespace,), daemon=True)
        self._thread.start()
        if not self._ready.wait(WAIT):
            raise RuntimeError("the stand-in model did not start")

    @property
    def url(self):
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self):
        self._server.shutdown()
        self._server.server_close()

    def _serve(self, namespace):
        namespace.enter_this_thread()
        model = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    self._json({"input_tokens": 1})
                    return
                model.requests.append(body)
                blocks = model.turn(body.get("messages", []))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for event in _stream(blocks):
                    self.wfile.write(event)
                self.wfile.flush()

            def do_GET(self):
                self._json({})

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

    def turn(self, messages):
        """The blocks of the next assistant turn, decided by the last user message."""
        last = next((m for m in reversed(messages) if m.get("role") == "user"), {})
        texts, results = _user_content(last)
        if results:
            return [{"type": "text", "text": "Sent."}]
        letter = next((t for t in texts if "via postbag." in t), None)
        if letter is None or "do not reply" in letter.split("\n", 1)[0]:
            return [{"type": "text", "text": "Noted; no reply is needed."}]
        return [{"type": "tool_use", "name": "Bash", "input": {"command": reply_to(letter, self.answer)}}]


def reply_to(envelope, answer):
    """The reply an agent writes: the envelope's own command, with `answer` as the letter."""
    lines = envelope.split("\n")
    at = next(i for i, line in enumerate(lines) if line.endswith("reply with:"))
    command = lines[at + 1]  # e.g. postbag send codex - <<'POSTBAG'
    return f"{command}\n{answer}\nPOSTBAG"


def _user_content(message):
    content = message.get("content", "")
    if isinstance(content, str):
        return [content], []
    texts = [block.get("text", "") for block in content if block.get("type") == "text"]
    results = [block for block in content if block.get("type") == "tool_result"]
    return texts, results


def _stream(blocks):
    def event(kind, data):
        return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()

    message = {"id": "msg_standin", "type": "message", "role": "assistant", "model": "stand-in", "content": []}
    message.update({"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}})
    yield event("message_start", {"message": message})
    stop = "end_turn"
    for index, block in enumerate(blocks):
        if block["type"] == "tool_use":
            stop = "tool_use"
            start = {"type": "tool_use", "id": f"toolu_standin_{index}", "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        yield event("content_block_start", {"index": index, "content_block": start})
        yield event("content_block_delta", {"index": index, "delta": delta})
        yield event("content_block_stop", {"index": index})
    yield event("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 1}})
    yield event("message_stop", {})


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


class ClaudeSession:
    """A real Claude Code session (print mode, stream-json) with its inbox socket, driven by
    the stand-in model, in a throwaway HOME whose SessionStart hook records what the
    session exports to its commands, then runs the commands `at_start`."""

    def __init__(self, home, workdir, namespace, model, env, *, settings=None, at_start=()):
        self.home, self.workdir = home, workdir
        self.socket_dir = os.path.join(home, "inbox")
        os.makedirs(self.socket_dir, mode=0o700, exist_ok=True)
        os.chmod(self.socket_dir, 0o700)
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
        with open(found[0]) as file:
            return [json.loads(line) for line in file if line.strip()]

    def enqueued(self):
        return [
            r["content"]
            for r in self.transcript()
            if r.get("type") == "queue-operation" and r.get("operation") == "enqueue"
        ]

    def stream(self):
        with open(os.path.join(self.home, "stream.jsonl"), "rb") as file:
            lines = file.read().decode(errors="replace").splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]

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

    def _wait_until(self, condition, what):
        deadline = time.monotonic() + WAIT
        while not condition():
            if self.process.poll() is not None:
                raise RuntimeError(f"claude exited ({self.process.returncode}) while waiting for {what}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"claude gave no {what} within {WAIT:g} s")
            time.sleep(0.05)


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
