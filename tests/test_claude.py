"""Claude Code's room: what its transcript, session files and settings say of a letter,
what Claude Code lets in from another session (its acceptance policy), what Claude
itself says of a letter it does not take, and what `open` and a send say of its door;
records written as Claude Code writes them (tests/written.py)."""

import os
import time

import pytest
from helpers import line
from written import Claude, a_session_process, now, session_pid, write_lines

SESSION = "9e8d7c6b-5a49-4838-9726-151413121110"
# What becomes of a letter a session holds on permission classes, asked in its dialog, by
# the default dialogExpiry; open says it of any letter, a receipt of one, by when it went.
WAITS = (
    "unless a person approves it in that session's dialog, it expires unanswered 300 s after it arrives "
    "(dialogExpiry 5m, the default)"
)
# What becomes of a letter a session's settings hold.
STAYS = (
    "it waits, undelivered, until the person lets letters in or the session ends "
    "(a hold its settings make does not expire)"
)


def waits(postbag, seconds=300, by="dialogExpiry 5m, the default", asked="approves it in that session's dialog"):
    """What a receipt, and a send, say becomes of the ledger's last letter, held `seconds`."""
    from postbag.times import Clock, moment

    at = Clock().stamp(moment(postbag.records()[-1]["at"]) + seconds + 2)  # the stamp's second and Claude's lag
    if asked is None:
        return f"nobody can be asked there, so it expires unanswered by {at} ({by})"
    return f"unless a person {asked}, it expires unanswered by {at} ({by})"


LETS_IN = "the person can let letters in by setting crossSessionInbound to accept in claude's settings.json"
HOLDS = "its settings hold letters from other sessions (crossSessionInbound hold)"
REFUSES = "its settings refuse letters from other sessions (crossSessionInbound refuse)"
BYPASSES = (
    "it bypasses permission prompts (its latest turn ran in permission mode bypassPermissions), and a letter from "
    "postbag claims no permission mode, which such a session holds while crossSessionInbound is unset"
)
NO_SIGN = "claude's transcript holds no sign of the letter"
# What Claude Code says, at once, to the socket a letter names, of a letter it holds.
HELD = {"status": "held", "reason": "held for the recipient user's approval"}
# What a held letter's words say rests on the session's environment, read through /proc:
# elsewhere (macOS) every hold's words add that it cannot be read there.
READS_PROC = pytest.mark.skipif(
    not os.path.exists("/proc/self/environ"), reason="reads the session's environment through /proc"
)
ENDED = (
    "letter 4 codex -> claude: not taken: claude's session has ended, and its transcript holds no sign of the letter"
)


@pytest.fixture
def running(exchange, tmp_path):
    """The exchange, with claude's session running (its file says so) in a project folder."""
    claude, *_ = exchange
    claude.runs(tmp_path / "repo")
    return exchange


@pytest.mark.parametrize(
    ("where", "inbound", "why"),
    [
        ("user", "refuse", f"claude refused it, since {REFUSES}"),
        ("project", "hold", f"claude holds it for the person's review, since {HOLDS}; {STAYS}"),
        ("user", "sometimes", f"claude holds it for the person's review, since {HOLDS}; {STAYS}"),  # unknown: holds
    ],
)
def test_a_letter_claudes_settings_keep_out_is_not_taken_with_that_reason(  # noqa: PLR0917
    postbag, running, tmp_path, where, inbound, why
):
    claude, *_ = running
    claude.settings(claude.config if where == "user" else tmp_path / "repo" / ".claude", inbound)
    assert postbag.receipts("1", inside="codex") == [f"letter 4 codex -> claude: not taken: {why}"]


@pytest.mark.parametrize("where", ["user", "project"])
def test_settings_changed_since_the_letter_was_sent_are_said_as_they_are_now_not_as_its_reason(
    postbag, running, tmp_path, where
):
    claude, *_ = running
    claude.settings(claude.config, "accept")
    claude.settings(claude.config if where == "user" else tmp_path / "repo" / ".claude", "refuse", since_sent=True)
    assert postbag.receipts("1", inside="codex") == [
        "letter 4 codex -> claude: unknown: claude's transcript holds no sign of the letter, and claude's settings "
        "now say crossSessionInbound refuse, changed since it was sent: what they said then is not recorded"
    ]


def test_a_project_may_only_tighten_the_users_setting(postbag, running, tmp_path):
    claude, *_ = running
    claude.settings(claude.config, "hold")
    claude.settings(tmp_path / "repo" / ".claude", "accept")
    assert "(crossSessionInbound hold)" in postbag.receipts(inside="codex")[0]


def test_managed_settings_overrule_the_persons_and_a_project_may_still_tighten_them(postbag, running, tmp_path):
    """An administrator's settings, read under the system's root: here a folder of the
    test's, so that the machine's own cannot change what any test finds."""
    claude, *_ = running
    claude.settings(claude.config, "refuse")
    assert "claude refused it" in postbag.receipts(inside="codex")[0]
    managed = os.path.join(postbag.root, "etc", "claude-code")
    claude.settings(managed, "accept")
    os.rename(os.path.join(managed, "settings.json"), os.path.join(managed, "managed-settings.json"))
    assert postbag.receipts(inside="codex") == [
        "letter 4 codex -> claude: unknown: claude's transcript holds no sign of the letter (yet), and its records say "
        "nothing of why"
    ]
    assert postbag.door_now("claude") == (
        "claude can take a letter now: its session runs, and its settings let letters "
        "from other sessions in (crossSessionInbound accept)"
    )
    claude.settings(tmp_path / "repo" / ".claude", "refuse")
    assert postbag.door_now("claude") == (
        f"claude will not take a letter now: it refuses each, since {REFUSES}; the person can let letters in by "
        "taking crossSessionInbound out of the project's .claude settings"
    )


def test_a_letter_to_a_session_that_has_ended_is_not_taken_and_says_so(postbag, exchange):
    claude, *_ = exchange
    claude.runs("/work/repo", pid=2**22 + 7)  # a pid no process has: the session's file outlived it
    assert postbag.receipts(inside="codex") == [ENDED]


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="only /proc tells when a process started")
def test_a_session_file_whose_process_started_at_another_time_names_a_pid_another_process_has_since(
    postbag, exchange, tmp_path
):
    claude, *_ = exchange
    with open(f"/proc/{session_pid()}/stat", "rb") as file:
        started = file.read().rpartition(b")")[2].split()[19].decode()  # field 22, counted after the name
    claude.settings(claude.config, "accept")
    claude.runs(tmp_path / "repo", procStart=str(int(started) + 1))
    assert postbag.door_now("claude") == (
        "claude cannot take a letter now: its session has ended; start Claude again, and let it join"
    )
    claude.runs(tmp_path / "repo", procStart=started)
    assert postbag.door_now("claude") == (
        "claude can take a letter now: its session runs, and its settings let letters "
        "from other sessions in (crossSessionInbound accept)"
    )
    claude.runs(tmp_path / "repo", procStart="in a form postbag does not know")
    assert postbag.door_now("claude") == (
        "claude can take a letter now: its session runs, and its settings let letters "
        "from other sessions in (crossSessionInbound accept)"
    )


def test_a_session_resumed_in_a_new_process_runs_though_its_old_process_left_a_file(postbag, exchange, tmp_path):
    claude, *_ = exchange
    for crashed in range(8):  # processes that crashed, their files left behind, listed in any order
        claude.runs("/work/repo", pid=2**22 + crashed)
    claude.runs(tmp_path / "repo")  # the same session, resumed
    claude.settings(claude.config, "accept")
    assert postbag.door_now("claude") == (
        "claude can take a letter now: its session runs, and its settings let letters "
        "from other sessions in (crossSessionInbound accept)"
    )


def test_without_any_sign_or_reason_the_receipt_says_unknown_not_a_guess(postbag, running):
    # running, prompting (its process was started with no permission mode), and nothing in the transcript yet
    assert postbag.receipts(inside="codex") == [
        "letter 4 codex -> claude: unknown: claude's transcript holds no sign of the letter (yet), and its records say "
        "nothing of why"
    ]


def test_a_torn_or_foreign_transcript_gives_unknown_or_the_truth_never_a_traceback(postbag, running):
    claude, _, to_claude, _ = running
    write_lines(claude.transcript, ["{not json", '{"type": "queue-operation", "operation": "enqueue"', "\x00\xff"])
    write_lines(claude.transcript, ["[1, 2]", '"just a string"', '{"type": "user", "permissionMode": ["x"]}'])
    assert postbag.receipts(inside="codex")[0].startswith("letter 4 codex -> claude: unknown: ")
    claude.took(to_claude)
    write_lines(claude.transcript, ['{"type": "assistant", "message": {"content": "half a rec'])
    assert postbag.receipts(inside="codex")[0].startswith("letter 4 codex -> claude: answered by letter 5, taken at ")


def test_a_claude_join_from_before_receipts_names_no_session_and_gives_unknown(postbag, exchange, inbox):
    env = {k: v for k, v in inbox.session_env().items() if k != "CLAUDE_CODE_SESSION_ID"}
    postbag.ok("join", "claude", env={"CLAUDE_CODE_SESSION_ID": None, **env})
    postbag.ok("send", "claude", "again", inside="codex")
    assert postbag.receipts(inside="codex") == [
        "letter 7 codex -> claude: unknown: claude's join names no session to look in (a join from before postbag 1.2)"
    ]
    assert postbag.door_now("claude") == (
        "whether claude can take a letter now cannot be told: its join names no session "
        "(a join from before postbag 1.2)"
    )


def test_a_send_says_at_once_what_claudes_settings_do_with_the_letter(postbag, exchange):
    """Without a session file that says it runs, there is no word of Claude's to wait for:
    the settings alone are said."""
    claude, *_ = exchange
    claude.settings(claude.config, "refuse")
    assert postbag.ok("send", "claude", "into the void", inside="codex") == (
        f"letter 6 delivered to claude, 9 left; but claude refuses it, since {REFUSES}\n"
    )


@pytest.mark.shipped
def test_open_says_of_claudes_door_whether_it_can_take_a_letter_now(postbag, running, tmp_path):
    claude, *_ = running
    claude.turn("default")
    assert postbag.door_now("claude") == (
        "claude can take a letter now: its session runs, and it prompts for permissions (its latest turn ran in "
        "permission mode default), so letters get in while crossSessionInbound is unset"
    )
    claude.settings(str(tmp_path / "repo" / ".claude"), "hold")  # the project tightens the person's setting
    assert postbag.door_now("claude") == (
        f"claude will not act on a letter at once: it holds each for the person's review, since {HOLDS}; {STAYS}; "
        "the person can let letters in by taking crossSessionInbound out of the project's .claude settings"
    )
    claude.settings(claude.config, "refuse")
    assert postbag.door_now("claude") == (
        f"claude will not take a letter now: it refuses each, since {REFUSES}; {LETS_IN}"
    )
    os.remove(os.path.join(claude.config, "sessions", f"{session_pid()}.json"))
    claude.runs(tmp_path / "repo", pid=2**22 + 1)  # a session file whose process is gone: it crashed
    assert postbag.door_now("claude") == (
        "claude cannot take a letter now: its session has ended; start Claude again, and let it join"
    )


# What Claude Code lets in while crossSessionInbound is unset: the permission classes


@READS_PROC
@pytest.mark.shipped
def test_a_session_that_bypasses_prompts_holds_postbags_letter_and_every_word_says_so(postbag, running, inbox):
    """Claude Code holds a letter whose sender claims no permission mode in a session that
    bypasses prompts; it says so at once to the socket the letter names, and the send
    hears it. Nothing says the session can take a letter."""
    claude, *_ = running
    claude.turn("bypassPermissions")
    assert postbag.door_now("claude") == (
        f"claude will not act on a letter at once: it holds each for the person's review, since {BYPASSES}; "
        f"{WAITS}; {LETS_IN}"
    )
    inbox.says = HELD
    sent = postbag.ok("send", "claude", "Are you there?", inside="codex")  # open granted 3 letters again
    held = f"claude holds it for the person's review, since {BYPASSES}; {waits(postbag)}"
    assert sent == f"letter 7 delivered to claude, 2 left; but {held}\n"
    letter = postbag.records()[-1]
    assert letter["recipient_said"] == "held"  # Claude's own word, kept with the letter
    _, frame = inbox.wait_for(2)[-1]
    assert frame["from"].startswith("uds:") and not os.path.exists(frame["from"][4:])  # heard, and gone
    assert postbag.receipts(inside="codex") == [f"letter 7 codex -> claude: not taken: {held}"]
    claude.settings(claude.config, "accept", since_sent=True)  # the person lets letters in
    assert postbag.door_now("claude") == (
        "claude can take a letter now: its session runs, and its settings let letters from other sessions in "
        "(crossSessionInbound accept)"
    )
    # Claude's word is the receipt's first source: the settings changed since, but it said it held it.
    assert postbag.receipts(inside="codex")[0].startswith("letter 7 codex -> claude: not taken: claude holds it ")


def test_claudes_own_word_that_it_refused_or_dropped_a_letter_is_said_and_kept(postbag, running, inbox):
    claude, *_ = running
    claude.turn("bypassPermissions")
    inbox.says = {"status": "expired", "status_detail": "refused"}  # how Claude Code says it refused one
    assert postbag.ok("send", "claude", "one", inside="codex").endswith("; but claude refused it\n")
    inbox.says = {"status": "dropped", "drop_reason": "rate-limited"}
    assert postbag.ok("send", "claude", "two", inside="codex").endswith(
        "; but claude dropped it at its inbox (its limit of letters from one sender at a time): it will not reach "
        "the session\n"
    )
    assert postbag.receipts("2", inside="codex") == [
        "letter 6 codex -> claude: not taken: claude refused it",
        "letter 7 codex -> claude: not taken: claude dropped it at its inbox: it never reached the session",
    ]


@READS_PROC
def test_claudes_word_is_heard_among_lines_a_newer_claude_writes_and_whatever_its_texts_say(postbag, running, inbox):
    """Claude Code 2.1.333 on writes keep_alive lines, and words its hold texts anew: the
    word is the frame's status, which the send hears among them, and says in postbag's words."""
    claude, *_ = running
    claude.turn("bypassPermissions")
    inbox.says = [
        {"type": "keep_alive"},
        {
            "type": "control",
            "action": "peer_message_status",
            "status": "held",
            "text": "This session bypasses permission prompts and the sender did not state its permission mode, so "
            "Claude hasn't seen it.",
        },
        {"type": "keep_alive"},
    ]
    sent = postbag.ok("send", "claude", "Are you there?", inside="codex")
    held = f"claude holds it for the person's review, since {BYPASSES}; {waits(postbag)}"
    assert sent == f"letter 6 delivered to claude, 9 left; but {held}\n"
    assert postbag.records()[-1]["recipient_said"] == "held"  # heard, not only foretold


@READS_PROC
@pytest.mark.parametrize("says", [None, {"status": "delivered"}, {"status": "queued-for-later"}])
def test_where_claude_says_no_word_postbag_knows_the_send_says_what_its_records_foretell(
    postbag, running, inbox, says, monkeypatch
):
    """Claude's silence within the wait, a status that is not a refusal, a hold or a drop,
    and one postbag does not know are no word: the records' foretelling is said, as such."""
    from postbag.claude import delivery

    # A twentieth of a second with no word; a word the fake says at once, in the wait a send
    # gives it, with time to come on a loaded machine.
    if says is None:
        monkeypatch.setattr(delivery, "HEARING", dict.fromkeys(delivery.HEARING, 0.05))
    claude, *_ = running
    claude.turn("bypassPermissions")
    inbox.says = says
    sent = postbag.ok("send", "claude", "Are you there?", inside="codex")
    held = f"claude holds it for the person's review, since {BYPASSES}; {waits(postbag)}"
    assert sent == f"letter 6 delivered to claude, 9 left; but {held}\n"
    assert "recipient_said" not in postbag.records()[-1]
    assert inbox.heard_by_sender == (0 if says is None else 1)  # the word was said while the send listened


def test_a_session_whose_latest_turn_prompts_takes_the_letter_and_nothing_waits_for_its_word(postbag, running, inbox):
    claude, *_ = running
    claude.turn("bypassPermissions", at="2026-12-01T00:00:00.000Z")
    claude.turn("acceptEdits")  # the person changed mode since: the latest turn decides
    assert postbag.ok("send", "claude", "hello", inside="codex") == "letter 6 delivered to claude, 9 left\n"
    _, frame = inbox.wait_for(2)[-1]
    assert frame["message"]["content"].endswith("hello") and "from" not in frame  # no socket named: nothing to hear


@READS_PROC
@pytest.mark.parametrize("app", [None, "claude-desktop"], ids=["where it asks", "in the desktop app"])
def test_a_held_letter_nobody_approved_within_dialogexpiry_is_said_to_have_expired_and_when(
    postbag, inbox, codex, tmp_path, app
):
    """The ledger says when the letter went; an hour on, a hold of 60 s has long expired,
    and the receipt says when, never that it waits."""
    claude = Claude(postbag.env["HOME"], inbox.session)
    claude.runs(tmp_path / "repo", **({"entrypoint": app} if app else {}))
    claude.settings(claude.config, dialogExpiry="60s")
    claude.turn("bypassPermissions", at="2026-12-01T00:00:00.000Z")
    sent = _a_letter_sent_an_hour_ago(postbag, inbox, codex)
    expired = _stamp(sent + 62)
    assert postbag.receipts(inside="codex") == [
        f"letter 4 codex -> claude: not taken: claude held it for the person's review, since {BYPASSES}, and nobody "
        f"let it in within dialogExpiry 60s: it expired unanswered by {expired}"
    ]


@pytest.mark.skipif(not os.path.exists("/proc/self/cmdline"), reason="reads a process's flags from /proc")
@pytest.mark.parametrize(
    ("flags", "settings", "said"),
    [
        (["--dangerously-skip-permissions"], {}, "will not act"),
        (["--permission-mode", "bypassPermissions"], {}, "will not act"),
        (["--permission-mode=plan", "--allow-dangerously-skip-permissions"], {}, "will not act"),
        (["--permission-mode", "plan"], {}, "can take"),
        ([], {"permissions": {"defaultMode": "bypassPermissions"}}, "will not act"),
        ([], {}, "can take"),
        (["--dangerously-skip-permissions", "--permission-mode", "default"], {}, "cannot be told"),
    ],
)
def test_before_its_first_turn_a_sessions_class_is_read_from_the_flags_it_started_with(  # noqa: PLR0917
    postbag, exchange, tmp_path, flags, settings, said
):
    claude, *_ = exchange
    with a_session_process(*flags) as pid:
        claude.runs(tmp_path / "repo", pid=pid)
        if settings:
            claude.settings(claude.config, **settings)
        line = postbag.door_now("claude")
    assert said in line, line


def test_where_the_flags_cannot_be_read_whether_claude_takes_a_letter_cannot_be_told(postbag, running, monkeypatch):
    """As on macOS, which has no /proc: before the session's first turn, nothing says its class."""
    from postbag.claude import modes

    monkeypatch.setattr(modes, "_flags", lambda pid: None)
    assert postbag.door_now("claude") == (
        "whether claude can take a letter now cannot be told: while crossSessionInbound is unset it holds letters "
        "if it bypasses permission prompts, and whether it does is not known: its transcript records no turn yet, "
        f"and how its process was started cannot be read here; {LETS_IN}"
    )


def test_a_transcript_that_cannot_be_read_back_to_the_latest_turn_leaves_the_class_untold(postbag, running):
    """Its latest turn may lie where postbag could not read: the flags the session started
    with would then be a guess, for a person may have changed the mode since."""
    claude, *_ = running
    os.makedirs(claude.transcript)  # a folder where the transcript should be
    assert postbag.door_now("claude") == (
        "whether claude can take a letter now cannot be told: while crossSessionInbound is unset it holds letters "
        "if it bypasses permission prompts, and whether it does is not known: the mode of its latest turn cannot "
        f"be read: cannot read claude's transcript (it is not a regular file); {LETS_IN}"
    )


# Other sessions, restarted on the same socket


def test_a_letter_a_restarted_session_took_on_the_same_socket_is_taken_not_lost(postbag, exchange, tmp_path):
    """Claude Code checks no token off Windows: a session restarted on the joined socket,
    and not joined since, takes the letter into a transcript of its own."""
    claude, _, to_claude, _ = exchange
    claude.runs(tmp_path / "repo", pid=2**22 + 1)  # the session that joined: its process is gone
    assert postbag.receipts(inside="codex") == [ENDED]
    restarted = Claude(postbag.env["HOME"], SESSION)
    restarted.took(to_claude, at=now())
    [said] = postbag.receipts(inside="codex")
    assert said.startswith("letter 4 codex -> claude: answered by letter 5, taken at ")  # letter 5 came back
    assert said.endswith(
        "(by another claude session, which listens on the socket it went to: the session that joined has ended, "
        "and the new one has not joined)"
    )


def test_another_sessions_transcript_is_a_sign_only_where_it_took_the_letter_after_it_was_sent(
    postbag, exchange, tmp_path
):
    """A transcript of another session that quotes the letter, one written before it was
    sent, and a link to nothing in the projects folder: none says another session took it."""
    claude, _, to_claude, _ = exchange
    claude.runs(tmp_path / "repo", pid=2**22 + 1)  # the session that joined has ended
    quoting = Claude(postbag.env["HOME"], SESSION)
    write_lines(quoting.transcript, [{"type": "assistant", "timestamp": now(), "message": {"content": to_claude}}])
    earlier = Claude(postbag.env["HOME"], "8d7c6b5a-4938-4726-9514-131211100908")
    earlier.took(to_claude, at=now())
    os.utime(earlier.transcript, (time.time() - 3600, time.time() - 3600))
    os.symlink(tmp_path / "nowhere", os.path.join(os.path.dirname(quoting.transcript), "gone.jsonl"))
    assert postbag.receipts(inside="codex") == [ENDED]


def test_another_sessions_transcript_that_cannot_be_read_leaves_the_receipt_unknown(postbag, exchange, tmp_path):
    claude, _, _, _ = exchange
    claude.runs(tmp_path / "repo", pid=2**22 + 1)
    os.makedirs(os.path.join(claude.config, "projects", "-elsewhere", "7c6b5a49-3847-4695-9413-121110090807.jsonl"))
    [said] = postbag.receipts(inside="codex")
    assert said == (
        "letter 4 codex -> claude: unknown: claude's session has ended; whether another took the letter is unknown: "
        "cannot read another claude transcript (it is not a regular file)"
    )


def test_a_letter_to_a_restarted_socket_is_unknown_until_the_new_sessions_transcript_shows_it_taken(
    postbag, exchange, inbox, tmp_path
):
    """Claude Code writes a session's transcript a moment after it takes a letter (0.1 to
    0.3 s on 2.1.332 and 2.1.336, measured): until then, of a letter to the socket of a
    session that ended, on which another now listens, nothing is known, and nothing says
    it was lost. The new session can take the next, and `open` says so."""
    claude, _, to_claude, _ = exchange
    claude.runs(tmp_path / "repo", pid=2**22 + 1)  # the session that joined: its process is gone
    restarted = Claude(postbag.env["HOME"], SESSION)
    restarted.runs(tmp_path / "repo", messagingSocketPath=inbox.path)  # bound on the same socket since
    restarted.turn("default")
    assert postbag.receipts(inside="codex") == [
        f"letter 4 codex -> claude: unknown: {NO_SIGN} yet: the session that joined has ended, and another claude "
        "session, which has not joined, listens on its socket"
    ]
    assert postbag.door_now("claude") == (
        "claude can take a letter now: its session runs, and it prompts for permissions (its latest turn ran in "
        "permission mode default), so letters get in while crossSessionInbound is unset (the session that joined "
        "has ended, and another claude session, which has not joined, listens on its socket: let it join, so that "
        "the ledger names it)"
    )
    restarted.took(to_claude, at=now())
    assert postbag.receipts(inside="codex")[0].endswith(
        "(by another claude session, which listens on the socket it went to: the session that joined has ended, "
        "and the new one has not joined)"
    )


# After /clear: the same process and socket, under another session id


def test_after_clear_a_letter_the_session_took_in_its_new_transcript_is_taken_by_the_session_that_joined(
    postbag, inbox, tmp_path
):
    """As Claude Code 2.1.336 does at /clear (seen on the real client): the session keeps
    its process and socket, begins a transcript under a new session id, and its session file
    names the new id. The join recorded the process, so receipts know the session, read
    where it now writes, and never call a letter it took not taken, nor its taker another."""
    home, cleared = postbag.env["HOME"], "0f1e2d3c-4b5a-4697-8877-665544332211"
    Claude(home, inbox.session).runs(tmp_path / "repo", messagingSocketPath=inbox.path)
    postbag.ready()
    Claude(home, cleared).runs(tmp_path / "repo", messagingSocketPath=inbox.path)  # /clear: the file names the new id
    new = Claude(home, cleared)
    new.turn("default")
    postbag.ok("send", "claude", "Review it.", inside="codex")
    [envelope] = inbox.envelopes(1)
    [said] = postbag.receipts(inside="codex")
    assert said == f"letter 4 codex -> claude: unknown: {NO_SIGN} (yet), and its records say nothing of why"
    new.took(envelope, at=now())
    [said] = postbag.receipts(inside="codex")
    assert said.startswith("letter 4 codex -> claude: taken at ")
    assert said.endswith(
        "(by the session that joined, in the transcript it began since under another session id, as /clear and /branch "
        "begin one)"
    )
    assert postbag.door_now("claude") == (
        "claude can take a letter now: its session runs, and it prompts for permissions (its latest turn ran in "
        "permission mode default), so letters get in while crossSessionInbound is unset"
    )


# What a person can do with a held letter, by the app the session runs in and its version
# What becomes of a letter held on permission classes, by the app and version the session's
# file names: where a person approves it, or nobody can be asked; and whether it expires
# by the default dialogExpiry (300 s) or waits until answered (from 2.1.336 where a person
# can be asked), as open says it of any letter.
ANSWERED = "it waits until a person answers it in that session's dialog (no dialogExpiry is set)"
HELD_IN = {
    "a terminal": ("cli", "2.1.332", "approves it in that session's dialog", 300),
    "a terminal, from 2.1.336": ("cli", "2.1.336", "approves it in that session's dialog", None),
    "VS Code": ("claude-vscode", "2.1.332", "approves it in that session's dialog", 300),
    "VS Code, from 2.1.333": (
        "claude-vscode",
        "2.1.333",
        "approves it with the Deliver button VS Code shows beside it",
        300,
    ),
    "the desktop app": ("claude-desktop", "2.1.336", None, 300),
    "no screen": ("sdk-cli", "2.1.337", None, 300),
    "an app its file does not name": (None, "2.1.332", "approves it in that session's dialog", 300),
}


@READS_PROC
@pytest.mark.parametrize("where", HELD_IN, ids=list(HELD_IN))
def test_what_a_person_can_do_with_a_held_letter_is_said_for_the_app_the_session_runs_in(
    postbag, exchange, inbox, tmp_path, where
):
    claude, *_ = exchange
    inbox.says = HELD  # as Claude Code says at once of a letter it holds
    app, version, asked, seconds = HELD_IN[where]
    claude.runs(tmp_path / "repo", **({"entrypoint": app} if app else {}), version=version)
    claude.turn("bypassPermissions")
    expiry = "it expires unanswered 300 s after it arrives (dialogExpiry 5m, the default)"
    if seconds is None:
        foretold = ANSWERED
    elif asked is None:
        foretold = f"nobody can be asked there, so {expiry}"
    else:
        foretold = f"unless a person {asked}, {expiry}"
    opened = f"claude will not act on a letter at once: it holds each for the person's review, since {BYPASSES}"
    assert postbag.door_now("claude") == f"{opened}; {foretold}; {LETS_IN}"  # and grants letter 7 on
    sent = postbag.ok("send", "claude", "Are you there?", inside="codex")
    fate = ANSWERED if seconds is None else waits(postbag, asked=asked)
    held = f"claude holds it for the person's review, since {BYPASSES}; {fate}"
    assert sent == f"letter 7 delivered to claude, 2 left; but {held}\n"
    assert postbag.receipts(inside="codex") == [f"letter 7 codex -> claude: not taken: {held}"]


def test_open_says_a_claude_session_has_ended_when_only_other_sessions_have_files(postbag, exchange, tmp_path):
    claude, *_ = exchange
    Claude(postbag.env["HOME"], SESSION).runs(tmp_path / "repo")
    write_lines(os.path.join(claude.config, "sessions", "notes.txt"), ["not a session's file"])
    assert postbag.door_now("claude") == (
        "claude cannot take a letter now: its session has ended; start Claude again, and let it join"
    )


def test_a_process_keeps_its_knocks_to_the_rate_claude_takes_a_senders_letters_at(monkeypatch):
    """About 25 at once, then a little under one every two seconds: Claude Code drops what
    comes faster from one sender, and the MCP server is one (docs/doors.md)."""
    from postbag.claude import inbox

    clock, slept = [1000.0], []

    def sleep(seconds):
        slept.append(round(seconds, 3))
        clock[0] += seconds

    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(time, "sleep", sleep)
    pace = inbox.Throttle()
    for _ in range(inbox.BURST - inbox.HEADROOM):  # a few under Claude's burst: its clock may start late
        pace.wait()
    assert slept == []
    pace.wait()
    assert slept == [round(1 / inbox.KEPT_TO, 3)]
    clock[0] += 5.5 / inbox.KEPT_TO  # five and a half letters' worth of time, spent elsewhere
    for _ in range(5):
        pace.wait()
    assert len(slept) == 1
    pace.wait()
    assert len(slept) == 2


def test_settings_nested_deeper_than_jsons_recursion_still_say_what_claude_lets_in(postbag, inbox):
    """Claude Code reads a settings file at any depth: its crossSessionInbound counts there
    too, where json's own scanner gives up."""
    claude = Claude(postbag.env["HOME"], inbox.session)
    claude.runs(postbag.cwd)
    claude.turn("default")
    deep = "[" * 20000 + "1" + "]" * 20000
    path = os.path.join(postbag.env["HOME"], ".claude", "settings.json")
    with open(path, "w") as file:
        file.write(f'{{"deep": {deep}, "n": {"9" * 5000}, "crossSessionInbound": "refuse"}}')
    postbag.ok("join", "claude", inside="claude")
    refuses = "claude will not take a letter now: it refuses each, since its settings"
    assert postbag.door_now("claude").startswith(refuses)


@pytest.mark.skipif(not os.path.exists("/proc/self/environ"), reason="reads a process's environment from /proc")
@pytest.mark.parametrize(
    ("value", "state", "said"),
    [
        (
            "3000",
            "not taken",
            "claude held it for the person's review, since {why}, and nobody let it in within "
            "CLAUDE_CODE_USER_DIALOG_TIMEOUT_MS 3000 in its environment: it expired unanswered by {at}",
        ),
        (
            "soon",
            "unknown",
            "claude held it for the person's review, since {why}; nobody let it in within "
            "dialogExpiry 5m, the default: it expired unanswered by {at}; where CLAUDE_CODE_USER_DIALOG_TIMEOUT_MS in "
            "the session's environment sets another time, that one holds: its environment sets "
            "CLAUDE_CODE_USER_DIALOG_TIMEOUT_MS to what postbag does not know",
        ),
    ],
    ids=["a time it sets", "a value not known here"],
)
def test_the_sessions_own_timeout_decides_when_a_held_letter_expires_or_the_receipt_says_it_cannot_tell(  # noqa: PLR0917
    postbag, inbox, codex, tmp_path, value, state, said
):
    """CLAUDE_CODE_USER_DIALOG_TIMEOUT_MS in the session's environment wins over dialogExpiry:
    read from its process, where it is a number; else the receipt says what cannot be told."""
    with a_session_process(env={"CLAUDE_CODE_USER_DIALOG_TIMEOUT_MS": value}) as pid:
        claude = Claude(postbag.env["HOME"], inbox.session)
        claude.runs(tmp_path / "repo", pid=pid, entrypoint="sdk-cli", version="2.1.337")
        claude.turn("bypassPermissions", at="2026-12-01T00:00:00.000Z")
        sent = _a_letter_sent_an_hour_ago(postbag, inbox, codex)
        at = _stamp(sent + (3 if value == "3000" else 300) + 2)
        assert postbag.receipts(inside="codex") == [
            f"letter 4 codex -> claude: {state}: {said.format(why=BYPASSES, at=at)}"
        ]


def _a_letter_sent_an_hour_ago(postbag, inbox, codex):
    """A ledger whose letter 4, codex to claude, went an hour ago; the moment it went."""
    an_hour_ago = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time() - 3600))
    postbag.write_ledger(
        line(n=1, at=an_hour_ago, kind="join", peer="claude", **inbox.door())
        + line(n=2, at=an_hour_ago, kind="join", peer="codex", thread=codex.thread)
        + line(n=3, at=an_hour_ago, kind="open", limit=3)
        + line(**{"n": 4, "at": an_hour_ago, "kind": "letter", "from": "codex", "to": "claude", "body": "hi"})
    )
    from postbag.times import moment

    return moment(an_hour_ago)


def _stamp(moment):
    from postbag.times import Clock

    return Clock().stamp(moment)
