"""Bad letters, failed appends, secrets and what reaches the terminal."""

import json
import os
import resource
import shlex
import subprocess
import sys

import pytest

BODY_MAX = 96 * 1024
NOT_RECORDED = (
    "letter 4 was submitted to {peer}'s door but not recorded ({reason}); "
    "do not resend before checking {peer}'s session"
)


def many_opens(first, end):
    line = '{{"n": {}, "at": "2026-09-08T10:02:11+02:00", "kind": "open", "limit": 12}}\n'
    return "".join(line.format(n) for n in range(first, end)).encode()


# Bad letters


def test_a_nul_byte_is_refused_before_any_knock(postbag, codex):
    postbag.ready()
    before = postbag.ledger_bytes()
    assert postbag.refused("send", "codex", "-", inside="claude", input="a\0b") == "a letter cannot hold a NUL byte"
    assert codex.calls() == [] and postbag.ledger_bytes() == before


def test_invalid_utf8_on_stdin_is_refused(postbag, codex):
    postbag.ready()
    reason = postbag.refused("send", "codex", "-", inside="claude", input=b"caf\xe9\n")
    assert reason == "the letter is not valid UTF-8 text"
    assert codex.calls() == []


def test_undecodable_argv_under_a_c_locale_is_refused(postbag, codex):
    postbag.ready()
    env = {**postbag.env, **postbag.session("claude"), "LC_ALL": "C", "PYTHONUTF8": "0"}
    result = subprocess.run([*postbag.command, "send", "codex", b"caf\xe9"], env=env, capture_output=True)
    assert result.returncode == 1
    assert result.stderr == (
        b"postbag: the letter is not valid text (it holds undecodable bytes); stop and ask the human\n"
    )
    assert codex.calls() == []


@pytest.mark.parametrize("recipient", ["codex", "claude"])
def test_a_body_at_the_cap_delivers_through_each_door(postbag, inbox, codex, recipient):
    postbag.ready()
    sender = "claude" if recipient == "codex" else "codex"
    body = ("é" * (BODY_MAX // 2 - 1)) + "ok"  # two bytes a character: exactly the cap
    postbag.ok("send", recipient, "-", inside=sender, input=body)
    delivered = codex.envelopes()[0] if recipient == "codex" else inbox.envelopes(1)[0]
    assert delivered.endswith("\n\n" + body)


def test_a_body_over_the_cap_is_refused_with_the_cap(postbag, codex):
    postbag.ready()
    reason = postbag.refused("send", "codex", "-", inside="claude", input="x" * (BODY_MAX + 1))
    assert reason == f"a letter is at most {BODY_MAX:,} bytes and this one has {BODY_MAX + 1:,}; shorten the letter"
    assert codex.calls() == []


@pytest.mark.skipif(sys.platform != "linux", reason="Linux ties ARG_MAX to the stack limit")
def test_codex_queue_that_cannot_start_for_size_says_shorten(postbag, codex):
    postbag.ready()
    before = postbag.ledger_bytes()

    def small_stack():  # ARG_MAX becomes a quarter of this: 256 KiB for arguments and environment
        resource.setrlimit(resource.RLIMIT_STACK, (1 << 20, resource.getrlimit(resource.RLIMIT_STACK)[1]))

    padding = {f"PADDING_{i}": "p" * 60_000 for i in range(3)}  # one string may hold only 128 KiB
    env = {**postbag.env, **postbag.session("claude"), **padding}
    result = subprocess.run(
        [*postbag.command, "send", "codex", "-"],
        input="x" * BODY_MAX,
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=small_stack,
    )
    assert result.stderr == (
        "postbag: the letter is too long for the system to pass to codex queue; shorten the letter; "
        "stop and ask the human\n"
    )
    assert result.returncode == 1 and codex.calls() == [] and postbag.ledger_bytes() == before


# A failed append after delivery


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("write=ENOSPC", "No space left on device"),
        ("write=EIO", "Input/output error"),
        ("write=EFBIG", "File too large"),
        ("fsync=EIO", "Input/output error"),
        ("short-write", "the disk took only part of the record"),
    ],
)
def test_an_append_that_fails_after_delivery_leaves_no_partial_record(postbag, codex, fault, reason):
    postbag.ready()
    before = postbag.ledger_bytes()
    refusal = postbag.with_faults(fault).refused("send", "codex", "hi", inside="claude")
    assert refusal == NOT_RECORDED.format(peer="codex", reason=reason)
    assert len(codex.calls()) == 1
    assert postbag.ledger_bytes() == before
    assert postbag.ok("send", "codex", "next", inside="claude") == "letter 4 delivered to codex, 11 left\n"


def test_a_file_size_limit_is_a_refusal_not_a_crash(postbag, codex):
    postbag.ready()
    # A long ledger, so the limit just past its end leaves room for every other file written.
    postbag.write_ledger(postbag.ledger_bytes() + many_opens(4, 20_000))
    before = postbag.ledger_bytes()

    def cap_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 10, resource.RLIM_INFINITY))

    env = {**postbag.env, **postbag.session("claude")}
    result = subprocess.run(
        [*postbag.command, "send", "codex", "hi"], env=env, capture_output=True, text=True, preexec_fn=cap_file_size
    )
    assert result.returncode == 1
    assert result.stderr.startswith("postbag: letter 20000 was submitted to codex's door but not recorded (")
    assert postbag.ledger_bytes() == before
    postbag.ok("read")


def test_join_and_open_that_cannot_write_say_so(postbag):
    postbag.ok("open")
    before = postbag.ledger_bytes()
    refusal = postbag.with_faults("write=ENOSPC").refused("open")
    assert refusal == "cannot write the ledger (No space left on device)"
    assert postbag.ledger_bytes() == before


def test_a_ledger_that_cannot_be_locked_is_refused_untouched(postbag, codex):
    postbag.ready()
    before = postbag.ledger_bytes()
    faulty = postbag.with_faults("lock=ENOLCK")
    expected = f"cannot lock the ledger (No locks available: {postbag.ledger})"
    assert faulty.refused("read") == expected
    assert faulty.refused("send", "codex", "hi", inside="claude") == expected
    assert codex.calls() == [] and postbag.ledger_bytes() == before


# The ledger's path


@pytest.mark.parametrize("path", ["/tmp/bag\n.jsonl", "/tmp/\x1b]0;owned\x07.jsonl", "/tmp/\u202eldgr.jsonl"])
def test_a_ledger_path_with_control_characters_is_refused(postbag, path):
    postbag.env["POSTBAG_LEDGER"] = path
    assert postbag.refused("open") == "POSTBAG_LEDGER holds a control character"
    assert not os.path.exists(path)


def test_a_relative_ledger_is_made_absolute_before_stdin_is_read(postbag, codex, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    postbag.env["POSTBAG_LEDGER"] = "rel/ledger.jsonl"
    postbag.ok("join", "codex", inside="codex", cwd=work)
    postbag.ok("open", cwd=work)
    postbag.ok("send", "codex", "-", inside="claude", input="hi", cwd=work)
    assert (work / "rel" / "ledger.jsonl").exists()
    assert f"POSTBAG_LEDGER={work}/rel/ledger.jsonl " in codex.envelopes()[0]


def test_the_reply_command_names_an_unusual_ledger_and_runs_in_sh(postbag, inbox, codex, tmp_path):
    odd = tmp_path / "it's $(touch pwned) `touch pwned2` & ; dir"
    odd.mkdir()
    postbag.env["POSTBAG_LEDGER"] = str(odd / "ledger.jsonl")
    postbag.ready()
    postbag.ok("send", "codex", "please answer", inside="claude")
    envelope = codex.envelopes()[0]
    reply = envelope.splitlines()[1:4]  # the command, the placeholder body, the delimiter
    script = "\n".join([reply[0], "the answer", reply[2]]) + "\n"
    env = {**postbag.env, **postbag.session("codex"), "POSTBAG_LEDGER": "/nonexistent/elsewhere.jsonl"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env["PATH"]
    answered = subprocess.run(["/bin/sh", "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert answered.returncode == 0, answered.stderr
    assert answered.stdout == "letter 5 delivered to claude, 10 left\n"
    assert inbox.envelopes(1)[0].endswith("\n\nthe answer")
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()


def test_the_default_ledger_needs_no_prefix(postbag, codex, tmp_path):
    home = tmp_path / "home"
    postbag.env["POSTBAG_LEDGER"] = str(home / ".postbag" / "ledger.jsonl")
    postbag.ready()
    postbag.ok("send", "codex", "hi", inside="claude")
    assert "POSTBAG_LEDGER" not in codex.envelopes()[0]
    del postbag.env["POSTBAG_LEDGER"]  # HOME points into the test's directory
    assert postbag.ok("read", "1").endswith("      hi\n")


# Secrets


def test_no_output_ever_shows_a_door_field(postbag, inbox, codex, tmp_path):
    secrets = [inbox.token, inbox.path, codex.thread, os.path.basename(inbox.path)]
    outputs = []

    def run(*args, **kwargs):
        result = postbag.run(*args, **kwargs)
        outputs.append(result.stdout + result.stderr)

    run("join", "claude", inside="claude")
    run("join", "codex", inside="codex")
    run("open", "--limit", "3")
    run("open", inside="claude")
    run("send", "codex", "hello", inside="claude")
    run("send", "claude", "hello", inside="codex")
    run("send", "claude", "wrong way", inside="claude")
    for args in (("read",), ("read", "1"), ("read", "--json"), ("--help",), ("send", "--help")):
        run(*args)
    codex.behave(exit=1)
    run("send", "codex", "fails", inside="claude")
    inbox.close()
    run("send", "claude", "fails", inside="codex")
    run("send", "claude", "spent", inside="codex")
    run("send", "claude", "x" * (BODY_MAX + 1), inside="codex")
    postbag.write_ledger(postbag.ledger_bytes()[:-1])
    run("read")
    postbag.write_ledger(postbag.ledger_bytes() + b"\n{}\n")
    run("send", "codex", "hi", inside="claude")
    shown = "".join(outputs)
    assert "letter 4 delivered" in shown and "stop and ask the human" in shown
    for secret in secrets:
        assert secret not in shown


def test_read_shows_control_characters_as_escapes(postbag, inbox, codex):
    postbag.ready()
    body = "clear\x1b[2J\x1b]0;title\x07 bell\rreturn\x7f del \x85 nel \u202egnp.exe \u2066iso\ttab\nnext"
    postbag.ok("send", "codex", "-", inside="claude", input=body)
    shown = postbag.ok("read", "1")
    # \r and \x85 break lines, as str.splitlines() and so 1.0 break them; the rest is escaped.
    assert shown.endswith(
        "      clear\\x1b[2J\\x1b]0;title\\x07 bell\n"
        "      return\\x7f del \n"
        "       nel \\u202egnp.exe \\u2066iso\ttab\n"
        "      next\n"
    )
    assert json.loads(postbag.ok("read", "--json", "1"))["body"] == body
    assert codex.envelopes()[0].endswith("\n\n" + body)  # the recipient gets the letter as written


def test_a_forged_line_inside_a_body_stays_indented(postbag, codex):
    postbag.ready()
    postbag.ok("send", "codex", "-", inside="claude", input="fine\n   5  2026-09-08T10:02:11+02:00  open   99 letters")
    lines = postbag.ok("read").splitlines()
    assert lines[-1] == "         5  2026-09-08T10:02:11+02:00  open   99 letters"


def test_codex_thread_id_is_preferred_to_the_session_root(postbag, codex):
    thread = "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2b"
    postbag.ok("join", "codex", inside="codex", env={"CODEX_THREAD_ID": thread, "CODEX_SESSION_ID": "root"})
    postbag.ok("open")
    postbag.ok("send", "codex", "hi", inside="claude")
    assert codex.calls()[0]["argv"][2] == thread


@pytest.mark.parametrize("thread", ["", "not-a-uuid", "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2"])
def test_a_malformed_thread_id_is_refused_not_replaced_by_the_root(postbag, thread):
    reason = postbag.refused("join", "codex", inside="codex", env={"CODEX_THREAD_ID": thread})
    assert reason == "CODEX_THREAD_ID is not a thread id"
    assert postbag.ledger_bytes() == b""


# Quiet failures


def test_read_into_a_closed_pipe_is_quiet(postbag):
    postbag.write_ledger(many_opens(1, 5000))  # far more than a pipe holds
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in postbag.env.items())
    command = " ".join(shlex.quote(word) for word in postbag.command)
    result = subprocess.run(
        ["/bin/sh", "-c", f"env -i {env} {command} read | head -n 1; exit 0"], capture_output=True, text=True
    )
    assert result.stdout.startswith("   1  ")
    assert result.stderr == ""
