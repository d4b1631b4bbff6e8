"""The demo is the protocol run end to end; as a test it cannot rot."""

import os
import subprocess
import sys

import clients
import pytest
from fakes import terminal_environment
from helpers import ROOT


def demo(tmp_path, *args, timeout=120):
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "demo.py"), *args],
        env=terminal_environment(without=("COVERAGE_",), TMPDIR=str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_the_demo_runs_a_whole_exchange_and_cleans_up(tmp_path):
    result = demo(tmp_path, "--limit", "5")
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
    result = demo(tmp_path, "--limit", "1", "--keep")
    assert result.returncode == 0, result.stdout + result.stderr
    [kept] = os.listdir(tmp_path)
    assert os.path.exists(tmp_path / kept / "ledger.jsonl")
    assert f"kept {tmp_path / kept}" in result.stdout


@pytest.mark.skipif(clients.missing() is not None, reason=f"real clients: {clients.missing()}")
def test_the_demo_runs_on_the_real_clients_at_its_default_limit(tmp_path):
    result = demo(tmp_path, "--real", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    # Codex in its default sandbox joins and answers through postbag's MCP server
    assert "codex  > join, a tool of its postbag MCP server\n        codex joined\n" in out
    assert "codex  received, in its thread:\n        | Letter 4 from claude via postbag. If it needs" in out
    assert "claude received, in its transcript:\n        | Letter 9 from codex via postbag. It is the last" in out
    assert "6 letters delivered through both doors" in out
    assert [name for name in os.listdir(tmp_path) if name.startswith("postbag-")] == []  # claude keeps a folder


@pytest.mark.skipif(clients.missing() is None, reason="the real clients are installed here")
def test_the_demo_on_real_clients_says_what_is_missing(tmp_path):
    result = demo(tmp_path, "--real")
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
