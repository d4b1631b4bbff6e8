"""postbag 1.0 as its users knew it: the same ledgers read byte for byte the same, the same
letters accepted, every limit and every ledger 1.0 took still taken."""

import fcntl
import json
import os
import subprocess
import sys

import pytest
from fakes import terminal_environment
from helpers import AFRESH, AT, ROOT, line
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

CACHE = os.path.join(ROOT, ".cache")


def letter(n, body, sender="codex", at=AT):
    return line(
        n=n, at=at, kind="letter", **{"from": sender, "to": "claude" if sender == "codex" else "codex", "body": body}
    )


@pytest.fixture(scope="session")
def postbag_1_0():
    """The argv that runs release 1.0.0, installed from PyPI once into .cache/. It runs
    isolated (-I), so the tree's PYTHONPATH cannot shadow it."""
    venv = os.path.join(CACHE, "postbag-1.0.0")
    python = os.path.join(venv, "bin", "python")
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, "postbag-1.0.0.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest-xdist's workers share one install
        if not os.path.exists(os.path.join(venv, "bin", "postbag")):
            steps = (
                [sys.executable, "-m", "venv", venv],
                [os.path.join(venv, "bin", "pip"), "install", "-q", "postbag==1.0.0"],
            )
            for step in steps:
                done = subprocess.run(step, capture_output=True, text=True, check=False)
                if done.returncode:
                    pytest.skip(f"postbag 1.0.0 could not be installed from PyPI: {done.stderr.strip()[-200:]}")
    return [python, "-I", "-m", "postbag"]


# Each promise of 1.0, through the CLI


@pytest.mark.parametrize("body", [" ", "\n\t \n", "\u3000"])
def test_a_body_of_whitespace_needs_text(postbag, codex, body):
    postbag.ready()
    assert postbag.refused("send", "codex", body, inside="claude") == "a letter needs text"
    assert postbag.refused("send", "codex", "-", input=body, inside="claude") == "a letter needs text"
    assert codex.calls() == []


def test_postbag_codex_may_name_a_program_on_path(postbag, codex):
    postbag.ready()
    os.rename(codex.path, os.path.join(codex.directory, "codex-beta"))
    env = {"POSTBAG_CODEX": "codex-beta", "PATH": f"{codex.directory}{os.pathsep}{postbag.env['PATH']}"}
    assert postbag.ok("send", "codex", "hi", inside="claude", env=env) == "letter 4 delivered to codex, 11 left\n"
    assert postbag.refused("send", "codex", "hi", inside="claude", env={"POSTBAG_CODEX": "codex-gamma"}) == (
        "no codex at codex-gamma; set POSTBAG_CODEX"
    )


def test_any_limit_1_0_took_opens_and_continues(postbag, codex):
    postbag.ok("join", "claude", inside="claude")
    postbag.ok("join", "codex", inside="codex")
    assert postbag.open("--limit", "2000000000") == "exchange open: 2000000000 letters\n"
    assert postbag.ok("send", "codex", "hi", inside="claude") == "letter 4 delivered to codex, 1999999999 left\n"
    postbag.write_ledger(postbag.ledger_bytes() + line(n=5, at=AT, kind="open", limit=10**30).encode())
    assert postbag.ok("read", "1").endswith(f"open   {10**30} letters\n")
    assert postbag.ok("send", "claude", "ok", inside="codex") == f"letter 6 delivered to claude, {10**30 - 1} left\n"


@pytest.mark.parametrize(("damage", "first_bad"), [("delete", 2), ("insert", 3)])
def test_the_first_line_out_of_place_is_named_by_every_verb(postbag, damage, first_bad):
    postbag.ready()
    for n in (4, 5):
        postbag.write_ledger(postbag.ledger_bytes() + letter(n, f"letter {n}").encode())
    lines = postbag.ledger_bytes().splitlines(keepends=True)
    lines[1:2] = [] if damage == "delete" else [lines[1], lines[1]]
    postbag.write_ledger(b"".join(lines))
    expected = f"ledger line {first_bad} is not a record ({postbag.ledger})"
    assert postbag.refused("read", streamed=postbag.run("read").stdout) == expected + AFRESH
    for args, inside in [(("read", "1"), "codex"), (("send", "codex", "hi"), "claude")]:
        assert postbag.refused(*args, inside=inside) == expected
    assert postbag.refused("open") == expected + AFRESH  # to the person, who opens: the reason, and the fix


def test_crlf_endings_and_spaces_around_a_record_read_and_continue(postbag, codex):
    postbag.write_ledger(
        line(n=1, at=AT, kind="join", peer="codex", thread=codex.thread).replace("\n", "\r\n")
        + "  "
        + line(n=2, at=AT, kind="open", limit=3).replace("\n", " \t\r\n")
        + "\t"
        + letter(3, "hi")
    )
    assert postbag.ok("read") == (
        f"   1  {AT}  join   codex\n   2  {AT}  open   3 letters\n   3  {AT}  letter codex -> claude\n      hi\n"
    )
    assert postbag.ok("send", "codex", "hello", inside="claude") == "letter 4 delivered to codex, 1 left\n"


@pytest.mark.parametrize(
    ("at", "shown"),
    [
        ("2026-09-08 10:02:11", "2026-09-08 10:02:11"),
        ("2026/09/08 10:02", "2026/09/08 10:02"),
        ("2026-09-08T10:02:11.123456", "2026-09-08T10:02:11.123456"),
        (AT + "\n   9  " + AT, AT + "\\x0a   9  " + AT),  # cannot forge a line of read
        ("\x1b[2J" + AT + "\t", "\\x1b[2J" + AT + "\\x09"),
    ],
    ids=["a space", "slashes", "microseconds", "a newline", "escapes"],
)
def test_any_timestamp_1_0_took_reads_as_written_with_unsafe_characters_escaped(postbag, at, shown):
    postbag.write_ledger(line(n=1, at=at, kind="open", limit=2))
    assert postbag.ok("read") == f"   1  {shown}  open   2 letters\n"
    assert json.loads(postbag.ok("read", "--json"))["at"] == at


@pytest.mark.process  # the C library reads TZ from the environment of the process
def test_an_offset_with_seconds_is_written_exactly(postbag):
    postbag.open(env={"TZ": "XXX-01:00:30"})  # POSIX: local time is UTC+01:00:30
    assert json.loads(postbag.ledger_bytes())["at"].endswith("+01:00:30")


def test_codex_killed_by_a_signal_is_named_by_its_signal(postbag, codex):
    postbag.ready()
    codex.behave(exit=-15)
    assert "(codex queue was killed by signal 15 (SIGTERM))" in postbag.refused("send", "codex", "hi", inside="claude")


# Side by side with 1.0 itself

# Characters that 1.0 prints raw and postbag escapes on purpose are left out; line breaks
# of every kind, tabs and other scripts stay in.
ESCAPED_ON_PURPOSE = [
    chr(code)
    for code in (*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))
    if chr(code) not in "\t\n\r\x0b\x0c\x1c\x1d\x1e\x85"  # tab, and what splitlines() breaks at
]
BODIES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=ESCAPED_ON_PURPOSE), min_size=1)
STAMPS = st.sampled_from([AT, "2026-09-08T10:02:11", "2026-09-08 10:02:11", "2026-09-08T10:02:11.5-05:30", "yesterday"])


@st.composite
def ledgers_1_0_reads(draw):
    records = []
    for n in range(1, draw(st.integers(1, 8)) + 1):
        at, kind = draw(STAMPS), draw(st.sampled_from(["letter", "letter", "open", "join"]))
        if kind == "letter":
            records.append(letter(n, draw(BODIES), draw(st.sampled_from(["claude", "codex"])), at))
        elif kind == "open":
            records.append(line(n=n, at=at, kind="open", limit=draw(st.integers(1, 10**12))))
        else:
            records.append(line(n=n, at=at, kind="join", peer="codex", thread="0f0e0d0c-0b0a-4999-8888-777766665555"))
    ending = draw(st.sampled_from(["\n", "\r\n", " \n"]))
    return "".join(record.replace("\n", ending) for record in records).encode()


# 1.0 itself, for each of many ledgers: one Python that has imported 1.0's module forks a
# child for each command, whose environment, stdin, stdout and stderr are the command's
# own, and which exits as `python -I -m postbag` would; without the 50 ms that start-up
# and 1.0's imports cost each of a property test's runs.
FORKS_1_0 = r"""
import json, os, sys
import postbag

for request in sys.stdin:
    args, env, out = json.loads(request)
    child = os.fork()
    if child == 0:
        os.environ.clear()
        os.environ.update(env)
        for fd, path in ((0, os.devnull), (1, out + ".out"), (2, out + ".err")):
            opened = os.open(path, os.O_RDONLY if fd == 0 else os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        status = 1
        try:
            postbag.main(args)
            status = 0
        except SystemExit as stop:  # as the interpreter ends on one
            status = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
            if not isinstance(stop.code, (int, type(None))):
                print(stop.code, file=sys.stderr)
        except BaseException:  # as the interpreter ends on any other
            import traceback
            traceback.print_exc()
        finally:  # never back into this loop: the child ends here
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    _, waited = os.waitpid(child, 0)
    print(os.waitstatus_to_exitcode(waited), flush=True)
"""


@pytest.fixture(scope="session")
def forks_1_0(postbag_1_0):
    """Runs 1.0's `postbag ARGS` with an environment: (its exit status, stdout, stderr)."""
    python = postbag_1_0[0]
    server = subprocess.Popen(
        [python, "-I", "-c", FORKS_1_0], env=terminal_environment(), stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )

    def run(args, env, out):
        server.stdin.write((json.dumps([args, env, str(out)]) + "\n").encode())
        server.stdin.flush()
        status = int(server.stdout.readline())
        with open(f"{out}.out", "rb") as stdout, open(f"{out}.err", "rb") as stderr:
            return status, stdout.read(), stderr.read()

    yield run
    server.stdin.close()
    server.wait(60)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ledger=ledgers_1_0_reads(), tail=st.integers(1, 9))
@example(ledger=letter(1, "a\nb\r\nc\rd\x0be\x0cf\x1cg\x1dh\x1ei\x85j\u2028k\u2029l\t\n\n").encode(), tail=1)
@example(ledger=(letter(1, "\n") + letter(2, " ") + letter(3, "x\r\r\n")).encode(), tail=2)
def test_every_ledger_reads_byte_for_byte_as_in_1_0(postbag, forks_1_0, tmp_path, ledger, tail):
    postbag.write_ledger(ledger)
    env = {**postbag.env, "PYTHONIOENCODING": "utf-8"}
    for args in (["read"], ["read", str(tail)]):
        status, out, err = forks_1_0(args, env, tmp_path / "by-1-0")
        theirs = subprocess.CompletedProcess(args, status, out, err)
        ours = postbag.run(*args, input=b"")  # in this process: its stdout is UTF-8
        assert theirs.returncode == 0, theirs.stderr
        assert (ours.returncode, ours.stdout, ours.stderr) == (0, theirs.stdout, b"")


@pytest.mark.shipped
def test_a_ledger_written_here_reads_in_1_0(postbag, postbag_1_0, codex, inbox):
    postbag.ready(limit=3)
    postbag.ok("send", "codex", "first\nsecond\n", inside="claude")
    postbag.ok("send", "claude", "-", inside="codex", input="reply\u2028with a break\n")
    env = {**postbag.env, "PYTHONIOENCODING": "utf-8"}
    theirs = subprocess.run([*postbag_1_0, "read"], env=env, capture_output=True, check=False)
    assert (theirs.returncode, theirs.stderr) == (0, b"")
    assert theirs.stdout == postbag.run("read").stdout.encode()


def test_an_exchange_opened_not_to_wake_reads_and_sends_in_1_0(postbag, postbag_1_0, codex, inbox):
    """`open --no-wake` records one field more, "wake": false; 1.0 reads it, and sends
    within that exchange as it always did, waking nothing."""
    postbag.ok("join", "claude", inside="claude")
    postbag.ok("join", "codex", inside="codex")
    postbag.open("3", "--no-wake")
    assert postbag.ledger_bytes().count(b'"wake": false') == 1
    env = {**postbag.env, "PYTHONIOENCODING": "utf-8", **postbag.session("claude")}
    theirs = subprocess.run([*postbag_1_0, "read"], env=env, capture_output=True, check=False)
    assert (theirs.returncode, theirs.stderr) == (0, b"")
    assert theirs.stdout == postbag.run("read").stdout.encode()
    sent = subprocess.run([*postbag_1_0, "send", "codex", "from 1.0"], env=env, capture_output=True, text=True)
    assert (sent.returncode, sent.stdout) == (0, "letter 4 delivered to codex, 2 left\n")
    assert codex.resumed() == [False]


def test_a_ledger_whose_peers_joined_through_the_mcp_door_reads_and_sends_in_1_0(postbag, postbag_1_0, codex, inbox):
    """A join through the door records one field more, "via": "mcp". 1.0 checks only the
    fields it knows, so it reads such a ledger, and sends through the doors it records."""
    for inside, meta in (("claude", None), (None, {"threadId": codex.thread})):
        server = postbag.mcp(inside)
        server.handshake()
        assert server.tool("join", meta=meta)[0].split("\n")[0].endswith("joined")
        server.close()
    postbag.open("--limit", "3")
    assert postbag.ledger_bytes().count(b'"via": "mcp"') == 2
    env = {**postbag.env, "PYTHONIOENCODING": "utf-8", "CODEX_SESSION_ID": codex.thread}
    theirs = subprocess.run([*postbag_1_0, "read"], env=env, capture_output=True, check=False)
    assert (theirs.returncode, theirs.stderr) == (0, b"")
    assert theirs.stdout == postbag.run("read").stdout.encode()
    sent = subprocess.run([*postbag_1_0, "send", "claude", "from 1.0"], env=env, capture_output=True, text=True)
    assert (sent.returncode, sent.stdout) == (0, "letter 4 delivered to claude, 2 left\n")
    assert inbox.envelopes(1)[0].endswith("\n\nfrom 1.0")


# The documented ways of running the suite


@pytest.mark.parametrize("switch", [["--target", "src"], ["--target=pyz"]])
def test_the_documented_target_switch_works(switch):
    env = terminal_environment(without=("COV_", "COVERAGE_"))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *switch, "-p", "no:cacheprovider", "-q", "--co", "tests/test_cli.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    target = switch[-1].rpartition("=")[2]
    collected = [line for line in result.stdout.splitlines() if "::" in line]
    other = {"src": "pyz", "pyz": "src"}[target]
    ids = [line.rpartition("[")[2].rstrip("]").split("-") for line in collected if "[" in line]
    assert ids and all(target in parts and other not in parts for parts in ids)


# 1.0's own black-box tests, from its sdist, run against the built archive.

# Each of 1.0's hardening tests this postbag does not pass, and the row of
# docs/compared-with-1.0.md that says why: a deliberate change, not a fault.
IN_YOUR_TERMINAL = "a refusal of any verb ends in words for you"
CHANGED = {
    "test_valid_json_with_invalid_record_shape_is_a_clean_refusal": IN_YOUR_TERMINAL,
    "test_invalid_utf8_ledger_is_a_clean_refusal": IN_YOUR_TERMINAL,
}


@pytest.fixture(scope="session")
def hardening_1_0(postbag_1_0, tmp_path_factory):
    """1.0.0's test_hardening.py, from its sdist on PyPI, fetched once into .cache/ by the
    pip of the virtual environment 1.0.0 was installed in."""
    path = os.path.join(CACHE, "postbag-1.0.0-sdist", "test_hardening.py")
    with open(os.path.join(CACHE, "postbag-1.0.0.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(path):
            download = tmp_path_factory.mktemp("sdist")
            pip = os.path.join(CACHE, "postbag-1.0.0", "bin", "pip")
            step = [pip, "download", "-q", "--no-deps", "--no-binary", ":all:"]
            done = subprocess.run([*step, "-d", str(download), "postbag==1.0.0"], capture_output=True, text=True)
            if done.returncode:
                pytest.skip(f"postbag 1.0.0's sdist could not be fetched from PyPI: {done.stderr.strip()[-200:]}")
            import tarfile

            with tarfile.open(download / "postbag-1.0.0.tar.gz") as sdist:
                member = sdist.extractfile("postbag-1.0.0/test_hardening.py")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as file:
                    file.write(member.read())
    return path


def test_1_0s_own_hardening_tests_pass_against_the_built_archive_but_where_a_change_is_listed(
    pyz, hardening_1_0, tmp_path
):
    """They run the script beside them as `python postbag.py`: here that is the archive. Its
    fake Claude socket is a path nobody listens on, which `join claude` now refuses (a
    listed change): a socket listens there, so that the tests that need a join run too."""
    import socket

    with open(hardening_1_0) as file:
        text = file.read()
    listening = str(tmp_path / "inbox.sock")
    assert "/tmp/postbag-test-unused.sock" in text
    (tmp_path / "test_hardening.py").write_text(text.replace("/tmp/postbag-test-unused.sock", listening))
    os.symlink(pyz, tmp_path / "postbag.py")
    with open(os.path.join(ROOT, "docs", "compared-with-1.0.md")) as file:
        listed = file.read()
    assert all(row in listed for row in CHANGED.values())
    deselected = [f"--deselect=test_hardening.py::{name}" for name in CHANGED]
    with socket.socket(socket.AF_UNIX) as inbox:
        inbox.bind(listening)
        inbox.listen(64)
        ran = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *deselected],
            cwd=tmp_path,
            # 1.0's tests need none of the plugins this environment installs, which would load first.
            env=terminal_environment(
                without=("COVERAGE_",), HOME=str(tmp_path / "home"), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"
            ),
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert ran.returncode == 0, ran.stdout[-3000:]
    assert " passed" in ran.stdout and "failed" not in ran.stdout
