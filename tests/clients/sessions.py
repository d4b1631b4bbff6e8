"""The real sessions: a Codex home and its threads, a Codex app server with a thread
loaded, and a Claude Code session with its inbox socket, each in a throwaway home and
inside the namespace."""

import contextlib
import glob
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from clients.pins import claude_binary, codex_binary
from postbag.codex.files import latest_turn

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


class _Session:
    """What both real sessions share: a client's process, and waiting for what it does. A
    wait ends as soon as its condition holds, and fails at once if the client exits."""

    name = ""

    def wait_for(self, condition, what, timeout=WAIT):
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition():
                if self.process.poll() is not None:
                    raise RuntimeError(f"{self.name} exited ({self.process.returncode}) while waiting for {what}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name} gave no {what} within {timeout:g} s")
                self._changed.wait(0.05)  # or sooner, when a reader of its output has news


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

    def new_thread(self, env, cwd=None):
        """Start a thread with `codex exec`, in `cwd` if given, and stop it once its rollout
        holds its settings; its id."""
        before = set(self._rollouts())
        child = subprocess.Popen(
            self.namespace.inside([codex_binary(), "exec", "--skip-git-repo-check", "Wait for letters."]),
            env={**env, **self.env},
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + WAIT
            # The file appears before its first record: a thread whose rollout is still empty
            # is one that codex queue refuses ("rollout ... is empty"). Stopped once exec
            # recorded the settings a resume applies (approvals never), as it would have
            # left them had its turn ended: else what a receipt says depends on the moment.
            while not (new := {path for path in set(self._rollouts()) - before if _has_settings(path)}):
                if time.monotonic() > deadline:
                    raise RuntimeError("codex exec wrote no rollout")
                time.sleep(0.05)
        finally:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        return os.path.basename(new.pop())[-len("00000000-0000-0000-0000-000000000000.jsonl") : -len(".jsonl")]

    def finished_thread(self, env, model, prompt="Wait for letters."):
        """A thread whose `codex exec` run ran its turn to the end on the stand-in `model`,
        as exec leaves one (approvals never asked); its id."""
        before = set(self._rollouts())
        argv = [codex_binary(), "exec", "--skip-git-repo-check"]
        argv += ["-c", f'model_providers.standin.base_url="{model.url}/v1"']
        ran = subprocess.run(
            self.namespace.inside([*argv, prompt]),
            env={**env, **self.env},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if ran.returncode:
            raise RuntimeError(f"codex exec failed: {ran.stderr[-2000:]}")
        [new] = set(self._rollouts()) - before
        return os.path.basename(new)[-len("00000000-0000-0000-0000-000000000000.jsonl") : -len(".jsonl")]

    def start_daemon(self, env, model):
        """Codex's app-server daemon for this home, as `codex app-server daemon start` starts
        it, inside the namespace, its threads' model the stand-in `model`."""
        with open(os.path.join(self.home, "config.toml")) as file:
            config = file.read()
        with open(os.path.join(self.home, "config.toml"), "w") as file:
            file.write(config.replace('base_url = "http://127.0.0.1:9/v1"', f'base_url = "{model.url}/v1"'))
        started = subprocess.run(
            self.namespace.inside([codex_binary(), "app-server", "daemon", "start"]),
            env={**env, **self.env},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if started.returncode or json.loads(started.stdout.splitlines()[-1]).get("status") != "started":
            raise RuntimeError(f"codex's daemon did not start: {started.stdout[-500:]} {started.stderr[-2000:]}")

    def stop_daemon(self, env):
        """`codex app-server daemon stop`, then every process left running from the copy of
        codex the daemon keeps in this home (its pid-update-loop outlives the stop)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(
                self.namespace.inside([codex_binary(), "app-server", "daemon", "stop"]),
                env={**env, **self.env},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=WAIT,
            )
        kept = os.path.join(self.home, "packages") + os.sep
        for pid in (int(name) for name in os.listdir("/proc") if name.isdigit()):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/exe").startswith(kept):
                    os.kill(pid, signal.SIGKILL)

    def register_postbag(self, argv, env=None):
        """postbag's MCP server in config.toml, as README gives it: `argv` starts `postbag
        mcp`, and `env` holds its variables (Codex passes a server none of its own but
        HOME, LANG and PATH, so a ledger elsewhere than the default must be named here)."""
        lines = ["", "[mcp_servers.postbag]", f"command = {json.dumps(argv[0])}", f"args = {json.dumps(argv[1:])}"]
        if env:
            lines += ["", "[mcp_servers.postbag.env]"]
            lines += [f"{name} = {json.dumps(value)}" for name, value in env.items()]
        with open(os.path.join(self.home, "config.toml"), "a") as file:
            file.write("\n".join(lines) + "\n")

    def queued(self, thread):
        """The text of every message queued for `thread`, oldest first."""
        import sqlite3

        with sqlite3.connect(os.path.join(self.home, "queue_1.sqlite")) as db:
            rows = db.execute("SELECT payload_json FROM queued_items WHERE thread_id = ? ORDER BY rowid", (thread,))
            payloads = [json.loads(payload) for (payload,) in rows]
        return ["".join(part["text"] for part in p["UserInput"]["content"]) for p in payloads]

    def rollouts(self, thread="*"):
        """The rollout files of `thread`, or of every thread."""
        return glob.glob(os.path.join(self.home, "sessions", "*", "*", "*", f"rollout-*-{thread}.jsonl"))

    def _rollouts(self):
        return self.rollouts()


class CodexSession(_Session):
    """A real Codex session on a thread: Codex's app server (what its IDE and desktop
    clients drive) with the thread resumed, driven by the stand-in model. An idle thread
    takes the letters that `codex queue` stored for it and runs a turn for each; its shell
    tool runs commands with the thread's variables, as for any Codex user."""

    name = "codex"

    def __init__(
        self, codex_home, thread, model, env, workdir, *, sandbox="danger-full-access", settings=None, approval="never"
    ):
        self.thread, self.model, self.workdir = thread, model, workdir
        self._replies, self._next_id = {}, 0
        self.notifications = []
        self.asked = []  # requests Codex made of its client, an approval among them: none is answered
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
        resumed = {"threadId": thread, "approvalPolicy": approval, "sandbox": sandbox, "cwd": workdir}
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
        def answered_or_asking():
            if self.asked:
                raise RuntimeError(f"codex asked its client {self.asked[0]['method']} while waiting for {what}")
            return condition()

        super().wait_for(answered_or_asking, what, timeout)

    def stop(self):
        """Killed with every process it started, and gone: it holds no lock any more."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        deadline = time.monotonic() + WAIT
        while _group_lives(self.process.pid) and time.monotonic() < deadline:
            time.sleep(0.01)

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
                elif "id" in message:
                    self.asked.append(message)
                elif "method" in message:
                    self.notifications.append(message)
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()


class ClaudeSession(_Session):
    """A real Claude Code session (print mode, stream-json) with its inbox socket, driven by
    the stand-in model, in a throwaway HOME whose SessionStart hook records what the
    session exports to its commands, then runs the commands `at_start`."""

    name = "claude"
    mode = ("-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
    output_name = "stream.jsonl"

    def __init__(
        self, home, workdir, namespace, model, env, *, settings=None, at_start=(), mcp=None, socket_dir=None, args=()
    ):
        self.home, self.workdir, self.model = home, workdir, model
        self._changed = threading.Condition()
        # Claude Code takes a socket path of at most 103 bytes: a short private directory
        # (0700, as it requires), whatever the depth of the test's own; or, for a session
        # restarted on the socket of one that crashed, that one's.
        self.socket_dir = socket_dir or tempfile.mkdtemp(prefix="postbag-inbox-", dir="/tmp")
        os.makedirs(os.path.join(home, ".claude"), exist_ok=True)
        os.makedirs(workdir, exist_ok=True)
        self.socket = os.path.join(self.socket_dir, "in.sock")
        # Beside the socket, the session's own: sessions that share a home (a restart, or
        # two projects of one person) each keep what they exported.
        self.exported = os.path.join(self.socket_dir, "session.env")
        # Written aside, then renamed: whoever sees the file sees all of it.
        hook = {
            "type": "command",
            "command": f"env -0 > {self.exported}.part && mv {self.exported}.part {self.exported}",
        }
        hooks = [hook, *({"type": "command", "command": command} for command in at_start)]
        path = os.path.join(home, ".claude", "settings.json")
        try:  # what the person has there already, setup's rule among it
            with open(path) as file:
                kept = json.load(file)
        except FileNotFoundError:
            kept = {}
        settings = {**kept, "hooks": {"SessionStart": [{"hooks": hooks}]}, **(settings or {})}
        full = {**env, **CLAUDE_OFFLINE, "HOME": home, "ANTHROPIC_BASE_URL": model.url}
        if mcp is not None:
            register_with_claude(namespace, mcp, full)
            settings.setdefault("permissions", {}).setdefault("allow", []).append(MCP_PERMISSION)
        with open(path, "w") as file:
            json.dump(settings, file)
        argv = [claude_binary(), *self.mode, "--allowedTools", "Bash", "--messaging-socket-path", self.socket, *args]
        self.output = open(os.path.join(home, self.output_name), "wb")  # noqa: SIM115 (closed in stop)
        # A session restarted on another's socket finds what that one exported: its own is waited for.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.exported)
        self.process = subprocess.Popen(
            self.wrapped(namespace.inside(argv)),
            env=full,
            cwd=workdir,
            stdin=subprocess.PIPE,
            stdout=self.output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        # Started when it has said what it exports, listens, and has written the file of a
        # running session (what receipts read).
        self._started(
            lambda: os.path.exists(self.exported) and self._own_file() and _answers(self.socket),
            "the session's socket and its file",
        )

    def wrapped(self, argv):
        return argv

    def _started(self, condition, what):
        """Waits for what a started session shows; where it never does, it is stopped, not left running."""
        try:
            self.wait_for(condition, what)
        except BaseException:
            self.kill()
            shutil.rmtree(self.socket_dir, ignore_errors=True)
            raise

    def _own_file(self):
        """The file of its running session, once written; None before."""
        own = os.path.join(self.home, ".claude", "sessions", f"{self.process.pid}.json")
        return own if os.path.exists(own) else None

    def say(self, text):
        """The person types `text` into the session."""
        typed = {"type": "user", "message": {"role": "user", "content": text}}
        self.process.stdin.write((json.dumps(typed) + "\n").encode())
        self.process.stdin.flush()

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

    def letters(self):
        """The envelopes the session took in, leaving out what the person typed."""
        return [text for text in self.enqueued() if text.startswith("Letter ")]

    def enqueued(self):
        return [
            r["content"]
            for r in self.transcript()
            if r.get("type") == "queue-operation" and r.get("operation") == "enqueue"
        ]

    def stream(self):
        """The session's stream-json output so far."""
        return [json.loads(line) for line in _whole_lines(os.path.join(self.home, "stream.jsonl")) if line[:1] == "{"]

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


class ClaudeScreen(ClaudeSession):
    """A real Claude Code session as a person runs it, in a terminal: in a tmux of its own
    (which reads Claude's screen as a terminal shows it; Claude redraws only what changed),
    attached on a pseudo-terminal util-linux's `script` opens, typed into through tmux, in
    a home whose onboarding is done and whose working folder is trusted."""

    mode = ()
    output_name = "screen.raw"

    def __init__(self, home, workdir, *args, **options):
        os.makedirs(home, exist_ok=True)
        state = {
            "hasCompletedOnboarding": True,
            "customApiKeyResponses": {"approved": [CLAUDE_OFFLINE["ANTHROPIC_API_KEY"]], "rejected": []},
            "projects": {workdir: {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}},
        }
        with open(os.path.join(home, ".claude.json"), "w") as file:
            json.dump(state, file)
        self.tmux = [shutil.which("tmux"), "-L", f"postbag-{os.getpid()}-{id(self)}", "-f", os.devnull]
        super().__init__(home, workdir, *args, **options)
        # Its prompt's footer: "? for shortcuts" until 2.1.27x, the permission mode's hint after.
        hints = ("for shortcuts", "shift+tab to cycle")
        self._started(lambda: any(hint in self.shown() for hint in hints), "its prompt")

    def wrapped(self, argv):
        attached = shlex.join([*self.tmux, "new-session", "-s", "claude", "-x", "160", "-y", "50", shlex.join(argv)])
        return [shutil.which("script"), "-qfec", f"TERM=xterm-256color {attached}", os.devnull]

    def type(self, text):
        """The person types `text`."""
        subprocess.run([*self.tmux, "send-keys", "-t", "claude", "-l", text], check=True)

    def press(self, key):
        """The person presses `key`, by tmux's name for it: Enter, Up, C-u."""
        subprocess.run([*self.tmux, "send-keys", "-t", "claude", key], check=True)

    def say(self, text):
        self.type(text)
        self.press("Enter")

    def shown(self):
        """What the terminal shows now, its lines joined by spaces."""
        screen = subprocess.run([*self.tmux, "capture-pane", "-p", "-t", "claude"], capture_output=True, text=True)
        return " ".join(screen.stdout.split())

    def running_id(self):
        """The session id its session file names now."""
        with open(self._own_file()) as file:
            return json.load(file)["sessionId"]

    def _own_file(self):
        # Claude runs under tmux's server, not as this process's child: its home's one file.
        found = glob.glob(os.path.join(self.home, ".claude", "sessions", "*.json"))
        return found[0] if found else None

    def kill(self):
        subprocess.run([*self.tmux, "kill-server"], check=False, capture_output=True)
        super().kill()

    def stop(self):
        if self.process.poll() is None:
            self.kill()
        self.output.close()


# README's registration of the MCP server in Claude Code, and the rule that lets its tools run.
MCP_ADD = ["mcp", "add", "--transport", "stdio", "--scope", "user", "postbag", "--"]
MCP_PERMISSION = "mcp__postbag"


def claude_wrapper(namespace, directory):
    """An executable named claude in `directory` that runs the real claude inside the
    namespace, kept offline: what a person's `claude` on PATH is to postbag setup."""
    path = os.path.join(directory, "claude")
    offline = " ".join(f"{name}={value}" for name, value in CLAUDE_OFFLINE.items())
    with open(path, "w") as file:
        file.write(f'#!/bin/sh\nexec env {offline} nsenter --net={namespace.path} -- {claude_binary()} "$@"\n')
    os.chmod(path, 0o755)
    return path


def register_with_claude(namespace, argv, env):
    """`claude mcp add ... postbag -- ARGV`, as a person types it, into env's HOME."""
    added = subprocess.run(
        namespace.inside([claude_binary(), *MCP_ADD, *argv]), env=env, capture_output=True, text=True, timeout=WAIT
    )
    if added.returncode:
        raise RuntimeError(f"claude mcp add failed: {added.stderr.strip()}")


def _group_lives(group):
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _whole_lines(path):
    """The lines of a file another process is still writing, but for a last one it has not
    finished: Claude Code writes its records in more than one write."""
    with open(path, "rb") as file:
        data = file.read()
    return data[: data.rfind(b"\n") + 1].decode(errors="replace").splitlines()


def _has_settings(path):
    """Whether a rollout states the approval policy a resumed turn runs with, as postbag reads it."""
    return latest_turn(path)[2] is not None


def _answers(path):
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(path)
        except OSError:
            return False
    return True


class Pair:
    """A real Claude Code session and a real Codex thread side by side, offline, as the
    demo and the benchmark use them: the namespace, a stand-in model for each client,
    a Codex home with one thread, Claude's session, and with `app_server` a Codex session
    that has the thread loaded. With `setup`, the words that start postbag, `postbag
    setup` registers it with both clients first, as a person runs it, and the Codex session
    runs in the workspace-write sandbox Codex users run by default; `set_up` is what it
    printed. `env` gains the Codex home, and POSTBAG_CODEX pointing at the real codex
    inside the namespace. A failure while starting stops what had started."""

    def __init__(self, directory, env, claude_agent, codex_agent, *, claude_settings=None, app_server=True, setup=None):
        from clients.namespace import Namespace
        from clients.standins import ClaudeModel, CodexModel

        self.codex = None
        with contextlib.ExitStack() as undo:
            self.namespace = Namespace()
            undo.callback(self.namespace.close)
            self.claude_model = ClaudeModel(self.namespace, claude_agent)
            undo.callback(self.claude_model.close)
            self.codex_model = CodexModel(self.namespace, codex_agent)
            undo.callback(self.codex_model.close)
            home = CodexHome(os.path.join(directory, "codex-home"), self.namespace)
            wrappers = os.path.join(directory, "codex-bin")
            os.makedirs(wrappers, exist_ok=True)
            self.env = {**env, **home.env, "POSTBAG_CODEX": home.wrapper(wrappers)}
            work, claude_home = os.path.join(directory, "work"), os.path.join(directory, "claude-home")
            self.set_up = None
            if setup is not None:  # the person's terminal: their home, the clients on PATH
                claude_wrapper(self.namespace, wrappers)
                person = {**self.env, "HOME": claude_home, "PATH": f"{wrappers}{os.pathsep}{self.env['PATH']}"}
                self.set_up = subprocess.run(
                    [*setup, "setup"], env=person, capture_output=True, text=True, timeout=120, check=False
                )
                if self.set_up.returncode:
                    raise RuntimeError(f"postbag setup failed: {self.set_up.stderr.strip()}")
            self.claude = ClaudeSession(
                claude_home,
                work,
                self.namespace,
                self.claude_model,
                self.env,
                settings=claude_settings,
            )
            undo.callback(self.claude.remove)
            self.thread = home.new_thread(self.env)
            sandboxed = {} if setup is None else {"sandbox": "workspace-write", "approval": "on-request"}
            if app_server:
                self.codex = CodexSession(home, self.thread, self.codex_model, self.env, work, **sandboxed)
            undo.pop_all()
        self.codex_home = home

    def claude_variables(self):
        """What Claude's session exports to its commands, of Claude's own."""
        return {k: v for k, v in self.claude.session_env().items() if k.startswith("CLAUDE")}

    def close(self):
        if self.codex is not None:
            self.codex.stop()
        self.claude.remove()
        self.claude_model.close()
        self.codex_model.close()
        self.namespace.close()
