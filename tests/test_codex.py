"""Codex's room: what its queue and a thread's rollout say of a letter, whether a running
Codex has the thread loaded, and what `open` and a send say of its door, from records
written as Codex writes them (tests/written.py). Waking a thread is test_wake.py's."""

import fcntl
import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

THREAD = "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2b"
# Codex's words, checked by their template in the room's wording and the facts each is
# given, not word by word.
GONE = "codex no longer has the thread it went to (its rollout is gone), so nothing will take it"


def test_a_letter_in_codexs_queue_is_waiting_and_says_whether_a_running_codex_will_take_it(postbag, exchange):
    _, codex, _, to_codex = exchange
    codex.queued(to_codex)
    assert postbag.receipts(inside="claude") == [
        "letter 5 claude -> codex: waiting: in codex's queue for the thread; whether "
        "a running codex has it loaded cannot be told here"
    ]
    lock = codex.lock_file()  # the thread was loaded once: its lock file stays
    codex.settings("on-request")
    said = postbag.receipts(inside="claude")[0]
    assert said.endswith(
        "in codex's queue for the thread, which no running codex has loaded: postbag does not wake it: the thread "
        "asks for approvals (approval_policy on-request), and nobody could give one to a woken turn; it is taken "
        "when the thread is resumed where a person can approve (in the app or editor, or with codex resume)"
    )
    with open(lock) as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as the codex that has the thread loaded holds it
        assert postbag.receipts(inside="claude")[0].endswith(
            "in codex's queue for the thread, which a running codex has loaded: it takes the letter when it is idle"
        )


def test_a_letter_to_a_thread_codex_no_longer_has_is_not_taken_and_the_send_says_so(postbag, exchange):
    _, codex, _, _ = exchange
    os.remove(codex.rollout)
    assert postbag.receipts(inside="claude") == [f"letter 5 claude -> codex: not taken: {GONE}"]
    sent = postbag.ok("send", "codex", "Anyone?", inside="claude")
    assert sent == f"letter 6 delivered to codex, 9 left; but {GONE}\n"
    shutil.rmtree(os.path.join(codex.home, "sessions"))  # no sessions at all: nothing can be told
    assert postbag.ok("send", "codex", "Still?", inside="claude") == "letter 7 delivered to codex, 8 left\n"
    assert postbag.receipts(inside="claude") == [
        "letter 7 claude -> codex: unknown: codex keeps no sessions here to read (CODEX_HOME)"
    ]


def test_a_locked_or_foreign_queue_database_gives_unknown(postbag, exchange):
    _, codex, _, to_codex = exchange
    codex.queued(to_codex)
    holder = sqlite3.connect(os.path.join(codex.home, "queue_1.sqlite"), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process writing, longer than postbag waits
    try:
        said = postbag.receipts(inside="claude")[0]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert said == "letter 5 claude -> codex: unknown: cannot read codex's queue (database is locked)"
    with open(os.path.join(codex.home, "queue_1.sqlite"), "wb") as foreign:
        foreign.write(b"not a database at all" * 100)
    assert postbag.receipts(inside="claude")[0] == (
        "letter 5 claude -> codex: unknown: codex's queue is not a database postbag knows (DatabaseError)"
    )


def test_reading_the_queue_writes_nothing_in_codexs_home(postbag, exchange):
    _, codex, _, to_codex = exchange
    codex.queued(to_codex)
    before = {name: os.stat(os.path.join(codex.home, name)).st_mtime_ns for name in os.listdir(codex.home)}
    postbag.receipts(inside="claude")
    after = {name: os.stat(os.path.join(codex.home, name)).st_mtime_ns for name in os.listdir(codex.home)}
    assert after == before


def test_a_send_says_at_once_that_a_thread_nobody_has_loaded_will_not_be_woken_and_why(postbag, exchange):
    _, codex, _, _ = exchange
    codex.lock_file()  # loaded once, by nobody now
    codex.settings("on-request")
    waits = (
        "but it waits in codex's queue: no running codex has the thread loaded, and postbag does not wake it: the "
        "thread asks for approvals (approval_policy on-request), and nobody could give one to a woken turn; it is "
        "taken when the thread is resumed where a person can approve (in the app or editor, or with codex resume)"
    )
    assert postbag.ok("send", "codex", "to a thread nobody has loaded", inside="claude") == (
        f"letter 6 delivered to codex, 9 left; {waits}\n"
    )


@pytest.mark.shipped
def test_open_says_of_codexs_door_whether_it_can_take_a_letter_now(postbag, exchange):
    _, codex, _, _ = exchange
    assert postbag.door_now("codex").startswith("whether codex can take a letter now cannot be told: ")
    lock = codex.lock_file()  # a codex that loads threads keeps their locks here
    codex.settings("never")  # as codex exec leaves a thread
    codex.daemon(0)
    assert postbag.door_now("codex") == (
        "codex's letters will wait: no running codex has its thread loaded, and codex's daemon, which wakes it, is "
        "not running: once the human runs codex app-server daemon start, the next letter wakes the thread, with any "
        "letters waiting for it"
    )
    codex.daemon()
    assert postbag.door_now("codex") == (
        "codex can take a letter now: no running codex has its thread loaded, and the next letter wakes it through "
        "codex's daemon, with any letters waiting for it"
    )
    with open(lock) as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert postbag.door_now("codex") == (
            "codex can take a letter now: a running codex has its thread loaded, and it takes the letter when it is "
            "idle"
        )
    os.remove(codex.rollout)
    assert postbag.door_now("codex") == (
        "codex cannot take a letter: codex no longer has the thread it joined with (its rollout is gone); "
        "it must join again from a live session"
    )


def test_a_codex_join_with_only_a_session_id_gives_unknown_and_open_says_it_cannot_tell(postbag, exchange, codex):
    postbag.ok("join", "codex", inside="codex", env={"CODEX_THREAD_ID": None, "CODEX_SESSION_ID": "a-root-session"})
    assert postbag.ok("send", "codex", "Again.", inside="claude").startswith("letter 7 delivered to codex, ")
    assert postbag.receipts(inside="claude") == [
        "letter 7 claude -> codex: unknown: codex's join names no thread id, only a session id"
    ]
    assert postbag.door_now("codex") == (
        "whether codex can take a letter now cannot be told: its join names no thread id, only a session id"
    )


def test_a_rollout_that_only_quotes_the_letter_or_a_queue_row_that_is_not_a_letter_is_no_sign(postbag, exchange):
    _, codex, _, to_codex = exchange
    before = postbag.receipts(inside="claude")
    codex.turn({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": to_codex}]})
    codex.queued(to_codex)
    with sqlite3.connect(os.path.join(codex.home, "queue_1.sqlite")) as db:
        db.execute("UPDATE queued_items SET payload_json = ?", (json.dumps({"UserInput": None}),))
    db.close()
    assert postbag.receipts(inside="claude") == before


def test_a_thread_whose_rollout_an_older_codex_wrote_is_not_woken_and_open_says_why(postbag, exchange):
    from postbag.codex.wake import WAKES_SINCE

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
    old_writer = (
        "the codex that wrote its rollout, 0.160.0, cannot wake a thread (codex queue "
        f"--resume came in Codex {WAKES_SINCE}): it is taken when the thread is resumed "
        "(in the app or editor, or with codex resume)"
    )
    assert (
        postbag.door_now("codex")
        == f"codex's letters will wait: no running codex has its thread loaded, and {old_writer}"
    )


# Whether a running codex has the thread loaded, in-process


def test_a_thread_without_a_held_lock_is_not_loaded_and_one_whose_locks_cannot_be_read_cannot_be_told(tmp_path):
    from postbag.codex.loaded import NOT_LOADED, is_loaded
    from postbag.room import CANNOT_TELL

    home, system = str(tmp_path), sys.platform
    assert is_loaded(home, THREAD, system) == CANNOT_TELL  # no lock folder: this is not that codex's home
    (tmp_path / "thread-writer-locks").mkdir()
    assert is_loaded(home, THREAD, system) == NOT_LOADED  # a codex that keeps locks, and none for this thread
    (tmp_path / "thread-writer-locks" / f"{THREAD}.lock").write_text("")
    assert is_loaded(home, THREAD, system, locks=str(tmp_path / "no-such-proc-locks")) == CANNOT_TELL
    assert is_loaded(home, THREAD, system) == NOT_LOADED
    assert is_loaded(home, THREAD, "freebsd") == CANNOT_TELL  # no way known there: not guessed


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
    from postbag.codex.loaded import LOADED, NOT_LOADED, is_loaded

    lock = tmp_path / "thread-writer-locks" / f"{THREAD}.lock"
    lock.parent.mkdir()
    lock.write_text("")
    holder = held(lock)
    try:
        assert is_loaded(str(tmp_path), THREAD, sys.platform) == LOADED
        before = lock.stat()
    finally:
        holder.communicate(b"")
    assert is_loaded(str(tmp_path), THREAD, sys.platform) == NOT_LOADED  # the lock went with its process
    assert (lock.stat().st_mtime_ns, lock.stat().st_size) == (before.st_mtime_ns, before.st_size)


def test_the_probe_asks_which_lock_would_block_and_takes_none(tmp_path):
    """macOS's F_GETLK probe, run here on Linux's layout of struct flock: Linux's F_GETLK
    sees POSIX locks only, so the holder takes one of those. While the probe asks, the
    holder's lock stays; and a probe never blocks a process that locks the file after it."""
    from postbag.codex.loaded import CANNOT_TELL, LOADED, NOT_LOADED, _blocked

    lock = tmp_path / "thread.lock"
    lock.write_text("")
    layout = {"linux": ("hhqqi4x", 0), "darwin": ("qqihh", 3)}[sys.platform]
    assert _blocked(str(lock), layout) == NOT_LOADED
    holder = held(lock, "lockf(f, fcntl.LOCK_SH)")  # a read lock: F_GETLK asks about a write lock
    try:
        assert _blocked(str(lock), layout) == LOADED
        assert _blocked(str(lock), layout) == LOADED
    finally:
        holder.communicate(b"")
    assert _blocked(str(lock), layout) == NOT_LOADED
    with open(lock, "rb") as file:
        fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)  # nothing of the probe's is left holding it
    assert _blocked(str(tmp_path / "gone.lock"), layout) == CANNOT_TELL
    os.mkfifo(tmp_path / "pipe.lock")  # a lock file that is no file: opened without waiting, and not asked
    assert _blocked(str(tmp_path / "pipe.lock"), layout) == CANNOT_TELL


# A thread codex exec made and runs, on Codex 0.171.0 (openai/codex#41060, open).
EXEC_RUNS = (
    "codex exec runs its turn, and Codex takes no letter into such a turn: when it ends, Codex begins a turn for the "
    "first letter queued and interrupts it as exec exits, so that letter is read by no model, or lost "
    "(openai/codex#41060)"
)
INTERRUPTED = (
    "its last turn was interrupted, and Codex runs no queued letter in such a thread, loaded again or woken, until "
    "someone starts a turn in it"
)


def _user(envelope):
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": envelope}]}


def test_a_letter_to_a_thread_codex_exec_runs_waits_and_every_word_says_why(postbag, exchange):
    from written import Codex

    codex = Codex(postbag.env["HOME"], postbag.codex.thread, source="exec")
    codex.turn(trigger="exec")  # exec's own turn, working
    holder = held(codex.lock_file())  # the codex exec process has the thread loaded
    try:
        assert postbag.door_now("codex") == (
            f"codex will not take a letter now: a running codex has its thread loaded, but {EXEC_RUNS}"
        )
        sent = postbag.ok("send", "codex", "Anyone?", inside="claude")
        assert sent == f"letter 7 delivered to codex, 2 left; but {EXEC_RUNS}\n"
    finally:
        holder.communicate(b"")


def test_a_thread_whose_exec_was_killed_mid_turn_takes_letters_once_another_codex_loads_it(postbag, exchange):
    """Killed, exec leaves its turn begun and never ended; the codex that loads the thread
    after it applies the thread's settings again, and takes queued letters as any does."""
    from written import Codex

    codex = Codex(postbag.env["HOME"], postbag.codex.thread, source="exec")
    codex.turn(trigger="exec")
    codex.settings("never")  # exec's own, as its turn began
    codex.settings("never")  # the codex that loaded the thread after exec was killed
    holder = held(codex.lock_file())
    try:
        taken = (
            "codex can take a letter now: a running codex has its thread loaded, "
            "and it takes the letter when it is idle"
        )
        assert postbag.door_now("codex") == taken
        assert postbag.ok("send", "codex", "Anyone?", inside="claude") == "letter 7 delivered to codex, 2 left\n"
    finally:
        holder.communicate(b"")


def test_a_letter_whose_turn_was_interrupted_before_the_model_read_it_is_not_taken(postbag, exchange):
    from written import Codex

    *_, to_codex = exchange
    codex = Codex(postbag.env["HOME"], postbag.codex.thread, source="exec")
    codex.turn(trigger="exec", ended=True)
    codex.turn(_user(to_codex), trigger="queue", interrupted=True)  # begun for the letter, aborted as exec exited
    assert postbag.receipts(inside="claude") == [
        "letter 5 claude -> codex: not taken: the thread's rollout holds it, but the turn Codex began for it was "
        "interrupted before the model read it (as the end of a codex exec run interrupts one: openai/codex#41060)"
    ]


@pytest.mark.parametrize("read", ["the model answered it", "its turn ended"])
def test_a_letter_read_in_its_turn_is_taken_though_a_later_turn_was_interrupted(postbag, exchange, read):
    from written import WHEN, local

    _, codex, _, to_codex = exchange
    answer = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Reading it."}]}
    if read == "the model answered it":
        codex.turn(_user(to_codex), answer, trigger="queue")
    else:
        codex.turn(_user(to_codex), trigger="queue", ended=True)
    codex.turn(trigger="queue", interrupted=True)
    assert postbag.receipts(inside="claude") == [f"letter 5 claude -> codex: taken at {local(WHEN)}"]


def test_a_letter_whose_turn_was_interrupted_is_taken_once_a_later_turn_answers_with_it_in_view(postbag, exchange):
    from written import WHEN, Codex, local

    *_, to_codex = exchange
    codex = Codex(postbag.env["HOME"], postbag.codex.thread, source="exec")
    codex.turn(_user(to_codex), trigger="queue", interrupted=True)
    answer = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Reading it."}]}
    codex.turn(_user("go on"), answer, trigger="user")  # a person started a turn since
    assert postbag.receipts(inside="claude") == [f"letter 5 claude -> codex: taken at {local(WHEN)}"]


def test_after_an_interrupted_turn_a_letter_is_lost_or_waits_until_someone_starts_a_turn(postbag, exchange):
    from written import Codex

    codex = Codex(postbag.env["HOME"], postbag.codex.thread, source="exec")
    codex.settings("never")
    codex.turn(trigger="exec", ended=True)
    codex.turn(_user("queued-A"), trigger="queue", interrupted=True)  # another letter's turn, aborted
    codex.lock_file()  # loaded once; nobody has it loaded now
    assert postbag.receipts(inside="claude") == [
        "letter 5 claude -> codex: unknown: neither codex's queue nor the thread's rollout holds it; the thread's last "
        "turn, which Codex began for a queued letter, was interrupted, and the letter of such a turn is at times lost "
        "(openai/codex#41060)"
    ]
    codex.daemon()  # its daemon runs: a thread so interrupted is not woken all the same
    sent = postbag.ok("send", "codex", "Anyone?", inside="claude")
    assert sent == (
        "letter 6 delivered to codex, 9 left; but it waits in codex's queue: no running codex has the thread loaded, "
        f"and {INTERRUPTED}: it is taken when a person starts one (a prompt in codex resume)\n"
    )
    assert not any(postbag.codex.resumed())


def test_a_turn_a_person_interrupted_is_no_sign_that_the_thread_takes_no_letter(postbag, exchange):
    """Only a turn Codex began for a queued letter is known to stall the thread when it is
    interrupted (openai/codex#41060); a person's Esc in a turn of their own says nothing of it."""
    from written import Codex

    codex = Codex(postbag.env["HOME"], postbag.codex.thread)
    codex.settings("never")
    codex.turn(_user("look at this"), trigger="user", interrupted=True)
    codex.lock_file()  # loaded once; nobody has it loaded now
    codex.daemon()
    sent = postbag.ok("send", "codex", "Anyone?", inside="claude")
    assert sent == "letter 6 delivered to codex, 9 left; codex's daemon woke the thread to take it\n"
    assert any(postbag.codex.resumed())
