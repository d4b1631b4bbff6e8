"""Fake doors: a real AF_UNIX inbox like Claude Code's, and a fake `codex` executable.

Both record exactly what postbag handed them, so tests assert on what a peer received.
"""

import json
import os
import stat
import sys
import textwrap
import threading
import time

from unix_server import UnixServer

WAIT = 10.0  # generous: a wait only ends early when what it waits for has arrived


class FakeInbox:
    """A Claude Code inbox: a listening AF_UNIX socket that keeps what each connection wrote.

    `mode` decides how a connection is served: "read" takes everything until the sender
    closes; "hold" accepts and reads nothing, like a session that stalls.
    """

    def __init__(self, path, token):
        self.path, self.token = path, token
        self.mode = "read"
        self.received = []
        self._changed = threading.Condition()
        self._held = []
        self._server = UnixServer(path, self._take)

    def session_env(self):
        return {"CLAUDE_CODE_MESSAGING_SOCKET": self.path, "CLAUDE_CODE_MESSAGING_TOKEN": self.token}

    def wait_for(self, count):
        """The first `count` deliveries, each as the list of JSON lines it held."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.received) >= count, WAIT):
                raise AssertionError(f"the inbox got {len(self.received)} deliveries, expected {count}")
            return [[json.loads(line) for line in raw.splitlines()] for raw in self.received[:count]]

    def envelopes(self, count):
        """The envelopes of the first `count` deliveries, after checking their framing."""
        texts = []
        for auth, user in self.wait_for(count):
            assert auth == {"type": "auth", "token": self.token}
            assert user["type"] == "user" and user["message"]["role"] == "user"
            texts.append(user["message"]["content"])
        return texts

    def close(self):
        """Stop listening, as when the session exits: the socket file stays behind."""
        self._server.close()
        for connection in self._held:
            connection.close()

    def _take(self, connection):
        if self.mode == "hold":
            self._held.append(connection)
            return
        with connection:
            raw = b"".join(iter(lambda: connection.recv(65536), b""))
        with self._changed:
            self.received.append(raw.decode())
            self._changed.notify_all()


FAKE_CODEX = """\
#!{python} -S
# A fake codex: records argv, environment and stdin, then behaves as behaviour.json says.
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "behaviour.json")) as f:
    behaviour = json.load(f)
stdin = os.fstat(0)
call = {{"argv": sys.argv[1:], "env": dict(os.environ), "stdin_is_devnull":
        (stdin.st_rdev, stdin.st_ino) == (os.stat(os.devnull).st_rdev, os.stat(os.devnull).st_ino)}}
# One write of the whole record on an O_APPEND descriptor, so a reader never meets half of one.
log = os.open(os.path.join(here, "calls.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
os.write(log, (json.dumps(call) + "\\n").encode("utf-8", "surrogateescape"))
os.close(log)
say = behaviour.get("say", "").encode("utf-8", "surrogateescape")
sys.stdout.buffer.write(say)
sys.stderr.buffer.write(say)
sys.stdout.flush()
time.sleep(behaviour.get("delay", 0))
release = behaviour.get("hold_until")
while release and not os.path.exists(release):  # held open until the test lets go
    time.sleep(0.01)
status = behaviour.get("exit", 0)
if status < 0:
    os.kill(os.getpid(), -status)
sys.exit(status)
"""


class FakeCodex:
    """An executable named codex in its own directory, with a thread id for its session."""

    def __init__(self, directory, thread):
        self.directory, self.thread = directory, thread
        os.makedirs(directory, exist_ok=True)
        self.path = os.path.join(directory, "codex")
        with open(self.path, "w") as file:
            file.write(FAKE_CODEX.format(python=sys.executable))
        os.chmod(self.path, stat.S_IRWXU)
        self.behave()

    def behave(self, exit=0, delay=0, say="", hold_until=None):
        with open(os.path.join(self.directory, "behaviour.json"), "w") as file:
            json.dump({"exit": exit, "delay": delay, "say": say, "hold_until": hold_until}, file)

    def wait_for_calls(self, count):
        deadline = time.monotonic() + WAIT
        while len(self.calls()) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"codex was called {len(self.calls())} times, expected {count}")
            time.sleep(0.01)

    def session_env(self):
        return {"CODEX_SESSION_ID": self.thread}

    def calls(self):
        """Every call whose record is complete: a call still being written is not one yet."""
        try:
            with open(os.path.join(self.directory, "calls.jsonl"), "rb") as file:
                data = file.read()
        except FileNotFoundError:
            return []
        complete = data[: data.rfind(b"\n") + 1].decode("utf-8", "surrogateescape")
        return [json.loads(line) for line in complete.splitlines()]

    def envelopes(self):
        """The envelopes queued so far, after checking the argv around each."""
        texts = []
        for call in self.calls():
            assert call["argv"][:4] == ["queue", "--thread", self.thread, "--message"]
            assert len(call["argv"]) == 5
            texts.append(call["argv"][4])
        return texts


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")
