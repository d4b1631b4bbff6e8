"""Waking a Codex thread that no running Codex has loaded: a send asks Codex's daemon to
load it (`codex queue --resume`) when the thread's own records say a woken turn cannot stop
for an approval and the human's exchange allows it, and says what came of that in words
that name no thread. The fake codex answers as the real one does (../shared facts, and
tests/real/test_real_wake.py on the real one)."""

import fcntl

import pytest
from hypothesis import given
from hypothesis import strategies as st

# What codex queue --resume prints on stderr when it stored the letter but could not have
# the daemon load the thread, as 0.169.0 words it; the thread id is filled in.
NO_DAEMON_WARNING = (
    "Warning: message was queued, but could not resume thread {}: start a local daemon or specify a server with "
    "--remote\n"
)
ACTIVE_WRITER_WARNING = (
    "Warning: message was queued, but could not resume thread {0}: thread/resume failed: thread {0} already has an "
    "active writer (code -32600)\n"
)
RESUMED = "(in the app or editor, or with codex resume)"
NO_DAEMON = (
    "codex's daemon, which wakes it, is not running: once the human runs codex app-server daemon start, the next "
    "letter wakes the thread, with any letters waiting for it"
)


@pytest.fixture
def unloaded(exchange):
    """The exchange's codex thread, loaded once by a codex that keeps locks, and by nobody now."""
    _, codex_files, _, _ = exchange
    codex_files.lock_file()
    return codex_files


def send_to_codex(postbag, body="Please look at line 42."):
    return postbag.ok("send", "codex", body, inside="claude").rstrip("\n")


@pytest.mark.shipped
def test_a_thread_codex_exec_left_is_woken_through_codexs_daemon(postbag, unloaded, codex):
    unloaded.settings("never")
    unloaded.daemon()
    assert send_to_codex(postbag) == "letter 6 delivered to codex, 9 left; codex's daemon woke the thread to take it"
    assert codex.resumed() == [False, True]  # the exchange's first letter went to a loaded thread's fake
    assert codex.envelopes()[-1].endswith("\n\nPlease look at line 42.")


@pytest.mark.shipped
def test_with_the_daemon_stopped_the_letter_waits_and_the_human_is_told_the_one_command(postbag, unloaded, codex):
    unloaded.settings("never")
    codex.behave(say=NO_DAEMON_WARNING.format(codex.thread))
    said = send_to_codex(postbag)
    assert said == (
        f"letter 6 delivered to codex, 9 left; but it waits in codex's queue: no running codex has the thread "
        f"loaded, and {NO_DAEMON}"
    )
    assert codex.thread not in said
    assert codex.resumed()[-1] is True  # codex itself said it: no guess from a pid file


def test_a_thread_a_running_codex_holds_after_all_takes_the_letter_with_nothing_said(postbag, unloaded, codex):
    unloaded.settings("never")
    codex.behave(say=ACTIVE_WRITER_WARNING.format(codex.thread))
    assert send_to_codex(postbag) == "letter 6 delivered to codex, 9 left"


def test_another_failure_to_wake_is_said_without_codexs_words(postbag, unloaded, codex):
    unloaded.settings("never")
    codex.behave(say=f"Warning: message was queued, but could not resume thread {codex.thread}: timed out\n")
    assert send_to_codex(postbag) == (
        "letter 6 delivered to codex, 9 left; but it waits in codex's queue: no running codex has the thread loaded, "
        f"and codex's daemon could not wake it: it is taken when the thread is resumed {RESUMED}"
    )


def test_a_codex_from_before_resume_takes_the_letter_into_its_queue_and_the_send_says_it_cannot_wake(
    postbag, unloaded, codex
):
    unloaded.settings("never")
    unloaded.daemon()
    codex.behave(before_resume=True)
    assert send_to_codex(postbag) == (
        "letter 6 delivered to codex, 9 left; but it waits in codex's queue: no running codex has the thread loaded, "
        "and this codex cannot wake a thread (its codex queue has no --resume, which came in Codex 0.166.0): it "
        f"is taken when the thread is resumed {RESUMED}"
    )
    assert codex.resumed()[-2:] == [True, False]  # refused before it stored anything, then knocked plainly
    assert len(codex.envelopes()) == 2 and codex.envelopes()[-1].endswith("\n\nPlease look at line 42.")


def test_a_rollout_from_before_thread_settings_is_read_from_its_turn_context(postbag, unloaded, codex):
    """Codex 0.153 records a thread's approval policy only in each turn's turn_context."""
    unloaded.turn_context("on-request")
    assert "(approval_policy on-request)" in send_to_codex(postbag)
    unloaded.turn_context("never")
    unloaded.daemon()
    assert send_to_codex(postbag, "Again.").endswith("codex's daemon woke the thread to take it")


@pytest.mark.parametrize(("policy", "shown"), [("on-request", "on-request"), ({"granular": {}}, "granular")])
def test_a_thread_that_may_ask_for_an_approval_is_not_woken_and_the_send_says_why(
    postbag, unloaded, codex, policy, shown
):
    unloaded.settings("never")
    unloaded.settings(policy)  # the latest settings are the ones a resume runs with
    assert send_to_codex(postbag) == (
        "letter 6 delivered to codex, 9 left; but it waits in codex's queue: no running codex has the thread loaded, "
        f"and postbag does not wake it: the thread asks for approvals (approval_policy {shown}), and nobody could "
        f"give one to a woken turn; it is taken when the thread is resumed where a person can approve {RESUMED}"
    )
    assert codex.resumed()[-1] is False


def test_a_thread_whose_rollout_does_not_say_its_policy_is_not_woken(postbag, unloaded, codex):
    assert send_to_codex(postbag) == (
        "letter 6 delivered to codex, 9 left; but it waits in codex's queue: no running codex has the thread loaded, "
        "and postbag does not wake it, since its rollout does not say whether a woken turn could stop for an "
        f"approval: it is taken when the thread is resumed {RESUMED}"
    )
    assert codex.resumed()[-1] is False


def test_a_thread_a_running_codex_holds_is_delivered_with_nothing_said(postbag, unloaded, codex):
    """Whether it is loaded is read while the door works, so the knock asks for the resume
    all the same: Codex's daemon shrugs it off for a thread another codex holds."""
    unloaded.settings("never")
    with open(unloaded.lock_file()) as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as the codex that has the thread loaded holds it
        assert send_to_codex(postbag) == "letter 6 delivered to codex, 9 left"
        codex.behave(say=NO_DAEMON_WARNING.format(codex.thread))  # nor is a daemon needed
        assert postbag.ok("send", "codex", "Again.", inside="claude") == "letter 7 delivered to codex, 8 left\n"


def test_an_exchange_opened_not_to_wake_leaves_the_letter_waiting_and_says_so(postbag, unloaded, codex):
    unloaded.settings("never")
    unloaded.daemon()
    opened = postbag.run("open", "4", "--no-wake")
    assert opened.stdout == "exchange open: 4 letters, which wake no codex thread\n"
    not_waking = (
        "this exchange wakes no thread (it was opened with --no-wake): it is taken when the thread is resumed "
        f"{RESUMED}"
    )
    assert f"postbag: codex's letters will wait: no running codex has its thread loaded, and {not_waking}\n" in (
        opened.stderr
    )
    assert send_to_codex(postbag) == (
        f"letter 7 delivered to codex, 3 left; but it waits in codex's queue: no running codex has the thread "
        f"loaded, and {not_waking}"
    )
    assert codex.resumed()[-1] is False
    status = postbag.status()[0].splitlines()
    assert "exchange of 4 letters, 1 sent, 3 left, waking no codex thread; claude joined " in status[0]
    assert status[1] == f"codex's letters will wait: no running codex has its thread loaded, and {not_waking}"
    postbag.open("4")  # the next exchange wakes again, as an open of 1.0 does
    assert send_to_codex(postbag).endswith("codex's daemon woke the thread to take it")


def test_a_receipt_tells_a_turn_stopped_at_a_tool_call_from_one_that_is_working(postbag, exchange):
    _, codex_files, _, to_codex = exchange
    codex_files.queued(to_codex)
    call = {"type": "function_call", "name": "exec_command", "call_id": "call_1", "arguments": "{}"}
    with open(codex_files.lock_file()) as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        codex_files.settings("on-request")
        codex_files.turn(call)
        assert postbag.ok("receipts", inside="claude") == (
            "letter 5 claude -> codex: waiting: in codex's queue for the thread, which a running codex has loaded: "
            "its turn has stopped at a tool call that has no result yet: a command still running, or an approval "
            "nobody has given in that codex; it takes the letter when the turn ends\n"
        )
        codex_files.settings("never")  # the same stop, where no approval can be asked: it works
        codex_files.turn(call)
        assert postbag.ok("receipts", inside="claude").endswith(
            "its turn is running a tool call, and it takes the letter when the turn ends\n"
        )
        codex_files.turn(call, {"type": "function_call_output", "call_id": "call_1", "output": "done"})
        assert postbag.ok("receipts", inside="claude").endswith(
            "its turn is working, and it takes the letter when the turn ends\n"
        )
        codex_files.turn(ended=True)
        assert postbag.ok("receipts", inside="claude").endswith("it takes the letter when it is idle\n")


def test_through_the_mcp_door_the_sender_is_told_the_thread_was_woken(postbag, unloaded, codex):
    unloaded.settings("never")
    server = postbag.mcp("claude")
    server.handshake()
    try:
        text, failed = server.tool("send", {"text": "Woken?"})
    finally:
        server.close()
    assert not failed
    first = text.splitlines()[0]
    assert first == "claude joined; letter 7 delivered to codex, 9 left; codex's daemon woke the thread to take it"


def test_the_daemons_record_is_believed_only_for_the_process_it_names(tmp_path):
    import json
    import subprocess

    from postbag.codex.wake import CANNOT_TELL, RUNS, STOPPED, daemon_runs

    assert daemon_runs(str(tmp_path)) == STOPPED  # no record: no daemon runs from this home
    folder = tmp_path / "app-server-daemon"
    folder.mkdir()
    (folder / "daemon.pid").write_text("not json")
    assert daemon_runs(str(tmp_path)) == CANNOT_TELL
    child = subprocess.Popen(["sleep", "30"])
    try:
        with open(f"/proc/{child.pid}/stat", "rb") as file:
            ticks = int(file.read().rpartition(b")")[2].split()[19])
        (folder / "daemon.pid").write_text(json.dumps({"pid": child.pid, "processIdentity": {"startTicks": ticks}}))
        assert daemon_runs(str(tmp_path)) == RUNS
        # The same pid, since reused by a process that started at another time: not the daemon.
        (folder / "daemon.pid").write_text(json.dumps({"pid": child.pid, "processIdentity": {"startTicks": ticks + 1}}))
        assert daemon_runs(str(tmp_path)) == STOPPED
    finally:
        child.kill()
        child.wait()
    assert daemon_runs(str(tmp_path)) == STOPPED  # its process is gone


# What codex queue says of a resume, read without re: the readings re would make.

LOG_WORDS = st.sampled_from(["2026-09-08T10:02:11Z", "INFO", "DEBUG", "TRACE", "WARN", "\x1b[2m", "\x1b[0m", "\x1b[1"])
SPACES = st.sampled_from([" ", "  ", "\t", "\u2003", "", "m", ";", "x"])


@given(line=st.lists(st.one_of(LOG_WORDS, SPACES, st.text(max_size=3)), max_size=8).map("".join))
def test_codexs_log_lines_and_colours_are_read_as_their_patterns_read_them(line):
    import re

    from postbag.codex import queue

    assert queue._is_quiet_log_line(line) == bool(re.match(r"^\S+\s+(?:TRACE|DEBUG|INFO)\s", line))
    assert queue._without_colours(line) == re.sub(r"\x1b\[[0-9;]*m", "", line)
