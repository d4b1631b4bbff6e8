"""Run postbag as people do: as a subprocess, from the source tree and as the built zipapp.

`--target` (or POSTBAG_TEST_TARGET) picks what the CLI tests run: `src`, `pyz` or `both`,
the default, which runs every test on the tree and those marked shipped on the built zipapp
too. POSTBAG_PYZ names a zipapp built earlier; otherwise one is built once for the session
with scripts/build_pyz.py.
"""

import copy
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import pytest
from fakes import FakeCodex, FakeInbox, less, path_with_python3, terminal_environment
from helpers import DOOR_NOW, REPLACES, ROOT, SESSION_VARIABLES, SRC, STOP, TIMESTAMP
from hypothesis import settings
from inprocess import run_cli
from written import Claude, Codex


def ledger_news(ledger):
    """What a writer of the ledger at `ledger`, not the default one, says of it on stderr:
    that it created it, with the directory it made, or that it wrote to it (looked in it,
    where it wrote nothing); and, for a join, that it took letters from another session
    (test_human.py holds it to its words)."""
    path = r"\S+ for the repository [^\n,]+" if ledger is None else re.escape(ledger)
    return (
        rf"postbag: (created the ledger {path}(, and the directory [^\n]+ for it)?|"
        rf"(wrote to|looked in) the ledger {path}, which POSTBAG_LEDGER names|"
        rf"wrote to the ledger outside repositories, {path}|"
        r"(read|wrote to) the ledger of the repository [^\n]+)\n"
        rf"({REPLACED})?"
    )


# What a join says of the session whose door it replaces.
REPLACED = (
    rf"postbag: this replaces the (claude|codex) session that joined at {TIMESTAMP}( from [^\n]+)?: "
    r"letters to (claude|codex) now come here\n"
)


NOT_JOINED = (
    r"postbag: (neither agent has joined yet: no letter can reach them until each joins|"
    r"(claude|codex) has not joined yet: no letter can reach it until it joins) from its own session\n"
)

# A test run started in the background inherits SIGINT and SIGQUIT ignored (and SIGHUP
# under nohup), and every postbag it starts would inherit that too; the tests that signal
# one mean the defaults a terminal gives.
for _number in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP):
    if signal.getsignal(_number) == signal.SIG_IGN:
        signal.signal(_number, signal.default_int_handler if _number == signal.SIGINT else signal.SIG_DFL)


# Hypothesis draws new examples on each run, which is what finds a rare case on a
# contributor's machine; CI draws the same ones every time, so that its verdict is the
# code's and never the draw's (a flaky test is a failing test).
# Speed is the benchmark's to show: no example fails for taking long on a loaded machine.
settings.register_profile("suite", deadline=None, max_examples=50)  # helpers.examples: half of CI's
settings.register_profile("ci", settings.get_profile("suite"), max_examples=100, derandomize=True, database=None)
settings.load_profile("ci" if os.environ.get("CI") else "suite")

# The suite's children get no TZ (fakes.terminal_environment): they show the machine's
# local time, and so does this process, where a test works out what they will show.
if os.environ.pop("TZ", None) is not None:
    time.tzset()

COVERING = any(name.startswith(("COVERAGE_PROCESS", "COV_CORE_")) for name in os.environ)


def pytest_addoption(parser):
    # Here, in the suite's own directory, and not at the root: the sdist holds tests/ but
    # no root conftest.py. pytest reads this file before the command line's options.
    parser.addoption(
        "--target",
        choices=("src", "pyz", "both"),
        default=os.environ.get("POSTBAG_TEST_TARGET", "both"),
        help="what the CLI tests run: the source tree, the built postbag.pyz, or both",
    )


# A test's id goes to every process it starts (PYTEST_CURRENT_TEST, where a test passes its
# own environment on), to the terminal and to CI's logs: it fits on a line.
ID_MOST = 80


def pytest_collection_modifyitems(config, items):
    long = [item.nodeid for item in items if len(item.nodeid.partition("[")[2]) > ID_MOST]
    if long:
        raise pytest.UsageError(f"a test id is longer than {ID_MOST} characters: name it (ids=): {long[0][:200]}")
    if config.getoption("--target") == "both":
        once_a_family_as_the_zipapp(config, items)


def once_a_family_as_the_zipapp(config, items):
    """Under both, a test marked shipped that is parametrized (a family: one behaviour, met
    with each of its parameters) runs as the zipapp with the first of them collected only;
    the tree runs every one. The zipapp carries the tree's modules, compiled: one run of
    the family proves it ships that behaviour, and what each parameter changes is the
    tree's logic, which the tree's runs hold to. Under --target pyz, as CI runs the built
    file on every Python, every parameter runs as the zipapp."""
    seen, dropped = set(), set()
    for item in items:
        params = getattr(item, "callspec", None) and item.callspec.params
        if params and params.get("target") == "pyz" and len(params) > 1:
            family = (item.path, item.originalname)
            if family in seen:
                dropped.add(item)
            seen.add(family)
    if dropped:
        config.hook.pytest_deselected(items=[item for item in items if item in dropped])
        items[:] = [item for item in items if item not in dropped]


def pytest_generate_tests(metafunc):
    if "target" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("--target")
        # Under both, the logic beneath the command line is tested once, on the tree; what a
        # user meets (marked shipped: each verb, door, class of refusal, the MCP server) as
        # the zipapp too.
        both = ["src", "pyz"] if metafunc.definition.get_closest_marker("shipped") else ["src"]
        metafunc.parametrize("target", both if chosen == "both" else [chosen], scope="session")


@pytest.fixture(scope="session")
def pyz(built):
    """The zipapp under test: POSTBAG_PYZ, or a fresh build of this tree."""
    prebuilt = os.environ.get("POSTBAG_PYZ")
    if prebuilt:
        return os.path.abspath(prebuilt)
    return str(built[0])


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """A fresh build of this tree, as scripts/build_pyz.py makes it: the path of its
    postbag.pyz, and what the build said. Built once for the whole run, its workers alike
    (pytest-xdist's share the run's temporary folder); a test copies it before it changes
    a byte of it."""
    import fcntl
    import pathlib

    run = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        run = run.parent  # the run's own folder, above each worker's
    out = pathlib.Path(run) / "built"
    with open(f"{out}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "said.txt").exists():
            build = [sys.executable, os.path.join(ROOT, "scripts", "build_pyz.py"), "--out", str(out)]
            said = subprocess.run(build, capture_output=True, text=True, check=True).stdout
            (out / "said.txt").write_text(said)
    return out / "postbag.pyz", (out / "said.txt").read_text()


@pytest.fixture
def command(target, request):
    """The argv prefix that runs postbag for `target`: the zipapp is run as people run it,
    as a program, its launcher finding python3 on PATH (Postbag puts this one there)."""
    if target == "pyz":
        return [request.getfixturevalue("pyz")]
    if COVERING:  # coverage starts in each child from a .pth file of site-packages
        return [sys.executable, "-m", "postbag"]
    # Else without `site`, as the zipapp's launcher runs: the test environment's .pth files
    # import coverage into every child whether it measures or not, 70 ms a run.
    return [sys.executable, "-S", "-m", "postbag"]


class Postbag:
    """Runs the CLI in a clean environment: a temporary ledger and HOME, fake doors."""

    def __init__(self, target, command, tmp_path, inbox, codex, *, in_process=False):
        self.target, self.command = target, command
        # On the tree, `run` calls the command line in this process (inprocess.py), unless
        # the test is marked process; the zipapp always runs as a program of its own.
        self.in_process = in_process and target == "src"
        self.ledger = str(tmp_path / "bag" / "ledger.jsonl")
        # The system's own files, such as an administrator's settings, for a command run in
        # this process: a folder of the test's, so that the machine's cannot change it.
        self.root = str(tmp_path / "system")
        self.inbox, self.codex = inbox, codex
        # Where a command runs unless a test says: a folder of the test's own, in no git
        # repository, wherever the suite itself runs (a clone of postbag is one).
        self.cwd = str(tmp_path)
        self.python_bin = None  # for the zipapp: the folder on PATH that holds its python3
        env = terminal_environment(HOME=str(tmp_path / "home"), POSTBAG_LEDGER=self.ledger, POSTBAG_CODEX=codex.path)
        if target == "src":
            env["PYTHONPATH"] = SRC  # the zipapp must run on its own, so only the tree gets this
        else:
            # Coverage is measured on the tree; measuring the zipapp too would only double the time.
            env = less(env, "COVERAGE_")
            self.python_bin = str(tmp_path / "python-bin")
            env["PATH"] = path_with_python3(self.python_bin)
        self.env = env

    @property
    def named(self):
        """What a refusal that could come from differing ledgers adds of this one."""
        return f" (the ledger {self.ledger}, which POSTBAG_LEDGER names)"

    @property
    def standing(self):
        """How the status line of `read` and of the status tool starts: which ledger."""
        return f"ledger {self.ledger}, which POSTBAG_LEDGER names"

    @property
    def wrote(self):
        """The line on stderr with which a writer names this ledger, which is not the default."""
        return f"postbag: wrote to the ledger {self.ledger}, which POSTBAG_LEDGER names\n"

    @property
    def created(self):
        """The line on stderr with which the first writer says it created this ledger and its directory."""
        return f"postbag: created the ledger {self.ledger}, and the directory {os.path.dirname(self.ledger)} for it\n"

    def in_a_tool(self, words, news):
        """What an MCP tool answers that did what `words` say, and said `news` (one of the lines above)."""
        return f"{words}\n{news.rstrip()}"

    def session(self, peer):
        """The variables a peer's session exports."""
        return self.inbox.session_env() if peer == "claude" else self.codex.session_env()

    def run(self, *args, inside=None, input=None, env=None, cwd=None, timeout=60, umask=-1):
        """Run `postbag ARGS` inside `inside`'s session (None: the human's terminal).
        `timeout` bounds a process; a command run in this one runs to its end."""
        text = isinstance(input, str) or input is None
        cwd = self.cwd if cwd is None else cwd
        # A thread of the test's own cannot share this process's stdout: it gets a process.
        if self.in_process and threading.current_thread() is threading.main_thread():
            environment = self.environment(inside, env)
            result = run_cli(args, environment, input=input, cwd=cwd, umask=umask, text=text, root=self.root)
        else:
            result = subprocess.run(
                [*self.command, *args],
                input=input,
                env=self.environment(inside, env),
                cwd=cwd,
                capture_output=True,
                text=text,
                timeout=timeout,
                umask=umask,
                check=False,
            )
        if os.environ.get("POSTBAG_TRANSCRIPT"):  # a debugging aid: every command, and what it said
            said = [o.decode(errors="replace") if isinstance(o, bytes) else o for o in (result.stdout, result.stderr)]
            with open(os.environ["POSTBAG_TRANSCRIPT"], "a") as file:
                file.write(f"$ postbag {' '.join(map(str, args))[:200]}\n{''.join(said)}\n")
        return result

    def mcp(self, inside=None, env=None, cwd=None):
        """`postbag mcp` started as a client starts it, inside `inside`'s session (a Codex
        server gets none of the thread's variables: its calls carry the thread instead)."""
        from rawmcp import RawServer

        return RawServer([*self.command, "mcp"], self.environment(inside, env), cwd=cwd or self.cwd)

    def status(self, inside="claude"):
        """What the MCP status tool answers `inside`'s session, through a server of its own:
        (its text, whether it is an error)."""
        server = self.mcp(inside)
        server.handshake()
        try:
            return server.tool("status")
        finally:
            server.close()

    def place(self, inside=None, env=None, streams=(None, None, None)):
        """What a command run in this process is given (here.Here), inside `inside`'s session."""
        from postbag.here import Here
        from postbag.vendors import for_a_child

        started = (sys.executable, "", True)  # as `python -m postbag`
        env = self.environment(inside, env)
        return Here(
            env,
            self.cwd,
            root=self.root,
            platform=sys.platform,
            streams=streams,
            started=started,
            for_a_child=for_a_child,
        )

    def environment(self, inside=None, env=None):
        """The environment a command gets inside `inside`'s session, with `env` over it."""
        full_env = dict(self.env)
        if inside:
            full_env.update(self.session(inside))
        full_env.update(env or {})
        return {k: v for k, v in full_env.items() if v is not None}

    def with_faults(self, faults):
        """A copy of this runner whose CLI runs with `faults` injected (see inject.py)."""
        where = "src" if self.target == "src" else self.command[0]
        faulty = copy.copy(self)
        faulty.in_process = False
        # Without `site` unless coverage measures the tree, as `command` runs postbag.
        plain = [] if COVERING and self.target == "src" else ["-S"]
        faulty.command = [sys.executable, *plain, os.path.join(ROOT, "tests", "inject.py"), where, faults, "--"]
        return faulty

    def ok(self, *args, **kwargs):
        """Run and insist on success; return stdout. On stderr a writer names the ledger,
        which is not the default one (test_human.py holds it to what it says)."""
        if args[:1] == ("open",):
            return self.open(*args[1:], **kwargs)
        result = self.run(*args, **kwargs)
        assert result.returncode == 0, result.stderr
        news = ledger_news(self.ledger_of(kwargs.get("env"), kwargs.get("cwd")))
        assert result.stderr == "" or re.fullmatch(news, result.stderr), result.stderr
        return result.stdout

    def ledger_of(self, env=None, cwd=None):
        """The ledger a command finds with `env` over this runner's environment, in `cwd`
        (default: the runner's): the one POSTBAG_LEDGER names, else, in a folder no git
        repository holds, the default; None in a repository, whose own it is."""
        full_env = self.environment(None, env)
        if full_env.get("POSTBAG_LEDGER"):
            return full_env["POSTBAG_LEDGER"]
        folder = os.path.realpath(cwd or self.cwd)
        while not os.path.exists(os.path.join(folder, ".git")) and os.path.dirname(folder) != folder:
            folder = os.path.dirname(folder)
        if os.path.exists(os.path.join(folder, ".git")):
            return None
        return os.path.join(full_env["HOME"], ".postbag", "ledger.jsonl")

    def open(self, *args, **kwargs):
        """`postbag open ARGS`, insisting on success; its stdout. On stderr it names the
        ledger, and may tell the human who has not joined yet (test_human.py holds it to
        the truth of that)."""
        result = self.run("open", *args, **kwargs)
        assert result.returncode == 0, result.stderr
        ledger = self.ledger_of(kwargs.get("env"), kwargs.get("cwd"))
        news = f"({ledger_news(ledger)})?({REPLACES})?({NOT_JOINED})?({DOOR_NOW})*"
        assert re.fullmatch(news, result.stderr), result.stderr
        return result.stdout

    def refused(self, *args, streamed=None, **kwargs):
        """Run and insist on a refusal; return the reason, without prefix and ending. An
        agent's refusal ends with the agents' stop; a refusal in a terminal of no agent's
        session ends in words for the person, who typed it, which are returned whole.

        `streamed` is what `read` prints before it meets a damaged line (None: whatever
        records come before it, which the test does not look at); every other verb prints
        nothing.
        """
        result = self.run(*args, **kwargs)
        stderr, stdout = (o if isinstance(o, str) else o.decode() for o in (result.stderr, result.stdout))
        assert result.returncode == 1, (result.returncode, stderr)
        assert stderr.startswith("postbag: ") and stderr.count("\n") == 1, stderr
        assert stdout == (streamed or "") or (streamed is None and args[:1] == ("read",)), stdout
        if self.to_the_person(*args, **kwargs):
            assert not stderr.endswith(STOP), stderr
            return stderr[len("postbag: ") : -1]
        assert stderr.endswith(STOP), stderr
        return stderr[len("postbag: ") : -len(STOP)]

    def to_the_person(self, verb, *args, inside=None, env=None, **kwargs):
        """Whether `postbag VERB` speaks to the person: it runs in a terminal of no agent's session."""
        return not set(SESSION_VARIABLES) & set(self.environment(inside, env))

    def records(self):
        """The ledger's records, as written: each line parsed."""
        return [json.loads(line) for line in self.ledger_bytes().splitlines()]

    def ledger_bytes(self):
        try:
            with open(self.ledger, "rb") as file:
                return file.read()
        except FileNotFoundError:
            return b""

    def write_ledger(self, text):
        os.makedirs(os.path.dirname(self.ledger), mode=0o700, exist_ok=True)
        with open(self.ledger, "wb") as file:
            file.write(text.encode() if isinstance(text, str) else text)
        os.chmod(self.ledger, 0o600)

    def receipts(self, *args, inside=None):
        """What `postbag receipts ARGS` says inside `inside`'s session, a line a letter."""
        return self.ok("receipts", *args, inside=inside).splitlines()

    def door_now(self, peer):
        """What `open` says of `peer`'s door, from the line it gives it on stderr."""
        opened = self.run("open", "3")
        assert opened.returncode == 0, opened.stderr
        said = opened.stderr.splitlines()
        [line] = [line for line in said if line.startswith((f"postbag: {peer}", f"postbag: whether {peer}"))]
        return line.removeprefix("postbag: ")

    def joined(self, cwd=None):
        """Both peers joined, each from a session working in `cwd` (default: the runner's)."""
        self.ok("join", "claude", inside="claude", cwd=cwd)
        self.ok("join", "codex", inside="codex", cwd=cwd)

    def ready(self, limit=12, cwd=None):
        """Both peers joined and an exchange of `limit` letters open, in `cwd`."""
        self.joined(cwd)
        self.open("--limit", str(limit), cwd=cwd)


# What a test that runs postbag in this process could leave changed: the dispositions the
# command line and the MCP server set, and the mask an append holds signals back with.
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGXFSZ)


@pytest.fixture(autouse=True)
def signals_as_found():
    """Every test leaves this process's signals as it found them: a worker left ignoring
    SIGINT would pass that on to every child it starts after, and a `read --follow` there
    would outlive Ctrl-C. The test that changed them fails, and they are put back."""
    handlers = {number: signal.getsignal(number) for number in SIGNALS}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    yield
    left = {number: signal.getsignal(number) for number in SIGNALS}, signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    for number, handler in handlers.items():
        signal.signal(number, handler)
    assert left == (handlers, mask), "the test left this process's signals changed"


@pytest.fixture
def short_folder():
    """A folder whose path is short enough to grow to a socket path of any length tested:
    pytest's own is longer than a socket's address holds on macOS, and, with a longer user
    name or run number, than the listener a send makes beside Claude's inbox can be."""
    folder = tempfile.mkdtemp(prefix="pb-", dir="/tmp")
    yield pathlib.Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def inbox(short_folder):
    server = FakeInbox(str(short_folder / "inbox.sock"), f"tok-{uuid.uuid4().hex}")
    yield server
    server.close()


@pytest.fixture
def codex(tmp_path):
    return FakeCodex(str(tmp_path / "codexbin"), str(uuid.uuid4()))


@pytest.fixture
def postbag(command, tmp_path, inbox, codex, request):
    in_process = request.node.get_closest_marker("process") is None
    return Postbag(request.getfixturevalue("target"), command, tmp_path, inbox, codex, in_process=in_process)


@pytest.fixture
def exchange(postbag, inbox, codex):
    """Both peers joined, an exchange open, letter 4 from codex to claude and letter 5 back;
    the records each vendor keeps (written.py), empty so far; and the two envelopes."""
    postbag.ready()
    postbag.ok("send", "claude", "Review it.", inside="codex")
    postbag.ok("send", "codex", "Reviewed.", inside="claude")
    home = postbag.env["HOME"]
    return Claude(home, inbox.session), Codex(home, codex.thread), inbox.envelopes(1)[0], codex.envelopes()[0]
