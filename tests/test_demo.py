"""The demo is the protocol run end to end; as a test it cannot rot."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_demo_runs_a_whole_exchange_and_cleans_up(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "POSTBAG_", "COVERAGE_"))}
    env["TMPDIR"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "demo.py"), "--limit", "5"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "codex  <- letter 8, through codex queue:" in out  # five letters, numbered 4 to 8
    assert "letter 9" not in out
    assert "It is the last letter of the exchange; do not reply." in out
    assert "the letter says not to reply, so it does not" in out
    assert "postbag: the exchange's letters are spent; stop and ask the human" in out
    assert "5 letters delivered through both doors" in out
    assert os.listdir(tmp_path) == []  # the temporary ledger and directory are gone


def test_the_demo_keeps_its_directory_when_asked(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "POSTBAG_", "COVERAGE_"))}
    env["TMPDIR"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "demo.py"), "--limit", "1", "--keep"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    [kept] = os.listdir(tmp_path)
    assert os.path.exists(tmp_path / kept / "ledger.jsonl")
    assert f"kept {tmp_path / kept}" in result.stdout
