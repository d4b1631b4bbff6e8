"""The doors: where codex is found, how a socket is reached (past macOS's shorter path limit
too), and each failure told apart as before or after the door may have taken the letter,
with the lock released, nothing recorded, and the next send working once the door answers."""

import contextlib
import errno
import json
import os
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import uuid

import pytest
from fakes import FakeInbox
from helpers import BODY_MAX

from postbag import processes
from postbag.claude import inbox as claude
from postbag.here import Here
from postbag.refusal import Refusal

BEFORE = "{peer}'s door did not answer ({reason}); if its session restarted it must run: postbag join {peer}"
AFTER = (
    "{peer}'s door failed after taking the letter ({reason}): it may already have reached {peer}, "
    "and it was not recorded; do not resend before checking {peer}'s session and postbag read"
)


def assert_unrecorded_then_recovers(postbag, before, recipient):
    """The refused send left the ledger as it was, and the next one takes the number and
    the budget the refused one would have had."""
    sender = "claude" if recipient == "codex" else "codex"
    assert postbag.ledger_bytes() == before
    number = before.count(b"\n") + 1
    left = json.loads(before.splitlines()[-1])["limit"] - 1  # postbag.ready() opens last
    expected = f"letter {number} delivered to {recipient}, {left} left\n"
    assert postbag.ok("send", recipient, "again", inside=sender) == expected


@pytest.mark.shipped
@pytest.mark.parametrize("how", ["missing", "not executable"])
def test_a_missing_or_unexecutable_codex_is_named_and_nothing_is_recorded(postbag, codex, how):
    postbag.ready()
    before = postbag.ledger_bytes()
    if how == "missing":
        os.rename(codex.path, codex.path + ".away")
    else:
        os.chmod(codex.path, 0o644)
    assert postbag.refused("send", "codex", "hi", inside="claude") == f"no codex at {codex.path}; set POSTBAG_CODEX"
    if how == "missing":
        os.rename(codex.path + ".away", codex.path)
    else:
        os.chmod(codex.path, 0o755)
    assert_unrecorded_then_recovers(postbag, before, "codex")


def test_without_codex_on_path_send_says_to_set_postbag_codex(postbag, codex, tmp_path):
    postbag.ready()
    del postbag.env["POSTBAG_CODEX"]
    path = postbag.env["PATH"]
    postbag.env["PATH"] = os.pathsep.join(d for d in (postbag.python_bin, str(tmp_path / "empty")) if d)
    assert postbag.refused("send", "codex", "hi", inside="claude") == "no codex on PATH; set POSTBAG_CODEX"
    postbag.env["PATH"] = codex.directory + os.pathsep + path
    assert_unrecorded_then_recovers(postbag, postbag.ledger_bytes(), "codex")


@pytest.mark.shipped
def test_codex_that_exits_nonzero_took_nothing_and_asks_for_a_rejoin(postbag, codex):
    postbag.ready()
    before = postbag.ledger_bytes()
    codex.behave(exit=3, say=f"thread {codex.thread} \udcff failed")
    reason = postbag.refused("send", "codex", "hi", inside="claude")
    assert reason == (
        "codex's door did not answer (codex queue exited 3, saying \"thread <the thread's id> \ufffd failed\"); if its "
        "session restarted it must run: postbag join codex"
    )  # codex's own words, the thread's id written as words: no door field is shown
    codex.behave()
    assert_unrecorded_then_recovers(postbag, before, "codex")


def test_a_stale_codex_thread_is_named_in_our_words_and_codexs_its_id_never_shown(postbag, codex):
    postbag.ready()
    before = postbag.ledger_bytes()
    logged = "\x1b[2m2026-12-05T09:00:00Z\x1b[0m \x1b[32m INFO\x1b[0m starting\n"
    said = f"{logged}Error: no rollout found for thread id {codex.thread}\n"
    codex.behave(exit=1, say=said)  # what codex 0.169 says, after a line of its log
    reason = postbag.refused("send", "codex", "hi", inside="claude")
    assert reason == (
        "codex's door did not answer (codex queue exited 1: codex knows no such thread, saying \"Error: no rollout "
        "found for thread id <the thread's id>\"); if its session restarted it must run: postbag join codex"
    )
    assert postbag.ledger_bytes() == before


@pytest.mark.shipped
def test_codex_killed_by_a_signal_may_have_taken_the_letter_and_says_which_signal(postbag, codex):
    postbag.ready()
    codex.behave(exit=-9)  # the fake turns this into its own SIGKILL
    reason = postbag.refused("send", "codex", "hi", inside="claude")
    assert reason == AFTER.format(peer="codex", reason="codex queue was killed by signal 9 (SIGKILL)")


@pytest.mark.skipif(not hasattr(signal, "SIGRTMIN"), reason="the real-time signals, which have no names, are Linux's")
def test_codex_killed_by_a_signal_of_no_name_says_its_number(postbag, codex):
    number = signal.SIGRTMIN + 6
    postbag.ready()
    codex.behave(exit=-number)
    reason = postbag.refused("send", "codex", "hi", inside="claude")
    assert reason == AFTER.format(peer="codex", reason=f"codex queue was killed by signal {number}")


def test_a_door_is_done_when_codex_exits_though_a_helper_of_its_keeps_stderr_open(tmp_path):
    """codex may leave a helper running that holds its stderr: the door is done when codex
    itself exits, with what it said, and waits for no helper."""
    helper = str(tmp_path / "helper.pid")
    script = f'sleep 600 & echo $! > "{helper}"; echo "Warning: queued" >&2; exit 3'
    try:
        assert processes.run_for_status(["/bin/sh", "-c", script], {"PATH": os.defpath}) == (3, b"Warning: queued\n")
    finally:
        with open(helper) as file, contextlib.suppress(ProcessLookupError):  # gone already, if the door killed it
            os.kill(int(file.read()), signal.SIGKILL)


@pytest.mark.shipped
def test_codex_that_hangs_past_the_timeout_is_stopped(postbag, codex):
    postbag.ready()
    before = postbag.ledger_bytes()
    codex.behave(delay=600)
    reason = postbag.with_faults("timeout=0.5").refused("send", "codex", "hi", inside="claude")
    assert reason == AFTER.format(peer="codex", reason="codex queue gave no answer within 0.5 s")
    codex.behave()
    assert_unrecorded_then_recovers(postbag, before, "codex")


@pytest.mark.shipped
@pytest.mark.parametrize(("error", "reason"), [("ENOEXEC", "Exec format error"), ("EACCES", "Permission denied")])
def test_a_codex_that_cannot_start_asks_for_a_working_one_not_a_rejoin(postbag, codex, error, reason):
    postbag.ready()
    refusal = postbag.with_faults(f"exec={error}").refused("send", "codex", "hi", inside="claude")
    assert refusal == f"codex queue could not start ({reason}); set POSTBAG_CODEX to a working codex"
    assert "postbag join" not in refusal


def test_a_file_that_is_not_a_socket_at_claudes_door_took_nothing(postbag, inbox):
    postbag.ready()
    inbox.close()
    os.remove(inbox.path)
    with open(inbox.path, "w") as file:
        file.write("not a socket")
    before = postbag.ledger_bytes()
    assert postbag.refused("send", "claude", "hi", inside="codex") == BEFORE.format(
        peer="claude", reason="not a socket"
    )
    assert postbag.ledger_bytes() == before


@pytest.mark.shipped
def test_a_claude_session_that_stalls_mid_letter_may_have_taken_it(postbag, inbox):
    postbag.ready()
    before = postbag.ledger_bytes()
    inbox.mode = "hold"
    faulty = postbag.with_faults("timeout=0.5,sndbuf")
    reason = faulty.refused("send", "claude", "x" * 90_000, inside="codex")
    assert reason == AFTER.format(peer="claude", reason="no answer within 0.5 s")
    inbox.mode = "read"
    assert_unrecorded_then_recovers(postbag, before, "claude")


def test_claude_peer_restarted_is_told_to_rejoin_and_then_works(postbag, inbox, tmp_path):
    from fakes import FakeInbox

    postbag.ready()
    inbox.close()
    reason = postbag.refused("send", "claude", "hi", inside="codex")
    assert reason.endswith("if its session restarted it must run: postbag join claude")
    restarted = FakeInbox(str(tmp_path / "new.sock"), "tok-new")
    try:
        postbag.ok("join", "claude", inside="claude", env=restarted.session_env())
        postbag.ok("send", "claude", "hello again", inside="codex")
        assert restarted.envelopes(1)[0].endswith("\n\nhello again")
    finally:
        restarted.close()


def test_a_socket_path_longer_than_sun_path_still_delivers(postbag, tmp_path):
    from fakes import FakeInbox

    deep = tmp_path
    while len(str(deep)) < 150:
        deep = deep / "a-rather-long-directory-name"
    deep.mkdir(parents=True)
    far = FakeInbox(str(deep / "inbox.sock"), "tok-far")
    try:
        postbag.ok("join", "claude", inside="claude", env=far.session_env())
        postbag.ok("join", "codex", inside="codex")
        postbag.open()
        postbag.ok("send", "claude", "from afar", inside="codex")
        assert far.envelopes(1)[0].endswith("\n\nfrom afar")
    finally:
        far.close()


@pytest.mark.skipif(sys.platform != "linux", reason="Linux answers a full backlog at once")
def test_claude_inbox_with_a_full_backlog_did_not_answer(postbag, tmp_path):
    path = str(tmp_path / "busy.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(0)
    waiting = []
    for _ in range(3):  # fill the backlog nobody accepts from
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.setblocking(False)
        try:
            client.connect(path)
        except BlockingIOError:
            client.close()
            break
        waiting.append(client)
    try:
        postbag.ok("join", "claude", inside="claude", env={"CLAUDE_CODE_MESSAGING_SOCKET": path})
        postbag.ok("join", "codex", inside="codex")
        postbag.open()
        reason = postbag.refused("send", "claude", "hi", inside="codex")
        assert reason.startswith("claude's door did not answer (")
    finally:
        for client in waiting:
            client.close()
        server.close()


SANDBOX = {"CODEX_SANDBOX_NETWORK_DISABLED": "1"}  # what Codex's sandbox sets on every command


@pytest.mark.shipped
@pytest.mark.parametrize("error", ["EPERM", "EACCES"])
def test_inside_codexs_sandbox_a_blocked_socket_says_sandbox(postbag, error):
    postbag.ready()
    before = postbag.ledger_bytes()
    faulty = postbag.with_faults(f"connect={error}")
    reason = faulty.refused("send", "claude", "hi", inside="codex", env=SANDBOX)
    assert reason == (
        f"Codex's sandbox blocks the connection to claude's socket ({os.strerror(getattr(errno, error))}); "
        "nothing was handed over. The human can allow it with network access for the workspace sandbox "
        "(sandbox_workspace_write.network_access = true)"
    )
    assert postbag.ledger_bytes() == before
    outside = faulty.refused("send", "claude", "hi", inside="codex")  # the same error outside a sandbox
    assert outside == BEFORE.format(peer="claude", reason=os.strerror(getattr(errno, error)))


@pytest.mark.shipped
@pytest.mark.parametrize("error", ["EROFS", "EACCES"])
def test_inside_codexs_sandbox_a_read_only_ledger_says_sandbox(postbag, error):
    postbag.ready()
    faulty = postbag.with_faults(f"open={error}")
    plain = f"cannot open the ledger ({os.strerror(getattr(errno, error))}: {postbag.ledger})"
    assert faulty.refused("send", "claude", "hi", inside="codex", env=SANDBOX) == (
        f"{plain}; Codex's sandbox keeps it from being written. The human can add the ledger's directory "
        "to the sandbox's writable roots, or point POSTBAG_LEDGER at a path inside them"
    )
    assert faulty.refused("join", "codex", inside="codex") == plain


def executable(path):
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(stat.S_IRWXU)
    return str(path)


@pytest.mark.parametrize(("recipient", "sender"), [("codex", "claude"), ("claude", "codex")])
def test_send_to_a_peer_that_never_joined_knocks_on_no_door(postbag, recipient, sender, inbox, codex):
    postbag.ok("join", sender, inside=sender)
    postbag.open()
    assert postbag.refused("send", recipient, "hi", inside=sender) == f"{recipient} has not joined{postbag.named}"
    assert codex.calls() == [] and inbox.received == []


@pytest.mark.shipped
def test_a_gone_claude_socket_took_nothing_and_asks_for_a_rejoin(postbag, inbox):
    postbag.ready()
    inbox.close()
    os.remove(inbox.path)
    before = postbag.ledger_bytes()
    assert postbag.refused("send", "claude", "hi", inside="codex") == (
        "claude's door did not answer (its socket is gone); if its session restarted it must run: postbag join claude"
    )
    assert postbag.ledger_bytes() == before


def test_a_claude_socket_nobody_listens_on_took_nothing_and_asks_for_a_rejoin(postbag, inbox):
    postbag.ready()
    inbox.close()  # the socket file stays, nothing listens: a session that exited
    assert postbag.refused("send", "claude", "hi", inside="codex") == (
        "claude's door did not answer (connection refused); if its session restarted it must run: postbag join claude"
    )


@pytest.mark.shipped
@pytest.mark.parametrize("recipient", ["codex", "claude"])
def test_a_body_at_the_cap_delivers_through_each_door(postbag, inbox, codex, recipient):
    postbag.ready()
    sender = "claude" if recipient == "codex" else "codex"
    body = ("é" * (BODY_MAX // 2 - 1)) + "ok"  # two bytes a character: exactly the cap
    postbag.ok("send", recipient, "-", inside=sender, input=body)
    delivered = codex.envelopes()[0] if recipient == "codex" else inbox.envelopes(1)[0]
    assert delivered.endswith("\n\n" + body)


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


def test_codex_is_found_in_the_chatgpt_app_before_path(tmp_path):
    from postbag.codex.queue import APP_CODEX, find_codex

    root = tmp_path / "system"  # the system's files, where the ChatGPT app is installed on macOS
    (root / APP_CODEX.lstrip("/")).parent.mkdir(parents=True)
    app = executable(root / APP_CODEX.lstrip("/"))
    on_path = tmp_path / "bin"
    on_path.mkdir()
    executable(on_path / "codex")

    def found(env, system=root):
        return find_codex(Here(env, str(tmp_path), root=str(system)))

    assert found({"PATH": str(on_path)}) == app
    named = executable(tmp_path / "named-codex")
    assert found({"PATH": str(on_path), "POSTBAG_CODEX": named}) == named
    assert found({"PATH": str(on_path), "POSTBAG_CODEX": "./named-codex"}) == named  # from the working directory
    assert found({"PATH": str(on_path)}, tmp_path / "no-app-here") == str(on_path / "codex")
    with pytest.raises(Refusal, match=r"^no codex on PATH; set POSTBAG_CODEX$"):
        found({"PATH": str(tmp_path / "empty")}, tmp_path / "no-app-here")


def test_a_program_is_found_on_path_as_shutil_would_find_it(tmp_path):
    """processes.which stands in for shutil.which, whose import would cost every send: each
    answer the same, for names and paths, in order along PATH, skipping what cannot run."""

    first, second, plain = (tmp_path / name for name in ("first", "second", "plain"))
    for directory in (first, second, plain):
        directory.mkdir()
    executable(second / "tool")
    executable(first / "only-first")
    (first / "tool").write_text("")  # there, but not executable: passed over
    (plain / "tool").mkdir()  # a directory by that name: passed over
    executable(second / "only-first")
    search = os.pathsep.join(map(str, (plain, first, second)))
    names = ["tool", "only-first", "missing", str(second / "tool"), str(first / "tool"), str(plain / "tool"), "./x"]
    for path in (search, "", str(tmp_path / "nowhere")):
        assert [processes.which(name, path) for name in names] == [shutil.which(name, path=path) for name in names]
    assert processes.which("tool", search) == str(second / "tool")


def test_a_socket_path_past_the_macos_limit_is_reached_from_its_directory(short_folder, monkeypatch):
    """Through the directory's descriptor: the working directory is never borrowed, for the
    look at the recipient's records runs beside the knock, and a relative CLAUDE_CONFIG_DIR
    or CODEX_HOME would resolve against the socket's directory meanwhile."""
    directory = short_folder / ("d" * (105 - len(str(short_folder)) - len("/inbox.sock") - 1))
    directory.mkdir()
    path = str(directory / "inbox.sock")
    assert 103 < len(path) <= 107  # too long for macOS, still fine for Linux
    inbox = FakeInbox(path, f"tok-{uuid.uuid4().hex}")  # bound from its directory, as Claude Code does

    def borrowed(*_):
        raise AssertionError("the knock changed the working directory")

    monkeypatch.setattr(os, "chdir", borrowed)
    monkeypatch.setattr(os, "fchdir", borrowed)
    here = os.getcwd()
    try:
        macos = Here({}, here, platform="darwin")  # sun_path holds 104 bytes there
        claude.knock({"socket": path, "token": inbox.token}, "Letter 1 from codex via postbag.", here=macos)
        assert inbox.envelopes(1) == ["Letter 1 from codex via postbag."]
    finally:
        inbox.close()
    assert os.getcwd() == here


def test_a_knock_that_would_hear_claudes_word_and_finds_no_door_leaves_no_socket_of_its_own(short_folder):
    """In a folder short enough that the knock's own socket fits beside the inbox's."""
    here = Here({}, str(short_folder), platform=sys.platform)
    door = {"socket": str(short_folder / "inbox.sock"), "token": "tok"}  # the session has ended: its socket is gone
    with pytest.raises(Refusal) as refused:
        claude.knock(door, "Letter 1 from codex via postbag.", here=here, hear=True)
    assert str(refused.value) == BEFORE.format(peer="claude", reason="its socket is gone")
    assert os.listdir(short_folder) == []


def test_where_a_socket_of_the_knocks_own_would_not_fit_beside_the_inbox_the_letter_goes_without_it(short_folder):
    """Claude could not reach a socket whose path is too long for an address: the knock
    names none, and the letter is handed over all the same."""
    # macOS's bound, where the knock's own socket path comes out a byte or two past it: Linux
    # would bind that path, so only the bound keeps the knock from naming it.
    most = claude.SOCKET_PATH_MOST["darwin"]
    own = len(f"/postbag-{os.getpid()}-00000000.sock")
    directory = short_folder / ("d" * (most + 2 - own - len(str(short_folder)) - 1))
    directory.mkdir()
    path = str(directory / "inbox.sock")
    assert len(path) <= most < len(str(directory)) + own <= claude.SOCKET_PATH_MOST_ELSEWHERE
    inbox = FakeInbox(path, f"tok-{uuid.uuid4().hex}")
    try:
        heard = claude.knock(
            {"socket": path, "token": inbox.token}, "Letter 1.", here=Here({}, "/", platform="darwin"), hear=True
        )
        assert heard is None and inbox.envelopes(1) == ["Letter 1."]
        _, frame = inbox.wait_for(1)[0]
        assert "from" not in frame  # no socket of its own named
    finally:
        inbox.close()
