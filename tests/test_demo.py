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
    # Codex's side goes through the MCP door, Claude's through the command line
    assert "codex  > join, a tool of its postbag MCP server\ncodex    codex joined\n" in out
    assert "codex  > send, a tool of its postbag MCP server\n" in out and "claude $ POSTBAG_LEDGER=" in out
    assert "codex  <- letter 8, through codex queue:" in out  # five letters, numbered 4 to 8
    assert "letter 9" not in out
    assert "It is the last letter of the exchange; do not reply." in out
    assert "the letter says not to reply, so it does not" in out
    assert "postbag: the exchange's letters are spent; stop and ask the human" in out
    assert "5 letters delivered through both doors" in out
    assert os.listdir(tmp_path) == []  # the temporary ledger and directory are gone


def test_the_demo_keeps_its_directory_when_asked(tmp_path):
    result = run_demo(tmp_path, "--limit", "1", "--keep")
    assert result.returncode == 0, result.stdout + result.stderr
    [kept] = os.listdir(tmp_path)
    assert os.path.exists(tmp_path / kept / "ledger.jsonl")
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


def test_the_readmes_copy_of_the_demos_first_lines_is_what_it_prints(tmp_path):
    with open(os.path.join(ROOT, "README.md")) as file:
        shown = file.read().split("<!-- demo: first lines -->\n```\n", 1)[1].split("```", 1)[0].splitlines()
    printed = run_demo(tmp_path).stdout.splitlines()[: len(shown)]

    def same_but_for_paths(line):  # where the clone and the temporary directory lie, and whether it built just now
        return re.sub(r"(/[^ ]*)+", "PATH", line).removesuffix(" (just built)").rstrip()

    assert printed[0] == shown[0]
    assert [same_but_for_paths(line) for line in printed] == [same_but_for_paths(line) for line in shown]
