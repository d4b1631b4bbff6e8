"""Receipts: where each letter stands, from the records each vendor keeps of what its session
took, written here as Claude Code 2.1.328 and Codex 0.169.0 write them (the real tier
checks that they still do). Missing, torn, locked or foreign records say "unknown"."""

import fcntl
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timezone

import pytest

WHEN = "2026-12-02T02:30:41.226Z"  # how both vendors stamp their records


def local(stamp):
    """A vendor's time as postbag shows it: local, to the second, with the offset."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone().isoformat(timespec="seconds")


def now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def write_lines(path, records):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a") as file:
        for record in records:
            file.write((record if isinstance(record, str) else json.dumps(record)) + "\n")


class Claude:
    """Claude Code's records for the fake inbox's session, under the test's HOME."""

    def __init__(self, home, session):
        self.config, self.session = os.path.join(home, ".claude"), session
        self.transcript = os.path.join(self.config, "projects", "-work-repo", f"{session}.jsonl")

    def took(self, envelope, at=WHEN):
        write_lines(
            self.transcript,
            [
                {"type": "summary"},
                {
                    "type": "queue-operation",
                    "operation": "enqueue",
                    "timestamp": at,
                    "sessionId": self.session,
                    "content": envelope,
                },
                {"type": "queue-operation", "operation": "dequeue", "timestamp": at},
            ],
        )

    def runs(self, cwd, pid=None):
        record = {"pid": pid or os.getpid(), "sessionId": self.session, "cwd": str(cwd), "version": "2.1.328"}
        write_lines(os.path.join(self.config, "sessions", f"{record['pid']}.json"), [record])

    def settings(self, directory, inbound, *, since_sent=False):
        """crossSessionInbound in the settings.json of `directory`, as it stood an hour
        before now (before any letter of the test), or, `since_sent`, written after every
        letter so far (a second on: the ledger's time is to the second)."""
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "settings.json")
        with open(path, "w") as file:
            json.dump({"crossSessionInbound": inbound}, file)
        written = time.time() + 2 if since_sent else time.time() - 3600
        os.utime(path, (written, written))


class Codex:
    """Codex's records for the fake codex's thread, under the test's HOME."""

    def __init__(self, home, thread):
        self.home, self.thread = os.path.join(home, ".codex"), thread
        name = f"rollout-2026-12-02T02-30-40-{thread}.jsonl"
        self.rollout = os.path.join(self.home, "sessions", "2026", "12", "02", name)
        write_lines(self.rollout, [{"timestamp": WHEN, "type": "session_meta", "payload": {"id": thread}}])

    def took(self, envelope, at=WHEN):
        payload = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": envelope}]}
        write_lines(self.rollout, [{"timestamp": at, "type": "response_item", "payload": payload}])

    def queued(self, envelope):
        with sqlite3.connect(os.path.join(self.home, "queue_1.sqlite")) as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS queued_items (id TEXT PRIMARY KEY NOT NULL, thread_id TEXT NOT NULL, "
                "payload_json TEXT NOT NULL, queue_order INTEGER NOT NULL, created_at_ms INTEGER NOT NULL, "
                "updated_at_ms INTEGER NOT NULL)"
            )
            payload = {"UserInput": {"content": [{"type": "text", "text": envelope, "text_elements": []}]}}
            db.execute("INSERT INTO queued_items VALUES (?, ?, ?, 0, 0, 0)", ("id1", self.thread, json.dumps(payload)))
        db.close()

    def settings(self, approval_policy):
        """What codex records of the settings a resumed turn of the thread runs with."""
        payload = {"type": "thread_settings_applied", "thread_settings": {"approval_policy": approval_policy}}
        write_lines(self.rollout, [{"timestamp": WHEN, "type": "event_msg", "payload": payload}])

    def turn_context(self, approval_policy):
        """A turn's context, the only record of the thread's settings a Codex 0.153 rollout has."""
        payload = {"turn_id": "t1", "cwd": "/work", "approval_policy": approval_policy, "model": "stand-in"}
        write_lines(self.rollout, [{"timestamp": WHEN, "type": "turn_context", "payload": payload}])

    def turn(self, *items, ended=False):
        """A turn of the thread: its start, `items` (response_item payloads), and its end if `ended`."""
        records = [{"type": "event_msg", "payload": {"type": "task_started"}}]
        records += [{"type": "response_item", "payload": item} for item in items]
        records += [{"type": "event_msg", "payload": {"type": "task_complete"}}] if ended else []
        write_lines(self.rollout, [{"timestamp": WHEN, **record} for record in records])

    def daemon(self, pid=None):
        """Codex's app-server daemon for this home, as its pid record says: running as the
        process `pid` (default this one), or, with pid 0, stopped."""
        folder = os.path.join(self.home, "app-server-daemon")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "daemon.pid")
        if pid == 0:
            if os.path.exists(path):
                os.remove(path)
            return
        pid = pid or os.getpid()
        with open(f"/proc/{pid}/stat", "rb") as file:
            ticks = int(file.read().rpartition(b")")[2].split()[19])
        with open(path, "w") as file:
            json.dump({"pid": pid, "processIdentity": {"startTicks": ticks}}, file)

    def lock_file(self):
        path = os.path.join(self.home, "thread-writer-locks", f"{self.thread}.lock")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()
        return path


@pytest.fixture
def exchange(postbag, inbox, codex, tmp_path):
    """Both peers joined, an exchange open, letter 4 from codex to claude and letter 5 back;
    the records each vendor keeps, empty so far."""
    postbag.ready()
    postbag.ok("send", "claude", "Review it.", inside="codex")
    postbag.ok("send", "codex", "Reviewed.", inside="claude")
    home = postbag.env["HOME"]
    return Claude(home, inbox.session), Codex(home, codex.thread), inbox.envelopes(1)[0], codex.envelopes()[0]


def receipts(postbag, *args, inside=None):
    return postbag.ok("receipts", *args, inside=inside).splitlines()


@pytest.mark.shipped
def test_a_letter_each_session_took_is_shown_taken_with_the_time_from_its_record(postbag, exchange):
    claude, codex, to_claude, to_codex = exchange
    claude.took(to_claude)
    codex.took(to_codex, at="2026-12-02T02:30:42.500Z")
    assert receipts(postbag) == [
        f"letter 4 codex -> claude: answered by letter 5, taken at {local(WHEN)}",  # claude wrote back
        f"letter 5 claude -> codex: taken at {local('2026-12-02T02:30:42.500Z')}",
    ]
    shown = [json.loads(line) for line in receipts(postbag, "--json")]
    assert [shown[0], shown[1]["receipt"]] == [
        {
            "n": 4,
            "at": shown[0]["at"],
            "from": "codex",
            "to": "claude",
            "receipt": {"state": "answered", "at": local(WHEN), "answered_by": 5},
        },
        {"state": "taken", "at": local("2026-12-02T02:30:42.500Z")},
    ]


def test_a_taken_letter_settles_at_answered_by_the_recipients_next_letter_back_and_only_then(postbag, exchange):
    claude, codex, _, to_codex = exchange
    # Letter 5 answers letter 4, but nothing shows that claude took 4: an answer alone settles nothing.
    assert receipts(postbag)[0].startswith("letter 4 codex -> claude: unknown: ")
    codex.took(to_codex)
    assert receipts(postbag)[1] == f"letter 5 claude -> codex: taken at {local(WHEN)}"  # no answer yet
    postbag.ok("send", "claude", "Thanks.", inside="codex")
    postbag.ok("send", "codex", "One more.", inside="claude")
    postbag.ok("send", "codex", "And another.", inside="claude")
    assert receipts(postbag, "4")[0] == f"letter 5 claude -> codex: answered by letter 6, taken at {local(WHEN)}"
    assert ": unknown: " in receipts(postbag, "3")[0]  # letter 6: answered twice, taken by no record
    claude.took(postbag.inbox.envelopes(2)[1])
    assert receipts(postbag, inside="codex") == [
        f"letter 6 codex -> claude: answered by letter 7, taken at {local(WHEN)}"  # the next letter back, not the last
    ]
    [last] = [json.loads(line) for line in receipts(postbag, "1", "--json")]
    assert (last["n"], last["receipt"]["state"]) == (8, "unknown")


def test_inside_a_session_the_sender_is_told_of_its_own_last_letter(postbag, exchange):
    claude, _, to_claude, _ = exchange
    claude.took(to_claude)
    answered = f"letter 4 codex -> claude: answered by letter 5, taken at {local(WHEN)}"
    assert receipts(postbag, inside="codex") == [answered]
    assert receipts(postbag, inside="claude")[0].startswith("letter 5 claude -> codex: unknown: ")


@pytest.mark.parametrize(
    ("where", "inbound", "why"),
    [
        (
            "user",
            "refuse",
            "claude's settings refuse letters from other sessions (crossSessionInbound refuse): the session drops them",
        ),
        (
            "project",
            "hold",
            "claude's settings hold letters from other sessions for the person's review "
            "(crossSessionInbound hold): unless approved in that session, a held letter is dropped after dialogExpiry, "
            "five minutes by default",
        ),
        ("user", "sometimes", "claude's settings hold letters"),  # a value Claude Code does not know holds
    ],
)
def test_a_letter_claudes_settings_keep_out_is_not_taken_with_that_reason(  # noqa: PLR0917
    postbag, exchange, tmp_path, where, inbound, why
):
    claude, *_ = exchange
    project = tmp_path / "repo"
    claude.runs(project)
    claude.settings(claude.config if where == "user" else project / ".claude", inbound)
    [line] = receipts(postbag, "1", inside="codex")
    assert line.startswith(f"letter 4 codex -> claude: not taken: {why}")


@pytest.mark.parametrize("where", ["user", "project"])
def test_settings_changed_since_the_letter_was_sent_are_said_as_they_are_now_not_as_its_reason(
    postbag, exchange, tmp_path, where
):
    claude, *_ = exchange
    project = tmp_path / "repo"
    claude.runs(project)
    claude.settings(claude.config, "accept")
    claude.settings(claude.config if where == "user" else project / ".claude", "refuse", since_sent=True)
    assert receipts(postbag, "1", inside="codex") == [
        "letter 4 codex -> claude: unknown: claude's transcript holds no sign of the letter, and claude's settings "
        "now say crossSessionInbound refuse, changed since it was sent: what they said then is not recorded"
    ]


def test_a_project_may_only_tighten_the_users_setting(postbag, exchange, tmp_path):
    claude, *_ = exchange
    claude.runs(tmp_path / "repo")
    claude.settings(claude.config, "hold")
    claude.settings(tmp_path / "repo" / ".claude", "accept")
    assert "(crossSessionInbound hold)" in receipts(postbag, inside="codex")[0]


def test_a_letter_to_a_session_that_has_ended_is_not_taken_and_says_so(postbag, exchange):
    claude, *_ = exchange
    claude.runs("/work/repo", pid=2**22 + 7)  # a pid no process has: the session's file outlived it
    assert receipts(postbag, inside="codex") == [
        "letter 4 codex -> claude: not taken: claude's session has ended, "
        "and its transcript holds no sign of the letter"
    ]


def test_without_any_sign_or_reason_the_receipt_says_unknown_not_a_guess(postbag, exchange, tmp_path):
    claude, *_ = exchange
    claude.runs(tmp_path / "repo")  # running, accepting, and nothing in the transcript yet
    assert receipts(postbag, inside="codex") == [
        "letter 4 codex -> claude: unknown: claude's transcript holds no sign of the letter (yet), "
        "and its records say nothing of why"
    ]


def test_an_unknown_from_records_a_client_outside_the_proven_range_wrote_says_so(postbag, exchange, tmp_path):
    """The version each client writes in its own records (Claude Code on each transcript
    line, Codex in the rollout's first record) is named where it is not one postbag is
    proven on; a send is never refused for it."""
    from postbag.claude import door as claude_room
    from postbag.codex import door as codex_room

    claude, codex, _, _ = exchange
    claude.runs(tmp_path / "repo")
    write_lines(claude.transcript, [{"type": "user", "version": "2.1.100", "timestamp": WHEN}])
    oldest, newest = claude_room.PROVEN
    [said] = receipts(postbag, inside="codex")
    assert said == (
        "letter 4 codex -> claude: unknown: claude's transcript holds no sign of the letter (yet), and its records "
        f"say nothing of why; claude 2.1.100 wrote these records, and postbag is proven on claude {oldest} to {newest}"
    )
    write_lines(claude.transcript, [{"type": "user", "version": newest, "timestamp": WHEN}])
    assert receipts(postbag, inside="codex")[0].endswith("and its records say nothing of why")
    with open(codex.rollout) as file:
        lines = file.readlines()
    first = json.loads(lines[0])
    first["payload"]["cli_version"] = "0.200.0"
    with open(codex.rollout, "w") as file:
        file.writelines([json.dumps(first) + "\n", *lines[1:]])
    oldest, newest = codex_room.PROVEN
    assert receipts(postbag, inside="claude") == [
        "letter 5 claude -> codex: unknown: neither codex's queue nor the thread's rollout holds it; "
        f"codex 0.200.0 wrote these records, and postbag is proven on codex {oldest} to {newest}"
    ]
    sent = postbag.ok("send", "codex", "Still there?", inside="claude")
    assert sent.startswith("letter 6 delivered to codex, 9 left")


def test_a_torn_or_foreign_transcript_gives_unknown_or_the_truth_never_a_traceback(postbag, exchange, tmp_path):
    claude, _, to_claude, _ = exchange
    write_lines(claude.transcript, ["{not json", '{"type": "queue-operation", "operation": "enqueue"', "\x00\xff"])
    claude.runs(tmp_path / "repo")
    assert receipts(postbag, inside="codex")[0].startswith("letter 4 codex -> claude: unknown: ")
    claude.took(to_claude)
    write_lines(claude.transcript, ['{"type": "assistant", "message": {"content": "half a rec'])
    answered = f"letter 4 codex -> claude: answered by letter 5, taken at {local(WHEN)}"
    assert receipts(postbag, inside="codex") == [answered]


def test_a_claude_join_from_before_receipts_names_no_session_and_gives_unknown(postbag, exchange, inbox):
    postbag.ok(
        "join",
        "claude",
        env={
            "CLAUDE_CODE_SESSION_ID": None,
            **{k: v for k, v in inbox.session_env().items() if k != "CLAUDE_CODE_SESSION_ID"},
        },
    )
    postbag.ok("send", "claude", "again", inside="codex")
    assert receipts(postbag, inside="codex") == [
        "letter 7 codex -> claude: unknown: claude's join names no session to look in (a join from before postbag 1.2)"
    ]


def test_a_letter_in_codexs_queue_is_waiting_and_says_whether_a_running_codex_will_take_it(postbag, exchange):
    _, codex, _, to_codex = exchange
    codex.queued(to_codex)
    assert receipts(postbag, inside="claude") == [
        "letter 5 claude -> codex: waiting: in codex's queue for the thread; whether a running codex has it loaded "
        "cannot be told here"
    ]
    lock = codex.lock_file()  # the thread was loaded once: its lock file stays
    codex.settings("on-request")
    said = receipts(postbag, inside="claude")[0]
    assert said.endswith(
        "which no running codex has loaded: postbag does not wake it: the thread asks for approvals "
        "(approval_policy on-request), and nobody could give one to a woken turn; it is taken when the thread "
        "is resumed where a person can approve (in the app or editor, or with codex resume)"
    )
    with open(lock) as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as the codex that has the thread loaded holds it
        assert receipts(postbag, inside="claude")[0].endswith(
            "which a running codex has loaded: it takes the letter when it is idle"
        )


def test_a_letter_to_a_thread_codex_no_longer_has_is_not_taken_and_the_send_says_so(postbag, exchange):
    _, codex, _, _ = exchange
    os.remove(codex.rollout)
    gone = "codex no longer has the thread it went to (its rollout is gone), so nothing will take it"
    assert receipts(postbag, inside="claude") == [f"letter 5 claude -> codex: not taken: {gone}"]
    sent = postbag.ok("send", "codex", "Anyone?", inside="claude")
    assert sent == f"letter 6 delivered to codex, 9 left; but {gone}\n"
    shutil.rmtree(os.path.join(codex.home, "sessions"))  # no sessions at all: nothing can be told
    assert postbag.ok("send", "codex", "Still?", inside="claude") == "letter 7 delivered to codex, 8 left\n"


def test_a_locked_or_foreign_queue_database_gives_unknown(postbag, exchange):
    _, codex, _, to_codex = exchange
    codex.queued(to_codex)
    holder = sqlite3.connect(os.path.join(codex.home, "queue_1.sqlite"), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process writing, longer than postbag waits
    try:
        said = receipts(postbag, inside="claude")[0]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert said == "letter 5 claude -> codex: unknown: cannot read codex's queue (database is locked)"
    with open(os.path.join(codex.home, "queue_1.sqlite"), "wb") as foreign:
        foreign.write(b"not a database at all" * 100)
    assert receipts(postbag, inside="claude")[0].startswith("letter 5 claude -> codex: unknown: ")


def test_reading_the_queue_writes_nothing_in_codexs_home(postbag, exchange):
    _, codex, _, to_codex = exchange
    codex.queued(to_codex)
    before = {name: os.stat(os.path.join(codex.home, name)).st_mtime_ns for name in os.listdir(codex.home)}
    receipts(postbag, inside="claude")
    after = {name: os.stat(os.path.join(codex.home, name)).st_mtime_ns for name in os.listdir(codex.home)}
    assert after == before


def test_a_send_says_at_once_what_the_recipients_records_already_show(postbag, exchange, tmp_path, codex):
    claude, codex_files, _, _ = exchange
    claude.runs(tmp_path / "repo")
    claude.settings(claude.config, "refuse")
    assert postbag.ok("send", "claude", "into the void", inside="codex") == (
        "letter 6 delivered to claude, 9 left; but claude's settings refuse letters from other sessions "
        "(crossSessionInbound refuse): the session drops them\n"
    )
    codex_files.lock_file()  # loaded once, by nobody now
    codex_files.settings("on-request")
    assert postbag.ok("send", "codex", "to a thread nobody has loaded", inside="claude") == (
        "letter 7 delivered to codex, 8 left; but it waits in codex's queue: no running codex has the thread "
        "loaded, and postbag does not wake it: the thread asks for approvals (approval_policy on-request), and "
        "nobody could give one to a woken turn; it is taken when the thread is resumed where a person can approve "
        "(in the app or editor, or with codex resume)\n"
    )


def test_no_receipt_names_the_session_thread_or_door_it_read_about(postbag, exchange, inbox, codex, tmp_path):
    """The records receipts read are named by session and thread ids; what it says of them
    names neither, in every state, nor the doors the ledger holds."""
    claude, codex_files, to_claude, to_codex = exchange
    codex_files.queued(to_codex)
    claude.runs(tmp_path / "repo")
    claude.settings(claude.config, "hold")
    said = [
        postbag.ok(*args, inside=inside)
        for args in (("receipts",), ("receipts", "--json"), ("receipts", "2", "--json"))
        for inside in (None, "claude", "codex")
    ]
    said.append(postbag.ok("send", "codex", "and this?", inside="claude"))
    claude.took(to_claude)
    said.append(postbag.ok("receipts"))
    doors = (inbox.session, codex.thread, inbox.token, inbox.path)
    assert [door for door in doors for text in said if door in text] == []
    assert any("hold" in text for text in said) and any("in codex's queue" in text for text in said)


def test_with_no_ledger_or_no_letter_receipts_say_so(postbag):
    result = postbag.run("receipts")
    assert (result.returncode, result.stderr) == (0, f"postbag: there is no ledger at {postbag.ledger} yet\n")
    postbag.ready()
    assert receipts(postbag, inside="claude") == ["no letter has been sent by claude"]


def test_through_the_mcp_door_status_tells_the_sender_whether_its_last_letter_was_taken(postbag, exchange, codex):
    claude, _, to_claude, _ = exchange
    server = postbag.mcp()
    server.handshake()
    try:
        meta = {"threadId": codex.thread}
        text, error = server.tool("status", meta=meta)
        assert not error and text.splitlines()[-1].startswith("your last letter, 4 to claude: unknown: ")
        claude.took(to_claude)
        text, _ = server.tool("status", meta=meta)
        assert text.splitlines()[-1] == f"your last letter, 4 to claude: answered by letter 5, taken at {local(WHEN)}"
        assert text.splitlines()[0].startswith(f"ledger {postbag.ledger}: exchange of 12 letters, 2 sent, 10 left")
    finally:
        server.close()


def test_a_record_further_back_than_postbag_reads_is_unknown_not_absent(postbag, exchange, tmp_path):
    """A transcript whose records carry no time gives no place to stop: the search goes back
    64 MiB at most, and then says it did not read all of it."""
    claude, _, to_claude, _ = exchange
    claude.took(to_claude)
    untimed = json.dumps({"type": "attachment", "pad": "x" * 1000})
    with open(claude.transcript, "a") as file:
        file.write((untimed + "\n") * (65 * 1024))
    claude.runs(tmp_path / "repo")
    assert receipts(postbag, inside="codex") == [
        "letter 4 codex -> claude: unknown: claude's transcript is longer than postbag reads back"
    ]


# The readers' own pieces, in-process


def test_times_of_every_form_the_vendors_and_the_ledger_write_are_read_or_left_alone():
    from postbag.receipts import local, moment

    assert moment("2026-12-02T02:30:41.226Z") == moment("2026-12-02T02:30:41.226+00:00") == 1796178641.226
    assert moment("2026-12-02T04:30:41+02:00") == 1796178641
    assert [moment(text) for text in ("2026-12-02T02:30:41", "yesterday", "", None)] == [None, None, None, None]
    assert local("not a time") == "not a time"


def test_a_receipt_without_a_join_or_a_file_is_unknown_and_says_why(tmp_path):
    from postbag import receipts

    letter = {"n": 4, "at": "2026-12-02T02:30:41+00:00", "from": "codex", "to": "claude", "body": "hi"}
    from postbag import verbs

    assert verbs.receipt_of(letter, None, {}).words() == "unknown: no join of claude comes before it in the ledger"
    found = receipts.find_back(str(tmp_path / "none.jsonl"), "claude's transcript", b"x", bool, None)
    assert found == (None, "cannot read claude's transcript (No such file or directory)")
    older, newer = tmp_path / "older.jsonl", tmp_path / "newer.jsonl"
    for path, written in ((newer, 2_000_000_000), (older, 1_000_000_000)):  # the older one written last
        path.write_text("")
        os.utime(path, (written, written))
    assert receipts.newest([str(older), str(newer), str(tmp_path / "gone")]) == str(newer)


def test_managed_settings_overrule_the_persons_and_the_projects(tmp_path, monkeypatch):
    from postbag.claude import door as claude

    managed = tmp_path / "managed-settings.json"
    monkeypatch.setattr(claude, "MANAGED_SETTINGS", (str(tmp_path / "absent.json"), str(managed)))
    config, project = tmp_path / "config", tmp_path / "project"
    Claude(str(tmp_path), "s").settings(str(config), "refuse")
    Claude(str(tmp_path), "s").settings(str(project / ".claude"), "refuse")
    assert claude.inbound_setting(str(config), str(project)) == "refuse"
    managed.write_text(json.dumps({"crossSessionInbound": "accept"}))  # an admin's, above both
    assert claude.inbound_setting(str(config), str(project)) == "accept"


def test_a_thread_without_a_held_lock_is_not_loaded_and_one_whose_locks_cannot_be_read_is_unknown(tmp_path):
    from postbag.codex.door import is_loaded

    thread = "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2b"
    assert is_loaded(str(tmp_path), thread) is None  # no lock folder: this is not that codex's home
    (tmp_path / "thread-writer-locks").mkdir()
    assert is_loaded(str(tmp_path), thread) is False  # a codex that keeps locks, and none for this thread
    (tmp_path / "thread-writer-locks" / f"{thread}.lock").write_text("")
    assert is_loaded(str(tmp_path), thread, locks=str(tmp_path / "no-such-proc-locks")) is None
    assert is_loaded(str(tmp_path), thread) is False
    assert is_loaded(str(tmp_path), thread, system="freebsd") is None  # no way known there: not guessed


# How codex holds a loaded thread's writer lock: an exclusive flock, for as long as it has
# the thread (the real tier sees the real one; here a process stands in for codex).
HOLDER = "import fcntl, sys; f = open(sys.argv[1], 'rb'); fcntl.{how}; print('held', flush=True); sys.stdin.read()"


def held(path, how="flock(f, fcntl.LOCK_EX)"):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER.format(how=how), str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert holder.stdout.readline() == b"held\n"
    return holder


@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="postbag runs on Linux and macOS")
def test_a_thread_whose_writer_lock_another_process_holds_is_loaded_on_this_system(tmp_path):
    """On macOS this is the check's only proof: the real codex cannot run in CI there."""
    from postbag.codex.door import is_loaded

    thread = "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2b"
    lock = tmp_path / "thread-writer-locks" / f"{thread}.lock"
    lock.parent.mkdir()
    lock.write_text("")
    holder = held(lock)
    try:
        assert is_loaded(str(tmp_path), thread) is True
        before = lock.stat()
    finally:
        holder.communicate(b"")
    assert is_loaded(str(tmp_path), thread) is False  # the lock went with its process
    assert (lock.stat().st_mtime_ns, lock.stat().st_size) == (before.st_mtime_ns, before.st_size)


def test_the_probe_asks_which_lock_would_block_and_takes_none(tmp_path):
    """macOS's F_GETLK probe, run here on Linux's layout of struct flock: Linux's F_GETLK
    sees POSIX locks only, so the holder takes one of those. While the probe asks, the
    holder's lock stays; and a probe never blocks a process that locks the file after it."""
    from postbag.codex import door as codex

    lock = tmp_path / "thread.lock"
    lock.write_text("")
    layout = {"linux": ("hhqqi4x", 0), "darwin": ("qqihh", 3)}[sys.platform]
    assert codex._blocked(str(lock), layout) is False
    holder = held(lock, "lockf(f, fcntl.LOCK_SH)")  # a read lock: F_GETLK asks about a write lock
    try:
        assert codex._blocked(str(lock), layout) is True
        assert codex._blocked(str(lock), layout) is True
    finally:
        holder.communicate(b"")
    assert codex._blocked(str(lock), layout) is False
    with open(lock, "rb") as file:
        fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)  # nothing of the probe's is left holding it
    assert codex._blocked(str(tmp_path / "gone.lock"), layout) is None


def door_now(postbag, peer):
    """What `open` says of `peer`'s door, from the line it gives it on stderr."""
    opened = postbag.run("open", "3")
    assert opened.returncode == 0, opened.stderr
    said = opened.stderr.splitlines()
    [line] = [line for line in said if line.startswith((f"postbag: {peer}", f"postbag: whether {peer}"))]
    return line.removeprefix("postbag: ")


@pytest.mark.shipped
def test_open_says_of_each_joined_door_whether_it_can_take_a_letter_now(postbag, exchange, tmp_path):
    claude, codex, _, _ = exchange
    claude.runs(tmp_path / "repo")
    assert door_now(postbag, "claude") == (
        "claude can take a letter now: its session runs, and its settings let letters from other sessions in"
    )
    claude.settings(str(tmp_path / "repo" / ".claude"), "hold")  # the project tightens the person's setting
    assert door_now(postbag, "claude") == (
        "claude will not act on a letter at once: claude's settings hold letters from other sessions for the "
        "person's review (crossSessionInbound hold): unless approved in that session, a held letter is dropped "
        "after dialogExpiry, five minutes by default"
    )
    claude.settings(claude.config, "refuse")
    assert door_now(postbag, "claude") == (
        "claude will not take a letter now: claude's settings refuse letters from other sessions "
        "(crossSessionInbound refuse): the session drops them"
    )
    os.remove(os.path.join(claude.config, "sessions", f"{os.getpid()}.json"))
    claude.runs(tmp_path / "repo", pid=2**22 + 1)  # a session file whose process is gone: it crashed
    assert door_now(postbag, "claude") == (
        "claude cannot take a letter now: its session has ended; start Claude again, and let it join"
    )

    assert door_now(postbag, "codex").startswith("whether codex can take a letter now cannot be told: ")
    lock = codex.lock_file()  # a codex that loads threads keeps their locks here
    codex.settings("never")  # as codex exec leaves a thread
    codex.daemon(0)
    assert door_now(postbag, "codex") == (
        "codex's letters will wait: no running codex has its thread loaded, and codex's daemon, which wakes it, is "
        "not running: once the human runs codex app-server daemon start, the next letter wakes the thread, with any "
        "letters waiting for it"
    )
    codex.daemon()
    assert door_now(postbag, "codex") == (
        "codex can take a letter now: no running codex has its thread loaded, and the next letter wakes it through "
        "codex's daemon, with any letters waiting for it"
    )
    with open(lock) as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert door_now(postbag, "codex") == (
            "codex can take a letter now: a running codex has its thread loaded, and it takes the letter when it is "
            "idle"
        )
    os.remove(codex.rollout)
    assert door_now(postbag, "codex") == (
        "codex cannot take a letter: codex no longer has the thread it joined with (its rollout is gone); "
        "it must join again from a live session"
    )


def test_the_mcp_status_tells_an_agent_whether_the_other_door_can_take_a_letter(postbag, exchange, codex):
    _, codex_files, _, _ = exchange
    codex_files.lock_file()
    codex_files.settings("on-request")
    server = postbag.mcp("claude")
    server.handshake()
    try:
        lines = server.tool("status")[0].splitlines()
    finally:
        server.close()
    assert lines[1] == (
        "codex's letters will wait: no running codex has its thread loaded, and postbag does not wake it: the "
        "thread asks for approvals (approval_policy on-request), and nobody could give one to a woken turn; it is "
        "taken when the thread is resumed where a person can approve (in the app or editor, or with codex resume)"
    )
    assert lines[2].startswith("your last letter, 5 to codex: ")


def test_a_letter_a_restarted_session_took_on_the_same_socket_is_taken_not_lost(postbag, exchange, tmp_path):
    """Claude Code checks no token off Windows: a session restarted on the joined socket,
    and not joined since, takes the letter into a transcript of its own."""
    claude, _, to_claude, _ = exchange
    claude.runs(tmp_path / "repo", pid=2**22 + 1)  # the session that joined: its process is gone
    ended = "letter 4 codex -> claude: not taken: claude's session has ended, and its transcript holds no sign of it"
    assert receipts(postbag, inside="codex") == [ended.replace("of it", "of the letter")]
    restarted = Claude(postbag.env["HOME"], "9e8d7c6b-5a49-4838-9726-151413121110")
    restarted.took(to_claude, at=now())
    [said] = receipts(postbag, inside="codex")
    assert said.startswith("letter 4 codex -> claude: answered by letter 5, taken at ")  # letter 5 came back
    assert said.endswith(
        "(by another claude session, which listens on the socket it went to: the session that joined has ended, "
        "and the new one has not joined)"
    )


ENDED = (
    "letter 4 codex -> claude: not taken: claude's session has ended, and its transcript holds no sign of the letter"
)


def test_another_sessions_transcript_is_a_sign_only_where_it_took_the_letter_after_it_was_sent(
    postbag, exchange, tmp_path
):
    """A transcript of another session that quotes the letter, one written before it was
    sent, and a link to nothing in the projects folder: none says another session took it."""
    claude, _, to_claude, _ = exchange
    claude.runs(tmp_path / "repo", pid=2**22 + 1)  # the session that joined has ended
    quoting = Claude(postbag.env["HOME"], "9e8d7c6b-5a49-4838-9726-151413121110")
    write_lines(quoting.transcript, [{"type": "assistant", "timestamp": now(), "message": {"content": to_claude}}])
    earlier = Claude(postbag.env["HOME"], "8d7c6b5a-4938-4726-9514-131211100908")
    earlier.took(to_claude, at=now())
    os.utime(earlier.transcript, (time.time() - 3600, time.time() - 3600))
    os.symlink(tmp_path / "nowhere", os.path.join(os.path.dirname(quoting.transcript), "gone.jsonl"))
    assert receipts(postbag, inside="codex") == [ENDED]


def test_another_sessions_transcript_that_cannot_be_read_leaves_the_receipt_unknown(postbag, exchange, tmp_path):
    claude, _, _, _ = exchange
    claude.runs(tmp_path / "repo", pid=2**22 + 1)
    os.makedirs(os.path.join(claude.config, "projects", "-elsewhere", "7c6b5a49-3847-4695-9413-121110090807.jsonl"))
    [said] = receipts(postbag, inside="codex")
    assert said.startswith(
        "letter 4 codex -> claude: unknown: claude's session has ended; whether another took the letter is unknown: "
    ), said


def test_open_says_a_claude_session_has_ended_when_only_other_sessions_have_files(postbag, exchange, tmp_path):
    claude, *_ = exchange
    Claude(postbag.env["HOME"], "9e8d7c6b-5a49-4838-9726-151413121110").runs(tmp_path / "repo")
    write_lines(os.path.join(claude.config, "sessions", "notes.txt"), ["not a session's file"])
    assert door_now(postbag, "claude") == (
        "claude cannot take a letter now: its session has ended; start Claude again, and let it join"
    )


def test_open_cannot_tell_of_a_claude_join_from_before_receipts(postbag, exchange, inbox):
    env = {k: v for k, v in inbox.session_env().items() if k != "CLAUDE_CODE_SESSION_ID"}
    postbag.ok("join", "claude", env={"CLAUDE_CODE_SESSION_ID": None, **env})
    assert door_now(postbag, "claude") == (
        "whether claude can take a letter now cannot be told: its join names no session (a join from before 1.2)"
    )


def test_a_codex_join_with_only_a_session_id_gives_unknown_and_open_says_it_cannot_tell(postbag, exchange, codex):
    postbag.ok("join", "codex", inside="codex", env={"CODEX_THREAD_ID": None, "CODEX_SESSION_ID": "a-root-session"})
    assert postbag.ok("send", "codex", "Again.", inside="claude").startswith("letter 7 delivered to codex, ")
    assert receipts(postbag, inside="claude") == [
        "letter 7 claude -> codex: unknown: codex's join names no thread id, only a session id"
    ]
    assert door_now(postbag, "codex") == (
        "whether codex can take a letter now cannot be told: its join names no thread id, only a session id"
    )


def test_a_rollout_that_only_quotes_the_letter_or_a_queue_row_that_is_not_a_letter_is_no_sign(postbag, exchange):
    _, codex, _, to_codex = exchange
    before = receipts(postbag, inside="claude")
    codex.turn({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": to_codex}]})
    codex.queued(to_codex)
    with sqlite3.connect(os.path.join(codex.home, "queue_1.sqlite")) as db:
        db.execute("UPDATE queued_items SET payload_json = ?", (json.dumps({"UserInput": None}),))
    db.close()
    assert receipts(postbag, inside="claude") == before


def test_a_thread_whose_rollout_an_older_codex_wrote_is_not_woken_and_open_says_why(postbag, exchange):
    from postbag.codex import door as codex_room

    _, codex, _, _ = exchange
    with open(codex.rollout) as file:
        first, *rest = file.readlines()
    meta = json.loads(first)
    meta["payload"]["cli_version"] = "0.160.0"
    with open(codex.rollout, "w") as file:
        file.writelines([json.dumps(meta) + "\n", *rest])
    codex.lock_file()
    codex.settings("never")
    codex.daemon()
    assert door_now(postbag, "codex") == (
        "codex's letters will wait: no running codex has its thread loaded, and the codex that wrote its rollout, "
        f"0.160.0, cannot wake a thread (codex queue --resume came in Codex {codex_room.WAKES_SINCE}): it is taken "
        "when the thread is resumed (in the app or editor, or with codex resume)"
    )
