"""Receipts on the real clients: what each session did with a letter, told from the records
Claude Code and Codex keep, and the formats those readers rely on, pinned to the versions
tests/clients installs: a pin moved to a version that writes them otherwise fails here,
by name."""

import glob
import json
import os
import re
import shutil
import sqlite3
import sys

import clients
import pytest
from helpers import TIMESTAMP
from sessions_helpers import SENT_UNWOKEN, STAYS, UNWOKEN, claude_variables, join_both

from postbag.codex.loaded import LOADED, NOT_LOADED, is_loaded

CLAUDE, CODEX = (f"{name}@{version}" for name, version in (clients.PINS["claude"], clients.PINS["codex"]))
HOLDS = "its settings hold letters from other sessions (crossSessionInbound hold)"
LETS_IN = "the person can let letters in by setting crossSessionInbound to accept in claude's settings.json"
# What Claude says at once of a letter it holds or refuses, which the knock hears, and then the receipt.
HELD = f"claude holds it for the person's review, since {HOLDS}; {STAYS}"
REFUSED = "claude refused it, since its settings refuse letters from other sessions (crossSessionInbound refuse)"
GONE = "codex no longer has the thread it went to (its rollout is gone), so nothing will take it"
WAITS = f"in codex's queue for the thread, which no running codex has loaded: {UNWOKEN}"


def receipts(real, inside, *args):
    return real.ok("receipts", *args, env=inside).splitlines()


@pytest.mark.parametrize(("setting", "why"), [("accept", None), ("hold", HELD), ("refuse", REFUSED)])
def test_what_a_claude_session_did_with_a_letter_is_told_from_its_own_records(real, claude, codex_home, setting, why):
    session = claude(crossSessionInbound=setting)
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    real.open()
    # The sender asks in the Claude session's own home: one user, one home, as people have.
    inside_codex = {"CODEX_THREAD_ID": thread, "HOME": session.home}
    sent = real.ok("send", "claude", "Did this arrive?", env=inside_codex)
    if why is None:
        assert sent == "letter 4 delivered to claude, 11 left\n"
        session.wait_for(session.letters, "the letter's enqueue")
        # The session's model answers it with the reply command: the receipt settles.
        session.wait_for(lambda: real.ledger_bytes().count(b'"kind": "letter"') == 2, "claude's answer")
        [line] = receipts(real, inside_codex)
        assert re.fullmatch(rf"letter 4 codex -> claude: answered by letter 5, taken at {TIMESTAMP}", line), line
    else:  # Claude says so at once, the send hears it, and the receipt after it
        assert sent == f"letter 4 delivered to claude, 11 left; but {why}\n"
        assert receipts(real, inside_codex) == [f"letter 4 codex -> claude: not taken: {why}"]
        assert session.letters() == []


def test_a_projects_own_setting_tightens_the_persons_and_the_receipt_says_so(real, claude, codex_home, tmp_path):
    """The person's settings accept; the project the session works in refuses, in its
    settings.local.json: Claude Code drops the letter, and postbag reads why."""
    (tmp_path / "work" / ".claude").mkdir(parents=True)
    (tmp_path / "work" / ".claude" / "settings.local.json").write_text(json.dumps({"crossSessionInbound": "refuse"}))
    session = claude(crossSessionInbound="accept")
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    real.open()
    inside_codex = {"CODEX_THREAD_ID": thread, "HOME": session.home}
    sent = real.ok("send", "claude", "Did this arrive?", env=inside_codex)
    assert sent == f"letter 4 delivered to claude, 11 left; but {REFUSED}\n"
    assert receipts(real, inside_codex) == [f"letter 4 codex -> claude: not taken: {REFUSED}"]
    session.say("Run: true")  # a turn of the person's own, after which a taken letter would show
    session.wait_for(lambda: any(e.get("type") == "result" for e in session.stream()), "the person's turn")
    assert session.letters() == []


def test_after_a_restart_each_letter_is_told_from_the_session_it_went_to(real, claude, codex_home):
    first = claude()
    thread = codex_home.new_thread(real.env)
    join_both(real, first, thread)
    inside_codex = {"CODEX_THREAD_ID": thread, "HOME": first.home}
    real.open("--limit", "1")  # each letter the last of its exchange: no session answers it
    real.ok("send", "claude", "to the first session", env=inside_codex)
    first.wait_for(first.letters, "the first letter")
    first.kill()
    again = claude(home=first.home)  # the same person's home: a new session, a transcript of its own
    real.ok("join", "claude", env=claude_variables(again))
    real.open("--limit", "1")
    real.ok("send", "claude", "to the new session", env=inside_codex)
    again.wait_for(again.letters, "the second letter")
    lines = receipts(real, inside_codex, "2")  # codex's last two: one to each session
    taken = [line.partition(": taken at ")[0] for line in lines]
    assert taken == ["letter 4 codex -> claude", "letter 7 codex -> claude"]


def test_a_letter_a_loaded_codex_thread_takes_is_shown_taken(real, claude, codex_home, codex_session):
    session = claude()
    thread = codex_home.new_thread(real.env)
    codex = codex_session(thread)
    join_both(real, session, thread)
    real.open("--limit", "1")  # the last letter: Codex takes it and does not answer
    inside_claude = claude_variables(session)
    assert real.ok("send", "codex", "Take this.", env=inside_claude) == "letter 4 delivered to codex, 0 left\n"
    codex.wait_for(lambda: len(codex.user_messages()) == 1, "the letter's turn")
    [line] = receipts(real, inside_claude)
    assert re.fullmatch(rf"letter 4 claude -> codex: taken at {TIMESTAMP}", line), line


def test_a_letter_to_a_thread_no_codex_has_loaded_waits_and_is_taken_once_the_thread_is_resumed(
    real, claude, codex_home, codex_session
):
    session = claude()
    thread = codex_home.new_thread(real.env)  # its codex exec run has ended
    join_both(real, session, thread)
    real.open("--limit", "1")
    inside_claude = claude_variables(session)
    assert real.ok("send", "codex", "Still there?", env=inside_claude) == (
        f"letter 4 delivered to codex, 0 left; but it waits in codex's queue: no running codex has the thread loaded, "
        f"and {SENT_UNWOKEN}\n"
    )
    assert receipts(real, inside_claude) == [f"letter 4 claude -> codex: waiting: {WAITS}"]
    codex = codex_session(thread)  # the person resumes the thread
    codex.wait_for(lambda: len(codex.user_messages()) == 1, "the waiting letter's turn")
    [line] = receipts(real, inside_claude)
    assert re.fullmatch(rf"letter 4 claude -> codex: taken at {TIMESTAMP}", line), line


def test_a_letter_to_a_thread_codex_has_lost_is_not_taken(real, claude, codex_home):
    session = claude()
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    real.open()
    inside_claude = claude_variables(session)
    real.ok("send", "codex", "Anyone?", env=inside_claude)
    for rollout in codex_home.rollouts(thread):
        os.remove(rollout)  # the person deleted the session: its letter can never be taken
    assert receipts(real, inside_claude) == [f"letter 4 claude -> codex: not taken: {GONE}"]
    # codex queue still takes a letter for the lost thread, and exits 0: the send says it is lost.
    sent = real.ok("send", "codex", "Anyone at all?", env=inside_claude)
    assert sent == f"letter 5 delivered to codex, 10 left; but {GONE}\n"


def test_the_records_receipts_read_are_as_the_pinned_clients_write_them(real, claude, codex_home, codex_session):
    """Every field each reader relies on, as the pinned clients write it."""
    session = claude()
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    real.open("--limit", "1")  # a last letter each time: no session answers, so one letter a door
    real.ok("send", "claude", "for the transcript", env={"CODEX_THREAD_ID": thread})
    session.wait_for(session.letters, "the letter")
    kinds = [(r, r.get("type"), r.get("operation")) for r in session.transcript()]
    [enqueued] = [r for r, kind, operation in kinds if (kind, operation) == ("queue-operation", "enqueue")]
    assert enqueued["content"].endswith("\n\nfor the transcript"), f"{CLAUDE} records a taken letter otherwise"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", enqueued["timestamp"]), f"{CLAUDE}'s times changed"
    exported = session.session_env()["CLAUDE_CODE_SESSION_ID"]
    sessions = os.path.join(session.home, ".claude", "sessions")
    live = []
    for name in (name for name in os.listdir(sessions) if name.endswith(".json")):
        with open(os.path.join(sessions, name)) as file:
            live.append(json.load(file))
    assert [(type(r["pid"]), r["sessionId"], r["cwd"]) for r in live] == [(int, exported, session.workdir)], (
        f"{CLAUDE} keeps its live sessions otherwise"
    )
    real.open("--limit", "1")
    real.ok("send", "codex", "for the queue", env=claude_variables(session))
    with sqlite3.connect(f"file:{codex_home.home}/queue_1.sqlite?mode=ro", uri=True) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(queued_items)")]
        [(thread_id, payload)] = db.execute("SELECT thread_id, payload_json FROM queued_items").fetchall()
    db.close()
    assert columns == ["id", "thread_id", "payload_json", "queue_order", "created_at_ms", "updated_at_ms"], CODEX
    assert thread_id == thread and json.loads(payload)["UserInput"]["content"][0]["text"].endswith("\n\nfor the queue")
    assert is_loaded(codex_home.home, thread, sys.platform) == NOT_LOADED, f"{CODEX}'s writer lock is not where it was"
    codex = codex_session(thread)

    def loaded():
        return is_loaded(codex_home.home, thread, sys.platform) == LOADED

    codex.wait_for(loaded, "the writer lock of the loaded thread")
    codex.wait_for(lambda: len(codex.user_messages()) == 1, "the queued letter's turn")
    [rollout] = codex_home.rollouts(thread)
    with open(rollout) as file:
        taken = [
            r
            for r in map(json.loads, file)
            if r.get("type") == "response_item"
            and r["payload"].get("role") == "user"
            and "for the queue" in json.dumps(r)
        ]
    assert [part["type"] for part in taken[0]["payload"]["content"]] == ["input_text"], f"{CODEX}'s rollout changed"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", taken[0]["timestamp"]), f"{CODEX}'s times changed"
    codex.stop()
    assert is_loaded(codex_home.home, thread, sys.platform) == NOT_LOADED


def test_open_names_each_doors_state_from_the_real_clients_records(real, claude, codex_home):
    session = claude(crossSessionInbound="hold")
    thread = codex_home.new_thread(real.env)  # its exec ended: no running codex has it loaded
    join_both(real, session, thread)
    person = {"HOME": session.home}  # the person's own home, where Claude keeps its records
    said = real.run("open", "2", env=person).stderr.splitlines()
    held = f"it holds each for the person's review, since {HOLDS}; {STAYS}; {LETS_IN}"
    assert f"postbag: claude will not act on a letter at once: {held}" in said, said
    assert f"postbag: codex's letters will wait: no running codex has its thread loaded, and {UNWOKEN}" in said, said
    session.kill()
    said = real.run("open", "2", env=person).stderr.splitlines()
    ended = "postbag: claude cannot take a letter now: its session has ended; start Claude again, and let it join"
    assert ended in said, said


def test_a_session_restarted_on_the_joined_socket_takes_the_letter_and_the_receipt_says_so(real, claude, codex_home):
    first = claude()
    thread = codex_home.new_thread(real.env)
    join_both(real, first, thread)
    first.kill()  # a crash: the socket file stays behind
    again = claude(home=first.home, socket_dir=first.socket_dir)  # bound on the same path, and not joined
    inside_codex = {"CODEX_THREAD_ID": thread, "HOME": first.home}
    real.open("--limit", "1")
    assert real.ok("send", "claude", "Who takes this?", env=inside_codex) == "letter 4 delivered to claude, 0 left\n"
    # Asked at once, before the new session's transcript has it (Claude Code writes it a
    # moment after it takes the letter): nothing is known yet, and nothing says it is lost.
    [line] = receipts(real, inside_codex)
    assert line.startswith("letter 4 codex -> claude: taken at ") or line == (
        "letter 4 codex -> claude: unknown: claude's transcript holds no sign of the letter yet: the session that "
        "joined has ended, and another claude session, which has not joined, listens on its socket"
    ), line
    again.wait_for(again.letters, "the letter, in the new session")
    [line] = receipts(real, inside_codex)
    assert re.fullmatch(
        rf"letter 4 codex -> claude: taken at {TIMESTAMP} \(by another claude session, which listens on the socket "
        r"it went to: the session that joined has ended, and the new one has not joined\)",
        line,
    ), line


def test_after_clear_the_session_that_joined_takes_the_letter_in_its_new_transcript_and_the_receipt_says_so(
    real, claude, codex_home
):
    """/clear keeps the session's process and socket and begins a transcript under a new
    session id, which its session file names (2.1.336; anthropics/claude-code#95439 saw the
    file keep the old one). The join recorded the process, so the receipt reads where the
    session writes now, and names it as the session that joined."""
    session = claude()
    thread = codex_home.new_thread(real.env)
    joined = session.session_env()["CLAUDE_CODE_SESSION_ID"]
    # Joined from the session's shell, whose HOME is the session's own.
    assert real.ok("join", "claude", env={**claude_variables(session), "HOME": session.home}) == "claude joined\n"
    assert real.ok("join", "codex", env={"CODEX_THREAD_ID": thread}) == "codex joined\n"
    session.say("/clear")
    session.wait_for(lambda: session.session_env()["CLAUDE_CODE_SESSION_ID"] != joined, "the new session id")
    inside_codex = {"CODEX_THREAD_ID": thread, "HOME": session.home}
    real.open("--limit", "1")
    assert real.ok("send", "claude", "After the clear?", env=inside_codex) == "letter 4 delivered to claude, 0 left\n"
    session.wait_for(session.letters, "the letter, in the new transcript")
    [line] = receipts(real, inside_codex)
    assert re.fullmatch(
        rf"letter 4 codex -> claude: taken at {TIMESTAMP} \(by the session that joined, in the transcript it began "
        r"since under another session id, as /clear and /branch begin one\)",
        line,
    ), line
    opened = real.run("open", "1", env={"HOME": session.home})
    assert "claude can take a letter now: its session runs" in opened.stderr and "let it join" not in opened.stderr


PROMPT = "\N{HEAVY RIGHT-POINTING ANGLE QUOTATION MARK ORNAMENT}"  # Claude's input line, as its screen shows it


@pytest.mark.skipif(
    not (shutil.which("script") and shutil.which("tmux")),
    reason="a session in a terminal needs tmux and util-linux's script",
)
# 2.1.248's /rewind asks to fork the conversation instead, and not every time
@pytest.mark.since(versions={"claude": "2.1.271"}, needs="/rewind that restores the conversation in place")
def test_a_branch_and_a_rewind_in_the_joined_session_keep_every_receipt_true(real, claude, codex_home):
    """In a terminal, as a person runs it: /branch gives the session a new id and transcript
    on the same process and socket, as /clear does; /rewind keeps both. A letter taken
    before, between and after them is each told taken, by the session that joined."""
    session = claude(screen=True)
    thread = codex_home.new_thread(real.env)
    # Joined from the session's shell, whose HOME is the session's own.
    assert real.ok("join", "claude", env={**claude_variables(session), "HOME": session.home}) == "claude joined\n"
    assert real.ok("join", "codex", env={"CODEX_THREAD_ID": thread}) == "codex joined\n"
    inside_codex = {"CODEX_THREAD_ID": thread, "HOME": session.home}
    began = session.running_id()

    def taken(text):  # in any transcript of the session's home
        paths = glob.glob(os.path.join(session.home, ".claude", "projects", "*", "*.jsonl"))
        return any(f"\\n\\n{text}" in line for path in paths for line in open(path, encoding="utf-8"))

    def send(text):
        real.open("--limit", "1")  # each the last letter of its exchange: the model answers none
        real.ok("send", "claude", text, env=inside_codex)
        session.wait_for(lambda: taken(text), f"the letter {text!r}")

    def then(act, shown):  # what the person does, and what the screen shows when it is done
        act()
        session.wait_for(lambda: shown in session.shown(), repr(shown))

    send("before the branch")
    then(lambda: session.type("/branch"), f"{PROMPT} /branch")
    session.press("Enter")
    session.wait_for(lambda: session.running_id() != began, "the branch's session id")
    branched = session.running_id()
    send("after the branch")
    then(lambda: session.say("Run: true"), "Ran 1 shell command")  # a prompt of the person's own, to go back to
    then(lambda: session.type("/rewind"), f"{PROMPT} /rewind")
    then(lambda: session.press("Enter"), "Restore the code and/or conversation to the point before")
    then(lambda: (session.press("Up"), session.press("Enter")), "Restore conversation")  # the person's prompt
    session.press("Enter")
    session.wait_for(lambda: "Restore conversation" not in session.shown(), "the rewind")
    session.press("C-u")  # the restored prompt, back in the input, cleared
    assert session.running_id() == branched
    send("after the rewind")
    since = (
        " (by the session that joined, in the transcript it began since under another session id, as /clear and "
        "/branch begin one)"
    )
    lines = receipts(real, inside_codex, "3")
    assert [re.sub(TIMESTAMP, "T", line) for line in lines] == [
        "letter 4 codex -> claude: taken at T",
        f"letter 6 codex -> claude: taken at T{since}",
        f"letter 8 codex -> claude: taken at T{since}",
    ], lines
