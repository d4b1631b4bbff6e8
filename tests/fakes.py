"""Every test double of a door in one place: a real AF_UNIX inbox like Claude Code's, a fake
`codex` executable, and the environment of a person's terminal. The tests, the demo and
the benchmark all use these; the real clients and their stand-in models are in clients.py.

Both doors record exactly what postbag handed them, so tests assert on what a peer
received; either can also hand each letter on as it arrives (`on_letter`), as the demo's
simulated agents need.
"""

import json
import os
import socket
import stat
import sys
import textwrap
import threading
import time
import uuid

WAIT = 10.0  # generous: a wait only ends early when what it waits for has arrived
# The programs the suite, and the real clients it starts, run by name. A test's PATH holds
# these alone (and python3, the suite's own interpreter): never a claude, a codex or a
# postbag of the machine's, wherever the person who runs the suite keeps theirs.
TOOLS = (
    *("sh", "bash", "env", "cat", "ls", "mv", "cp", "rm", "mkdir", "touch", "chmod", "ln", "sleep", "date", "id"),
    *("grep", "sed", "head", "tail", "tr", "wc", "sort", "dirname", "basename", "readlink", "uname", "which", "ps"),
    *("git", "ip", "nsenter", "node", "npm", "install", "sha256sum", "shasum"),
)
# Of this process's own variables, only coverage's reach what the suite starts: they start
# the measurement in each child. Everything else a child gets, a test names.
MEASURING = ("COVERAGE_", "COV_CORE_")
_SUITE = {}  # the folder of this process's tools and throwaway home, made when first asked


def terminal_environment(*, without=(), **extra):
    """A person's terminal outside any agent's session, made from nothing but what the suite
    names: PATH holds the suite's tools, HOME a throwaway folder (a test names its own),
    and of this process's variables only coverage's come along, unless `without` names
    them; then `extra`."""
    measuring = {k: v for k, v in os.environ.items() if k.startswith(MEASURING) and not k.startswith(without)}
    return {"PATH": tools_path(), "HOME": os.path.join(_suite(), "home"), **measuring, **extra}


def tools_path():
    """PATH for a test: the folder of the suite's tools, python3 among them."""
    return os.path.join(_suite(), "bin")


def _suite():
    """The folder of this process's tools and throwaway home, made once, removed at exit."""
    if "folder" not in _SUITE:
        import atexit
        import shutil
        import tempfile

        folder = tempfile.mkdtemp(prefix="postbag-suite-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.makedirs(os.path.join(folder, "bin"))
        os.symlink(sys.executable, os.path.join(folder, "bin", "python3"))
        for name in TOOLS:
            found = shutil.which(name)
            if found is not None:
                os.symlink(found, os.path.join(folder, "bin", name))
        _SUITE["folder"] = folder
    return _SUITE["folder"]


def less(env, *prefixes):
    """`env` without the variables whose names start with one of `prefixes`."""
    return {k: v for k, v in env.items() if not k.startswith(prefixes)}


def path_with_python3(directory, python=sys.executable):
    """PATH with `directory` first, where `python3` is `python`: the built postbag.pyz
    starts whatever `python3` PATH finds, so this is how it runs on a chosen interpreter."""
    os.makedirs(directory, exist_ok=True)
    os.symlink(python, os.path.join(directory, "python3"))
    return f"{directory}{os.pathsep}{tools_path()}"


class UnixServer:
    """A listening AF_UNIX socket served on a thread of its own; each connection goes to
    `handle`, which owns it from then on."""

    def __init__(self, path, handle, backlog=16):
        self.path = path
        self._handle = handle
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _bind(self._socket, path)
        self._socket.listen(backlog)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:  # closed
                return
            self._handle(connection)

    def close(self):
        """Stop listening, as a session does when it exits; the socket file stays behind."""
        try:
            self._socket.shutdown(socket.SHUT_RDWR)  # wakes the accept() blocked on the thread
        except OSError:
            pass
        self._thread.join(10)
        self._socket.close()


def _bind(server, path):
    # Bound from inside its directory, a socket may have a path longer than sun_path holds
    # (104 bytes on macOS, whose $TMPDIR alone is long).
    here = os.open(".", os.O_RDONLY)
    try:
        os.chdir(os.path.dirname(path))
        server.bind(os.path.basename(path))
    finally:
        os.fchdir(here)
        os.close(here)


class FakeInbox:
    """A Claude Code inbox: a listening AF_UNIX socket that keeps what each connection wrote.

    `mode` decides how a connection is served: "read" takes everything until the sender
    closes; "hold" accepts and reads nothing, like a session that stalls; "discard" takes
    everything and keeps nothing, for the benchmark's thousands of letters. `says`, where
    set, is what the session says of each letter, as Claude Code does of one it holds,
    refuses or drops: the fields of a peer_message_status frame, sent to the socket the
    letter's frame names ("from"), if it names one.
    """

    def __init__(self, path, token, *, on_letter=None, mode="read", says=None):
        self.path, self.token, self.on_letter = path, token, on_letter
        self.session = str(uuid.uuid4())  # the session id Claude Code exports beside its inbox
        self.mode, self.says = mode, says
        self.heard_by_sender = 0  # words said to a sender's socket while it listened
        self.received = []
        self._changed = threading.Condition()
        self._held = []
        self._server = UnixServer(path, self._take)

    def door(self):
        """What a join records of this session."""
        return {"socket": self.path, "token": self.token, "session": self.session}

    def session_env(self):
        return {
            "CLAUDE_CODE_MESSAGING_SOCKET": self.path,
            "CLAUDE_CODE_MESSAGING_TOKEN": self.token,
            "CLAUDE_CODE_SESSION_ID": self.session,
        }

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
        if self.mode == "discard":
            return
        with self._changed:  # kept before any word of it is said: a sender that heard one finds it here
            self.received.append(raw.decode())
            self._changed.notify_all()
        if self.says is not None and _say_of(raw, self.says):
            self.heard_by_sender += 1
        if self.on_letter is not None:
            [auth, user] = [json.loads(line) for line in raw.splitlines()]
            if auth == {"type": "auth", "token": self.token}:
                self.on_letter(user["message"]["content"])


def _say_of(raw, says):
    """Say `says` of the letter in `raw` to the socket its frame names, as Claude Code says
    what it did with a letter it did not take: the fields of a peer_message_status frame,
    or a list of whole lines to write there (what else a newer Claude may write among them).
    Whether the sender's socket took it."""
    user = json.loads(raw.splitlines()[-1])
    if not str(user.get("from", "")).startswith("uds:"):
        return False
    lines = says if isinstance(says, list) else [{"type": "control", "action": "peer_message_status", **says}]
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as reply:
        try:
            reply.connect(user["from"][len("uds:") :])
            reply.sendall("".join(json.dumps({"from": "uds:inbox", **line}) + "\n" for line in lines).encode())
        except OSError:  # the sender stopped listening: Claude's word goes unheard, as it would
            return False
    return True


# What a fake client answers of its own configuration, as the real ones do (docs/doors.md,
# and tests/real/test_real_setup.py on the real ones): --version, and mcp add, get and
# remove, kept where the real client keeps them (Claude Code in .claude.json; Codex in a
# JSON file standing for its config.toml). Written beside each fake client's program.
CLIENT_COMMANDS = r"""
import json, os, sys


def main(flavour, version, argv):
    if argv == ["--version"]:
        print(f"{version} (Claude Code)" if flavour == "claude" else f"codex-cli {version}")
        return 0
    # The one command to fail ("add", or "codex add" for one client's), as a broken client's does.
    verb = argv[1] if len(argv) > 1 else None
    if os.environ.get("FAKE_CLIENT_FAILS") in (verb, f"{flavour} {verb}"):
        sys.stderr.write("Error: the configuration is broken\n")
        return 1
    if argv[1:2] == [os.environ.get("FAKE_CLIENT_HOLDS")]:  # the one command that says it started, then waits
        import time
        open(os.environ["FAKE_CLIENT_STARTED"], "w").close()
        while True:
            time.sleep(1)
    if flavour == "claude":
        path = os.path.join(os.environ.get("CLAUDE_CONFIG_DIR") or os.environ["HOME"], ".claude.json")
        try:
            with open(path) as file:
                config = json.load(file)
        except FileNotFoundError:
            config = {}
    else:
        path = os.path.join(os.environ.get("CODEX_HOME") or os.path.join(os.environ["HOME"], ".codex"), "config.toml")
        config = read_config_toml(path)
    servers = config.setdefault("mcpServers", {})
    verb, rest = argv[1], argv[2:]
    if verb == "add":
        words, command = rest[: rest.index("--")], rest[rest.index("--") + 1 :]
        env, name, at = {}, None, 0
        while at < len(words):
            if words[at] in ("--transport", "--scope"):
                at += 2
            elif words[at] in ("-e", "--env"):
                key, _, value = words[at + 1].partition("=")
                env[key] = value
                at += 2
            else:
                name, at = words[at], at + 1
        servers[name] = {"type": "stdio", "command": command[0], "args": command[1:], "env": env}
        print(f"Added MCP server {name}")
    elif verb == "get":
        if rest[0] not in servers:
            sys.stderr.write(f"Error: No MCP server named '{rest[0]}' found.\n")
            return 1
        entry = servers[rest[0]]
        transport = {"type": "stdio", "command": entry["command"], "args": entry["args"], "env": entry["env"]}
        print(json.dumps({"name": rest[0], "enabled": True, "transport": transport}))
        return 0
    elif verb == "remove":
        if rest[0] not in servers:
            sys.stderr.write(f"No MCP server named {rest[0]}\n")
            return 1
        del servers[rest[0]]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if flavour == "codex":
        write_config_toml(path, config)
        return 0
    with open(path, "w") as file:
        json.dump(config, file)
    return 0


def read_config_toml(path):
    # The fake's config.toml: the person's lines, and a table for each MCP server whose one
    # line, fake_entry, holds it as a JSON string.
    config = {"lines": [], "mcpServers": {}}
    try:
        with open(path) as file:
            lines = file.readlines()
    except FileNotFoundError:
        return config
    name = None
    for line in lines:
        if line.startswith("[mcp_servers."):
            name = line.strip()[len("[mcp_servers.") : -1]
        elif name and line.startswith("fake_entry = "):
            config["mcpServers"][name] = json.loads(json.loads(line[len("fake_entry = ") :]))
        else:
            name = None if line.startswith("[") else name
            config["lines"].append(line)
    return config


def write_config_toml(path, config):
    # As codex mcp add and remove do (0.171.0): the whole file written again, its comments
    # dropped (the real one drops those inside tables), and made private.
    lines = [line for line in config["lines"] if not line.lstrip().startswith("#")]
    for name, entry in config["mcpServers"].items():
        lines += [f"[mcp_servers.{name}]\n", f"fake_entry = {json.dumps(json.dumps(entry))}\n"]
    with open(path + ".tmp", "w") as file:
        file.writelines(lines)
    os.chmod(path + ".tmp", 0o600)
    os.replace(path + ".tmp", path)
"""
# Tests read the fake codex's config.toml as it does.
_COMMANDS = {}
exec(CLIENT_COMMANDS, _COMMANDS)
read_config_toml, write_config_toml = _COMMANDS["read_config_toml"], _COMMANDS["write_config_toml"]
FAKE_CLAUDE = """\
#!{python} -S
# A fake claude: its own configuration commands, as CLIENT_COMMANDS answers them.
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import client_commands
sys.exit(client_commands.main("claude", {version!r}, sys.argv[1:]))
"""


class FakeClaude:
    """An executable named claude in its own directory, which answers its configuration
    commands as Claude Code does (it runs no session: FakeInbox stands for one)."""

    def __init__(self, directory, version="2.1.336"):
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "client_commands.py"), "w") as file:
            file.write(CLIENT_COMMANDS)
        self.path = os.path.join(directory, "claude")
        with open(self.path, "w") as file:
            file.write(FAKE_CLAUDE.format(python=sys.executable, version=version))
        os.chmod(self.path, stat.S_IRWXU)


FAKE_CODEX = """\
#!{python} -S
# A fake codex: records argv, environment and stdin, then behaves as behaviour.json says;
# its configuration commands, as CLIENT_COMMANDS answers them.
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
if sys.argv[1:2] in (["mcp"], ["--version"]):
    sys.path.insert(0, here)
    import client_commands
    sys.exit(client_commands.main("codex", "0.171.0", sys.argv[1:]))
with open(os.path.join(here, "behaviour.json")) as f:
    behaviour = json.load(f)
stdin = os.fstat(0)
call = {{"argv": sys.argv[1:], "env": dict(os.environ), "stdin_is_devnull":
        (stdin.st_rdev, stdin.st_ino) == (os.stat(os.devnull).st_rdev, os.stat(os.devnull).st_ino),
        "refused": bool(behaviour.get("before_resume") and "--resume" in sys.argv)}}
# One write of the whole record on an O_APPEND descriptor, so a reader never meets half of one.
log = os.open(os.path.join(here, "calls.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
os.write(log, (json.dumps(call) + "\\n").encode("utf-8", "surrogateescape"))
os.close(log)
if behaviour.get("before_resume") and "--resume" in sys.argv:  # a codex older than 0.166, as clap refuses
    sys.stderr.write("error: unexpected argument '--resume' found\\n\\n  tip: a similar argument exists: '--remote'\\n")
    sys.exit(2)
if behaviour.get("hand_on"):  # to the session listening there; queued once it has the letter
    import socket
    os.chdir(here)  # a socket path may be longer than connect() takes
    with socket.socket(socket.AF_UNIX) as session:
        session.connect(os.path.basename(behaviour["hand_on"]))
        session.sendall(sys.argv[-1].encode())
        session.shutdown(socket.SHUT_WR)
        session.recv(1)
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

    def __init__(self, directory, thread, *, on_letter=None):
        self.directory, self.thread = directory, thread
        os.makedirs(directory, exist_ok=True)
        self.path = os.path.join(directory, "codex")
        with open(self.path, "w") as file:
            file.write(FAKE_CODEX.format(python=sys.executable))
        with open(os.path.join(directory, "client_commands.py"), "w") as file:
            file.write(CLIENT_COMMANDS)
        os.chmod(self.path, stat.S_IRWXU)
        self._session = None
        if on_letter is not None:
            self._session = UnixServer(os.path.join(directory, "thread.sock"), lambda c: _hand_on(c, on_letter))
        self.behave()

    def behave(self, exit=0, delay=0, say="", hold_until=None, before_resume=False):
        """`before_resume`: refuse --resume, as a codex from before 0.166 does."""
        hand_on = self._session.path if self._session else None
        behaviour = {"exit": exit, "delay": delay, "say": say, "hold_until": hold_until, "hand_on": hand_on}
        with open(os.path.join(self.directory, "behaviour.json"), "w") as file:
            json.dump({**behaviour, "before_resume": before_resume}, file)

    def close(self):
        if self._session is not None:
            self._session.close()

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
            if call.get("refused"):
                continue
            argv = [word for word in call["argv"] if word != "--resume"]
            assert argv[:4] == ["queue", "--thread", self.thread, "--message"]
            assert len(argv) == 5
            texts.append(argv[4])
        return texts

    def resumed(self):
        """Whether each call asked codex's daemon to load the thread."""
        return ["--resume" in call["argv"] for call in self.calls()]


def _hand_on(connection, on_letter):
    with connection:
        letter = b"".join(iter(lambda: connection.recv(65536), b""))
        connection.sendall(b"k")
    on_letter(letter.decode())


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")
