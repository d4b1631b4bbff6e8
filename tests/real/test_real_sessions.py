"""The real doors: postbag against the real Claude Code and Codex CLIs, offline.

Each client runs inside a network namespace that holds only loopback (tests/clients),
so nothing it tries can leave the machine; each client's model is a stand-in on loopback
that answers letters as an agent would, through the client's own shell tool. A real
Codex session is Codex's app server with the thread resumed, the process that Codex's
IDE and desktop clients drive. Skipped, with the reason, where the pinned clients or a
namespace cannot be had.
"""

import json
import os
import shutil
import subprocess
import tempfile
import uuid

import clients
import pytest
from sessions_helpers import LAST, WAITS, claude_variables, join_both, stale_thread_words

from postbag.claude.room import HOLDS_SINCE


def test_a_letter_each_way_and_a_real_answer_through_the_reply_command(real, claude, codex_home, model):
    session = claude()
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    real.open("--limit", "3")
    inside_claude, inside_codex = claude_variables(session), {"CODEX_THREAD_ID": thread}

    question = "Review src/parser.py for unhandled input.\nReply with the top finding."
    # The thread's codex exec run has ended: the letter waits in the queue, and the send says so.
    assert real.ok("send", "codex", question, env=inside_claude) == f"letter 4 delivered to codex, 2 left; {WAITS}\n"
    [queued] = codex_home.queued(thread)  # byte for byte in codex's own queue for the thread
    assert queued.startswith("Letter 4 from claude via postbag. If it needs an answer, reply with:\n")
    assert queued.endswith("\n\n" + question)

    finding = "Top finding: the date branch swallows ValueError."
    assert real.ok("send", "claude", finding, env=inside_codex) == "letter 5 delivered to claude, 1 left\n"
    session.wait_for(lambda: any(text.endswith("\n\n" + finding) for text in session.enqueued()), "letter 5")
    [envelope] = session.enqueued()
    assert envelope.startswith("Letter 5 from codex via postbag. If it needs an answer, reply with:\n")

    # The stand-in runs the command its envelope gave; postbag records it and the real
    # codex queue takes it, as the last letter of the exchange.
    session.wait_for(lambda: real.ledger_bytes().count(b"\n") == 6, "the reply through the reply command")
    reply = codex_home.queued(thread)[-1]
    assert reply == f"Letter 6 from claude via postbag. {LAST}\n\n{model.answer}"
    assert real.refused("send", "codex", "one more", env=inside_claude) == "the exchange's letters are spent"


def test_a_last_letter_is_not_answered(real, claude, codex_home, model):
    session = claude()
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    real.open("--limit", "1")
    real.ok("send", "claude", "That settles it. Thanks.", env={"CODEX_THREAD_ID": thread})  # the thread that joined
    session.wait_for(lambda: len(model.requests) >= 1 and session.process.poll() is None, "the model's turn")
    session.wait_for(lambda: any(e.get("type") == "result" for e in session.stream()), "the end of its turn")
    assert real.ledger_bytes().count(b"\n") == 4  # no reply was sent
    session.wait_for(session.enqueued, "the letter in the transcript")
    assert session.enqueued()[0].startswith(f"Letter 4 from codex via postbag. {LAST}")


@pytest.mark.parametrize("recipient", ["codex", "claude"])
def test_a_body_at_the_size_cap_arrives_whole_through_each_real_door(real, claude, codex_home, recipient):
    session = claude()
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    real.open("--limit", "2")
    body = "é" * (96 * 1024 // 2 - 1) + "ok"  # 98,304 bytes: exactly the cap
    inside = claude_variables(session) if recipient == "codex" else {"CODEX_THREAD_ID": thread}
    real.ok("send", recipient, "-", input=body, env=inside)
    if recipient == "codex":
        assert codex_home.queued(thread)[0].endswith("\n\n" + body)
    else:
        session.wait_for(session.enqueued, "the letter")
        assert session.enqueued()[0].endswith("\n\n" + body)


@pytest.mark.parametrize(("how", "reason"), [("killed", "connection refused"), ("exited", "its socket is gone")])
def test_a_restarted_claude_session_is_told_apart_and_nothing_is_recorded(real, claude, codex_home, how, reason):
    session = claude()
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    real.open()
    session.kill() if how == "killed" else session.stop()
    assert os.path.exists(session.socket) == (how == "killed")  # a crash leaves the socket behind
    before = real.ledger_bytes()
    refusal = real.refused("send", "claude", "are you there?", env={"CODEX_THREAD_ID": thread})
    assert (
        refusal == f"claude's door did not answer ({reason}); if its session restarted it must run: postbag join claude"
    )
    assert real.ledger_bytes() == before
    again = claude()  # the new session joins, and letters reach it
    real.ok("join", "claude", env=claude_variables(again))
    real.ok("send", "claude", "welcome back", env={"CODEX_THREAD_ID": thread})
    again.wait_for(again.enqueued, "the letter in the new session")


def test_a_stale_codex_thread_asks_for_a_rejoin_and_records_nothing(real, codex_home):
    thread = str(uuid.uuid4())
    real.ok("join", "codex", env={"CODEX_THREAD_ID": thread})  # a thread codex never had
    real.ok("join", "claude", inside="claude")  # the suite's fake inbox: this test is about codex
    real.open()
    before = real.ledger_bytes()
    refused = real.refused("send", "codex", "hello?", inside="claude")
    assert refused.startswith("codex's door did not answer") and stale_thread_words(refused, thread, ""), refused
    assert real.ledger_bytes() == before


def in_codex_sandbox(real, codex_home, workspace, *args, env):
    """`postbag ARGS` run as Codex's shell tool runs it: inside `codex sandbox`."""
    import subprocess

    # The sandbox its shell tool uses by default: the workspace writable, no network. /tmp,
    # where the tests live, is a writable root by default; here only the workspace is.
    settings = [
        'sandbox_mode="workspace-write"',
        "sandbox_workspace_write.exclude_slash_tmp=true",
        "sandbox_workspace_write.exclude_tmpdir_env_var=true",
        "shell_environment_policy.inherit=all",
    ]
    argv = [clients.codex_binary(), "sandbox", *(f for s in settings for f in ("-c", s)), "--"]
    full = {**real.env, **env}
    result = subprocess.run(
        codex_home.namespace.inside([*argv, *real.command, *args]),
        env=full,
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # codex sandbox says things of its own on stderr (a warning about its helper binaries)
    result.stderr = "".join(line for line in result.stderr.splitlines(True) if line.startswith("postbag: "))
    return result


def test_inside_codexs_sandbox_the_socket_and_the_ledger_refusals_say_sandbox(real, claude, codex_home, tmp_path):
    session = claude()
    thread = codex_home.new_thread(real.env)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    inside_codex = {"CODEX_THREAD_ID": thread}

    # A ledger outside the sandbox's writable roots is read-only inside it.
    join_both(real, session, thread)
    real.open()
    blocked = in_codex_sandbox(real, codex_home, str(workspace), "send", "claude", "hi", env=inside_codex)
    assert blocked.returncode == 1
    assert "; Codex's sandbox keeps it from being written. " in blocked.stderr
    assert blocked.stderr.startswith(f"postbag: cannot open the ledger (Read-only file system: {real.ledger})")

    # A ledger inside the workspace is writable, and then the socket is what the sandbox blocks.
    real.env["POSTBAG_LEDGER"] = str(workspace / "ledger.jsonl")
    join_both(real, session, thread)
    real.open()
    before = real.ledger_bytes()
    blocked = in_codex_sandbox(real, codex_home, str(workspace), "send", "claude", "hi", env=inside_codex)
    assert (blocked.returncode, blocked.stdout) == (1, "")
    assert blocked.stderr == (
        "postbag: Codex's sandbox blocks the connection to claude's socket (Operation not permitted); nothing was "
        "handed over. The human can allow it with network access for the workspace sandbox "
        "(sandbox_workspace_write.network_access = true); stop and ask the human\n"
    )
    assert real.ledger_bytes() == before and session.enqueued() == []


HOLDS = pytest.mark.since(versions={"claude": HOLDS_SINCE}, needs="crossSessionInbound hold")


@pytest.mark.parametrize("setting", ["accept", pytest.param("hold", marks=HOLDS), "refuse"])
def test_claudes_cross_session_setting_decides_what_the_session_does_with_a_letter(
    real, claude, codex_home, model, setting
):
    session = claude(crossSessionInbound=setting)
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    real.open("--limit", "1")
    letter = "A letter for a session that decides for itself."
    # postbag reports it delivered whatever the setting: the socket answers nothing either way.
    assert (
        real.ok("send", "claude", letter, env={"CODEX_THREAD_ID": thread}) == "letter 4 delivered to claude, 0 left\n"
    )
    # Then the person types into the session, and what the model was shown tells the rest.
    typed = {"type": "user", "message": {"role": "user", "content": "ping from the person"}}
    session.process.stdin.write((json.dumps(typed) + "\n").encode())
    session.process.stdin.flush()
    shown = model.shown
    session.wait_for(lambda: "ping from the person" in shown(), "the person's turn")
    held = [e for e in session.stream() if e.get("subtype") == "peer_message_hold"]
    if setting == "accept":  # the letter starts a turn of its own, before or after the person's
        session.wait_for(lambda: letter in shown(), "the letter's turn")
        session.wait_for(lambda: any(t.endswith("\n\n" + letter) for t in session.enqueued()), "its record")
    elif setting == "hold":  # parked for the person's review; the model has not seen it
        assert letter not in shown() and held and held[0]["state"] == "held"
    else:  # refused: not even queued
        assert letter not in shown() and not any(letter in text for text in session.enqueued()) and held == []


def hooked(real):
    """The SessionStart hook command README gives, which joins each new session by itself."""
    return {"at_start": [" ".join(real.command) + " join claude --quiet"]}


def test_a_session_started_with_the_hook_can_be_written_to_at_once_and_after_a_restart(real, claude, codex_home, model):
    thread = codex_home.new_thread(real.env)
    real.ok("join", "codex", env={"CODEX_THREAD_ID": thread})
    real.open("--limit", "4")
    session = claude(**hooked(real))
    session.wait_for(lambda: b'"peer": "claude"' in real.ledger_bytes(), "the hook's join")
    real.ok("send", "claude", "first letter", env={"CODEX_THREAD_ID": thread})
    session.wait_for(lambda: any(t.endswith("\n\nfirst letter") for t in session.enqueued()), "the first letter")
    # The hook said nothing on success, so the session's context holds no word of postbag's.
    assert "claude joined" not in "".join(str(record) for record in session.transcript())
    session.kill()
    restarted = claude(**hooked(real))  # nobody runs join: the new session's hook does
    restarted.wait_for(lambda: real.ledger_bytes().count(b'"peer": "claude"') == 2, "the restarted session's join")
    real.ok("send", "claude", "after the restart", env={"CODEX_THREAD_ID": thread})
    restarted.wait_for(lambda: any(t.endswith("\n\nafter the restart") for t in restarted.enqueued()), "the letter")


def test_a_hook_whose_join_is_refused_does_not_keep_the_session_from_starting(real, claude, tmp_path):
    os.makedirs(real.ledger)  # a directory where the ledger should be: join is refused
    session = claude(**hooked(real))  # it starts, and its socket answers
    assert session.process.poll() is None and os.path.exists(session.socket)


def test_a_restricted_claude_session_opens_no_door_and_join_refuses_the_socket_it_was_given(
    real, namespace, model, tmp_path
):
    """claude --restricted ignores --messaging-socket-path: it binds no inbox, and has no
    shell tool, hook or MCP server from which anyone could join. A join that names the
    socket it was given is refused, rather than record a door no one will ever bind.
    (With cross-session messaging switched off, Claude Code 2.1.328 likewise unsets the
    inbox variables before it decides not to bind: test_guards covers that session.)"""
    home, work = tmp_path / "restricted-home", tmp_path / "work"
    (home / ".claude").mkdir(parents=True)
    work.mkdir(exist_ok=True)
    hooked, ran = tmp_path / "hook.ran", tmp_path / "bash.ran"
    hook = {"type": "command", "command": f"touch {hooked}"}
    (home / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))
    socket_dir = tempfile.mkdtemp(prefix="postbag-inbox-", dir="/tmp")
    socket = os.path.join(socket_dir, "in.sock")
    argv = [clients.claude_binary(), "-p", "--input-format", "stream-json", "--output-format", "stream-json"]
    argv += ["--verbose", "--allowedTools", "Bash", "--restricted", "--messaging-socket-path", socket]
    env = {**real.env, **clients.sessions.CLAUDE_OFFLINE, "HOME": str(home), "ANTHROPIC_BASE_URL": model.url}
    typed = {"type": "user", "message": {"role": "user", "content": f"Run: touch {ran}"}}
    try:
        done = subprocess.run(
            namespace.inside(argv),
            input=json.dumps(typed) + "\n",
            env=env,
            cwd=work,
            capture_output=True,
            text=True,
            timeout=120,
        )
        events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        [init] = [e for e in events if e.get("subtype") == "init"]
        assert "Bash" not in init["tools"] and init["mcp_servers"] == []
        assert any(e.get("type") == "result" for e in events), done.stdout[-2000:]
        assert not os.path.exists(socket) and not hooked.exists() and not ran.exists()
        given = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": init["session_id"]}
        given |= {"CLAUDE_CODE_MESSAGING_SOCKET": socket, "CLAUDE_CODE_MESSAGING_TOKEN": "never-given"}
        refused = real.run("join", "claude", env=given)
        assert (refused.returncode, refused.stderr) == (
            1,
            "postbag: Claude Code named an inbox socket that is not there (it does not exist); "
            "no letter could reach this session; stop and ask the human\n",
        )
        assert not os.path.exists(real.ledger)
    finally:
        shutil.rmtree(socket_dir, ignore_errors=True)


# Codex's shell tool unsandboxed, and in the workspace sandbox with what README says the
# human must allow: network access (for Claude's socket) and a ledger in a writable root.
ALLOWED_SANDBOX = {
    "sandbox_workspace_write": {"network_access": True, "exclude_slash_tmp": True, "exclude_tmpdir_env_var": True}
}


@pytest.mark.parametrize("sandbox", ["danger-full-access", "workspace-write"])
def test_a_real_codex_session_joins_from_its_shell_and_answers_through_its_reply_command(
    real, claude, codex_home, codex_session, sandbox
):
    session = claude()
    thread = codex_home.new_thread(real.env)
    if sandbox == "workspace-write":
        real.env["POSTBAG_LEDGER"] = real.ledger = os.path.join(codex_session.workdir, "ledger.jsonl")
        for name in [name for name in real.env if name.startswith("COVERAGE_")]:
            del real.env[name]  # coverage's hook would write outside the sandbox, and say so
        codex = codex_session(thread, sandbox=sandbox, settings=ALLOWED_SANDBOX)
    else:
        codex = codex_session(thread, sandbox=sandbox)
    # The person asks Codex to join; its shell tool runs join with the variables Codex exports.
    codex.say("Run: " + " ".join(real.command) + " join codex")
    codex.wait_for(lambda: codex.turns_done() == 1, "the end of the joining turn")
    [(_, status, said)] = codex.model.commands()
    # The shell tool gives the model stdout and stderr as they came: the receipt, and the
    # news that this first writer created the ledger, named by its whole path.
    assert status == 0 and said.count("\n") == 2 and "codex joined\n" in said
    assert f"postbag: created the ledger {real.ledger}" in said
    assert f'"peer": "codex", "thread": "{thread}"' in real.ledger_bytes().decode()
    real.ok("join", "claude", env=claude_variables(session))
    real.open("--limit", "3")

    question = "Where does the parser drop errors?"
    assert real.ok("send", "codex", question, env=claude_variables(session)) == "letter 4 delivered to codex, 2 left\n"
    # The idle thread takes the queued letter, and the stand-in answers with the command its
    # envelope gave, through Codex's shell tool; postbag hands it to the real Claude session.
    codex.wait_for(lambda: len(codex.model.commands()) == 2, "the reply command")
    [letter] = codex.user_messages()[1:]
    assert letter.startswith("Letter 4 from claude via postbag. If it needs an answer, reply with:\n")
    assert letter.endswith("\n\n" + question)
    _, status, said = codex.model.commands()[1]
    receipt = "letter 5 delivered to claude, 1 left\n"
    assert status == 0 and sorted(said.splitlines(True)) == sorted([receipt, real.wrote])
    session.wait_for(lambda: any(t.endswith("\n\n" + codex.model.answer) for t in session.enqueued()), "letter 5")

    # Claude's answer is the last letter; Codex takes it and, as it says, does not reply.
    session.wait_for(lambda: real.ledger_bytes().count(b"\n") == 6, "claude's reply")
    codex.wait_for(lambda: codex.turns_done() == 3, "the turn for the last letter")
    assert codex.user_messages()[-1] == f"Letter 6 from claude via postbag. {LAST}\n\n{session.model.answer}"
    assert len(codex.model.commands()) == 2 and real.ledger_bytes().count(b"\n") == 6
    assert real.refused("send", "claude", "one more", env={"CODEX_THREAD_ID": thread}) == (
        "the exchange's letters are spent"
    )
    if sandbox == "workspace-write":  # and the sandbox was on: outside the workspace, nothing is written
        outside = os.path.join(os.path.dirname(codex.workdir), "outside")
        codex.say(f"Run: touch {outside}")
        codex.wait_for(lambda: len(codex.model.commands()) == 3, "the command outside the workspace")
        assert codex.model.commands()[2][1] != 0 and not os.path.exists(outside)
