"""What postbag does with its standard streams and its lock: a closed or broken stdout
never turns a recorded letter into a failure, no verb holds the lock while it writes, and
everything on stderr is escaped."""

import fcntl
import os
import select
import subprocess

import pytest

from conftest import STOP

LONG = "y" * (96 * 1024)  # more than a pipe holds


def run_in_sh(postbag, script, *args, inside=None, stdin=None):
    """postbag ARGS run through sh, with `script` rearranging its descriptors first."""
    env = {**postbag.env, **(postbag.session(inside) if inside else {})}
    argv = ["/bin/sh", "-c", f'{script}; exec "$@"', "sh", *postbag.command, *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, input=stdin, timeout=60, check=False)


def test_a_recorded_letter_succeeds_when_stdout_is_closed(postbag, codex):
    postbag.ready()
    result = run_in_sh(postbag, "exec 1>&-", "send", "codex", "hi", inside="claude")
    assert (result.returncode, result.stderr) == (0, "")
    assert postbag.ok("read", "1").endswith("      hi\n")


def test_a_recorded_letter_succeeds_when_its_reader_went_away(postbag, codex):
    postbag.ready()
    env = {**postbag.env, **postbag.session("claude")}
    reader, writer = os.pipe()
    os.close(reader)  # the receipt's reader is gone before it is written
    try:
        result = subprocess.run(
            [*postbag.command, "send", "codex", "hi"], env=env, stdout=writer, stderr=subprocess.PIPE, check=False
        )
    finally:
        os.close(writer)
    assert (result.returncode, result.stderr) == (0, b"")
    assert len(codex.envelopes()) == 1 and postbag.ok("read", "1").endswith("      hi\n")


def test_send_dash_with_stdin_closed_is_refused(postbag, codex):
    postbag.ready()
    result = run_in_sh(postbag, "exec 0<&-", "send", "codex", "-", inside="claude")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"postbag: send - reads the letter from stdin, and stdin is closed{STOP}"
    assert codex.calls() == []


@pytest.mark.parametrize("args", [("read", "1"), ("read", "--json", "1"), ("read",)])
def test_a_reader_stuck_on_its_pipe_holds_up_no_send(postbag, codex, args):
    postbag.ready()
    postbag.ok("send", "codex", LONG, inside="claude")
    reader = subprocess.Popen([*postbag.command, *args], env=postbag.env, stdout=subprocess.PIPE)
    try:
        assert reader.stdout.read(1)  # it has begun writing, and the pipe is too small for the rest
        sent = postbag.run("send", "codex", "while the pager waits", inside="claude", timeout=20)
        assert (sent.returncode, sent.stdout) == (0, "letter 5 delivered to codex, 10 left\n")
    finally:
        reader.stdout.read()
        reader.wait()


def test_read_says_once_that_it_waits_for_a_send_in_progress(postbag):
    postbag.ready()
    with open(postbag.ledger, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a send holds it while a door is slow
        reader = subprocess.Popen(
            [*postbag.command, "read", "1"], env=postbag.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        ready, _, _ = select.select([reader.stderr], [], [], 20)
        assert ready, "read said nothing while it waited"
        said = reader.stderr.readline()
    out, rest = reader.communicate(timeout=20)
    assert said + rest == b"postbag: waiting for a send in progress to finish\n"
    assert reader.returncode == 0 and out.endswith(b"open   12 letters\n")


def test_a_path_from_an_unusual_home_is_escaped_on_stderr(postbag, tmp_path):
    home = tmp_path / "home\x1b[2J\nfake"
    (home / ".postbag" / "ledger.jsonl").mkdir(parents=True)  # a directory where the ledger should be
    env = {"HOME": str(home), "POSTBAG_LEDGER": None}
    shown = str(home).replace("\x1b", "\\x1b").replace("\n", "\\x0a") + "/.postbag/ledger.jsonl"
    assert postbag.refused("open", env=env) == f"the ledger is not a regular file ({shown})"


def test_no_vendor_session_variable_reaches_codex_queue(postbag, codex):
    postbag.ready()
    vendor = {
        "CLAUDECODE": "1",
        "CLAUDE_CODE_SESSION_ID": "claude-session",
        "CLAUDE_CODE_ENTRYPOINT": "cli",
        "CLAUDE_CODE_MESSAGING_NEXT": "a variable a later Claude Code may add",
        "CODEX_THREAD_ID": "",
        "CODEX_SESSION_ID": "",
        "CODEX_PARENT_THREAD_ID": "a variable a later Codex may add",
    }
    kept = {"KEEP_ME": "kept", "CODEX_HOME": "/somewhere/codex"}
    postbag.ok("send", "codex", "hi", inside="claude", env={**vendor, **kept})
    env = codex.calls()[0]["env"]
    assert not {*vendor, *postbag.session("claude"), "POSTBAG_LEDGER"} & set(env)
    assert {name: env[name] for name in kept} == kept


def test_a_refusal_with_stderr_closed_still_exits_1_quietly(postbag):
    result = run_in_sh(postbag, "exec 2>&-", "open", inside="claude")
    assert (result.returncode, result.stdout) == (1, "")


def test_a_refusal_whose_stderr_reader_went_away_still_exits_1(postbag):
    env = {**postbag.env, **postbag.session("claude")}
    reader, writer = os.pipe()
    os.close(reader)
    try:
        result = subprocess.run([*postbag.command, "open"], env=env, stderr=writer, stdout=subprocess.PIPE, check=False)
    finally:
        os.close(writer)
    assert (result.returncode, result.stdout) == (1, b"")
