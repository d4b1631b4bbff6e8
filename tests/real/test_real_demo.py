"""The demo on the real clients, at its defaults: a real Claude Code session and a real Codex
session in its default sandbox, through both doors."""

import os
import re

from helpers import run_demo


def test_the_demo_runs_on_the_real_clients_at_its_default_limit(tmp_path):
    result = run_demo(tmp_path, "--real", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    # Codex in its default sandbox joins and answers through postbag's MCP server
    assert "codex  > join, a tool of its postbag MCP server\n        codex joined\n" in out
    # What each received, as its client recorded it, in the order the letters were written.
    received = re.findall(r"^(\w+) +<- letter (\d+), in its (thread|transcript):$", out, re.MULTILINE)
    assert received == [
        ("codex" if n % 2 == 0 else "claude", str(n), "thread" if n % 2 == 0 else "transcript") for n in range(4, 10)
    ]
    assert "codex  <- letter 4, in its thread:\n        | Letter 4 from claude via postbag. If it needs" in out
    assert "claude <- letter 9, in its transcript:\n        | Letter 9 from codex via postbag. It is the last" in out
    assert "6 letters delivered through both doors, numbered 4 to 9 as the ledger numbers its records;\n" in out
    assert [name for name in os.listdir(tmp_path) if name.startswith("postbag-")] == []  # claude keeps a folder
