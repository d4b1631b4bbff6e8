"""A send stopped while it appends: no signal it can block tears a record, and what SIGKILL
leaves is cut back by the next writer, which says so."""

import json
import os
import random
import re
import signal
import subprocess

import pytest
from fakes import less
from helpers import DOOR_NOW, REPLACES

BODY = "x" * (90 * 1024)  # a long letter: its append spans many pages
CUT = (
    "postbag: an interrupted send left an unfinished record after line 3; "
    "it was removed, and its letter may have been delivered\n"
)


@pytest.fixture
def clients(tmp_path, postbag):
    from fakes import FakeClaude

    claude = FakeClaude(str(tmp_path / "claude-bin"))
    return {"PATH": f"{claude.directory}{os.pathsep}{postbag.env['PATH']}"}


def unfinished_ledger(postbag):
    """Three records, then the first half of a fourth, as a send killed mid-append leaves them."""
    postbag.ready()
    record = {"n": 4, "at": "2026-09-08T10:02:11+02:00", "kind": "letter", "from": "claude", "to": "codex"}
    half = json.dumps({**record, "body": "half a letter"})[:-10]
    complete = postbag.ledger_bytes()
    postbag.write_ledger(complete + half.encode())
    return complete


@pytest.mark.shipped
@pytest.mark.parametrize("linger", [False, True], ids=["", "while codex's waiter lives"])
@pytest.mark.parametrize("name", ["TERM", "HUP", "INT", "QUIT", "USR1"])
def test_a_signal_during_the_append_waits_until_the_record_is_whole(postbag, codex, name, linger):
    """Also while the thread that waited for codex queue is still alive: a signal sent to the
    process must not be taken by that thread, which would die with the record half written."""
    postbag.ready()
    faulty = postbag.with_faults(f"signal={name}" + (",linger" if linger else ""))
    result = faulty.run("send", "codex", BODY, inside="claude")
    if name == "INT":  # the letter was handed over: an interrupt no longer changes the outcome
        assert (result.returncode, result.stdout) == (0, "letter 4 delivered to codex, 11 left\n")
    else:
        assert result.returncode == -getattr(signal, f"SIG{name}")
    lines = postbag.ledger_bytes().splitlines(keepends=True)
    assert len(lines) == 4 and lines[-1].endswith(b"\n")
    assert json.loads(lines[-1])["body"] == BODY
    assert "  letter claude -> codex" in postbag.ok("read", "1")


def test_read_shows_every_whole_record_then_says_the_next_writer_removes_the_unfinished_one(postbag, clients):
    """Nothing is wrong that the next writer does not mend: read, doctor and open agree."""
    unfinished_ledger(postbag)
    expected = (
        f"ledger is truncated after line 3 ({postbag.ledger}): its last record is unfinished, most likely from "
        "an interrupted send, and the next send, join or open removes it"
    )
    result = postbag.run("read")
    assert (result.returncode, result.stderr) == (0, f"postbag: {expected}\n")
    doctor = postbag.run("doctor", env=clients).stdout.splitlines()
    assert f"note  the ledger: {expected}" in doctor
    assert [line.split()[2:] for line in result.stdout.splitlines()] == [
        ["join", "claude"],
        ["join", "codex"],
        ["open", "12", "letters"],
    ]
    assert result.stdout.count("\n") == 3
    assert postbag.run("read", "2").stdout.count("\n") == 2
    assert postbag.run("read", "--json").stdout.count("\n") == 3


@pytest.mark.shipped
@pytest.mark.parametrize(
    ("args", "inside", "receipt"),
    [
        (("send", "codex", "hi"), "claude", "letter 4 delivered to codex, 11 left\n"),
        (("join", "codex"), "codex", "codex joined\n"),
        (("open", "--limit", "2"), None, "exchange open: 2 letters\n"),
    ],
)
def test_the_next_writer_cuts_the_unfinished_record_says_so_and_works(postbag, args, inside, receipt):
    complete = unfinished_ledger(postbag)
    result = postbag.run(*args, inside=inside)
    assert (result.returncode, result.stdout) == (0, receipt)
    assert result.stderr.startswith(CUT + postbag.wrote)
    doors = result.stderr[len(CUT + postbag.wrote) :]  # what open says of the doors, and no one else
    assert doors == "" or (args[0] == "open" and re.fullmatch(f"({REPLACES})?({DOOR_NOW})+", doors)), doors
    data = postbag.ledger_bytes()
    assert data.startswith(complete) and data.count(b"\n") == 4 and data.endswith(b"\n")
    assert postbag.run("read").returncode == 0


def test_a_send_killed_at_any_moment_leaves_a_ledger_the_next_send_continues(postbag, codex):
    """SIGKILL cannot be blocked: wherever it lands, the next send repairs what it left."""
    postbag.ready(limit=1000)
    chances = random.Random(10)
    # A kill landing while coverage's hook saves its data would leave a torn data file.
    environment = less({**postbag.env, **postbag.session("claude")}, "COVERAGE_")
    for attempt in range(20):
        sender = subprocess.Popen([*postbag.command, "send", "codex", "-"], env=environment, stdin=subprocess.PIPE)
        sender.stdin.write(BODY.encode())
        sender.stdin.close()
        try:
            sender.wait(chances.uniform(0, 0.25))
        except subprocess.TimeoutExpired:
            sender.kill()
            sender.wait()
        result = postbag.run("send", "codex", f"after kill {attempt}", inside="claude")
        cut = CUT.replace("line 3", f"line {_lines(postbag) - 1}")
        assert result.returncode == 0 and result.stderr in (postbag.wrote, cut + postbag.wrote)
        records = postbag.records()
        assert [r["n"] for r in records] == list(range(1, len(records) + 1))
        assert records[-1]["body"] == f"after kill {attempt}"


def _lines(postbag):
    return postbag.ledger_bytes().count(b"\n")
