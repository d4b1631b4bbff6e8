"""The demo is the protocol run end to end; as a test it cannot rot."""

import os
import re
import subprocess
import sys

import clients
import pytest
from fakes import terminal_environment
from helpers import ROOT, run_demo


def test_the_demo_runs_a_whole_exchange_and_cleans_up(tmp_path):
    result = run_demo(tmp_path, "--limit", "5")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    # Codex's side goes through the MCP server, Claude's through the command line
    assert "codex  > join, a tool of its postbag MCP server\ncodex    codex joined\n" in out
    assert "codex  > send, a tool of its postbag MCP server\n" in out
    assert "claude $ postbag send codex - <<'POSTBAG'" in out  # the default ledger: no POSTBAG_LEDGER= to give
    assert "codex  <- letter 8, through codex queue:" in out  # five letters, numbered 4 to 8
    assert "letter 9" not in out
    assert "It is the last letter of the exchange; do not reply." in out
    assert "the letter says not to reply, so it does not" in out
    assert "postbag: the exchange's letters are spent; stop and ask the human" in out
    assert "5 letters delivered through both doors, numbered 4 to 8 as the ledger numbers its records;\n" in out
    assert os.listdir(tmp_path) == []  # the temporary ledger and directory are gone


def test_the_demo_reads_in_the_order_things_happened(tmp_path):
    """Each letter: the sender's command, the letter waking the recipient, the sender's
    receipt, and only then the recipient's answer, which is the next letter's command."""
    result = run_demo(tmp_path, "--limit", "4")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()

    def at(start, pattern):
        return next(i for i in range(start, len(lines)) if re.match(pattern, lines[i]))

    place = at(0, r"claude \$ postbag send codex 'Review")
    for number, sender, recipient in [(4, "claude", "codex"), (5, "codex", "claude"), (6, "claude", "codex")]:
        woken = at(place, rf"{recipient} +<- letter {number}, through ")
        receipt = at(woken, rf"({sender} +| +)letter {number} delivered to {recipient}, {7 - number} left$")
        answer = at(receipt, rf"{recipient} +(\$ postbag send|> send, a tool)")
        assert place < woken < receipt < answer
        assert not [line for line in lines[woken:receipt] if line.startswith(("claude ", "codex "))][1:]
        place = answer
    woken = at(place, r"claude +<- letter 7, through its inbox socket:")
    receipt = at(woken, r"codex +letter 7 delivered to claude, 0 left$")
    assert receipt < at(woken, r"claude +the letter says not to reply")


def test_the_demo_keeps_its_directory_when_asked(tmp_path):
    result = run_demo(tmp_path, "--limit", "1", "--keep")
    assert result.returncode == 0, result.stdout + result.stderr
    [kept] = os.listdir(tmp_path)
    [ledger] = [name for name in os.listdir(tmp_path / kept / "home" / ".postbag") if name.endswith(".jsonl")]
    # the repository's own, where both agents work
    assert ledger.startswith("work-") and ledger.endswith(".jsonl")
    assert os.path.isdir(tmp_path / kept / "work" / ".git")
    assert f"kept {tmp_path / kept}" in result.stdout


@pytest.mark.skipif(clients.missing() is None, reason="the real clients are installed here")
def test_the_demo_on_real_clients_says_what_is_missing(tmp_path):
    result = run_demo(tmp_path, "--real")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"demo --real: {clients.missing()}\n"


def test_the_demo_into_a_pipe_that_closes_early_ends_quietly_and_cleans_up(tmp_path):
    """`python3 scripts/demo.py | head`: the reader goes away after a few lines; the demo
    plays on without printing, tears everything down, and says nothing of it."""
    env = terminal_environment(without=("COVERAGE_",), TMPDIR=str(tmp_path))
    demo = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "scripts", "demo.py")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = demo.stdout.readline()
    demo.stdout.close()  # as head does once it has its lines
    stderr = demo.stderr.read()
    assert demo.wait(120) == 0
    assert first.startswith(b"postbag demo: ") and stderr == b""
    assert os.listdir(tmp_path) == []


def test_the_readmes_picture_of_the_demo_is_what_it_prints_now(tmp_path):
    """docs/demo.svg, drawn by scripts/record_demo.py from a run of the demo: a change to
    what the demo says fails here until the picture is drawn again."""
    checked = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "record_demo.py"), "--check"],
        env=terminal_environment(without=("COVERAGE_",), TMPDIR=str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (checked.returncode, checked.stdout) == (0, "docs/demo.svg is what the demo prints now\n"), checked.stderr
    with open(os.path.join(ROOT, "README.md")) as file:
        assert "](docs/demo.svg)" in file.read()
