"""What many tests share: where the project lies, the words every refusal ends with, the
variables a vendor exports into its sessions, and ledger lines written by hand. These
are the specification the tests hold postbag to, written out here rather than taken
from postbag's own code, so a change there cannot pass unseen."""

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")

# Every variable a vendor exports into its sessions.
SESSION_VARIABLES = (
    "CLAUDE_CODE_MESSAGING_SOCKET",
    "CLAUDE_CODE_MESSAGING_TOKEN",
    "CODEX_SESSION_ID",
    "CODEX_THREAD_ID",
    "CLAUDECODE",
    "CLAUDE_CODE_SESSION_ID",
)
STOP = "; stop and ask the human\n"
# What a person does about a damaged ledger, after the reason, where a refusal in their own terminal meets one.
AFRESH = ": run postbag open --afresh to set it aside, whole, and start a new one, which both agents then join"
# A line in which open says of a joined peer's door whether it can take a letter now
# (test_receipts.py holds each to its words).
DOOR_NOW = r"postbag: (whether )?(claude|codex)('s letters)? [^\n]+\n"
# What open says of an exchange it replaces, while that one still had letters.
REPLACES = r"postbag: this replaces the open exchange, which still had \d+ of its \d+ letters\n"
BODY_MAX = 96 * 1024  # the largest letter, in bytes, that every door must carry whole
AT = "2026-09-08T10:02:11+02:00"  # a time as 1.0 wrote it
TIMESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d"  # a time as postbag writes it now


def run_on_the_tree(probe, check=True):
    """Run the program `probe` in a Python of its own, on the tree's postbag (and no user
    site-packages), in a person's terminal as the suite makes one (coverage's variables
    among it, so that what it runs is measured too): its stdout, after it exits 0 where
    `check`; else the finished process."""
    import subprocess
    import sys

    from fakes import terminal_environment

    env = terminal_environment(PYTHONPATH=SRC)
    done = subprocess.run([sys.executable, "-s", "-c", probe], env=env, capture_output=True, text=True, check=False)
    if not check:
        return done
    assert done.returncode == 0, done.stderr
    return done.stdout


def line(**record):
    """One ledger line, serialised as 1.0 wrote it."""
    return json.dumps(record) + "\n"


def many_opens(first, end):
    """Ledger lines `first` to `end - 1`, each an open record: a ledger as long as wanted."""
    return "".join(line(n=n, at=AT, kind="open", limit=12) for n in range(first, end)).encode()


def run_demo(tmp_path, *args, timeout=120):
    """scripts/demo.py as a person runs it, from a terminal, its temporary files under `tmp_path`."""
    import subprocess
    import sys

    from fakes import terminal_environment

    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "demo.py"), *args],
        env=terminal_environment(without=("COVERAGE_",), TMPDIR=str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def examples(count):
    """`count` hypothesis examples where CI runs the suite, derandomized (conftest.py); half as many on a
    contributor's machine, where each run draws new ones, so that runs add up to more than CI's."""
    return count if os.environ.get("CI") else max(1, count // 2)
