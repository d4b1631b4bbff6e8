"""What Codex records of a letter, read-only: its queue database, the thread's rollout, and
whether a running Codex has the thread loaded.

Codex 0.169.0, under CODEX_HOME (else ~/.codex):
- queue_1.sqlite, table queued_items (id, thread_id, payload_json, queue_order,
  created_at_ms, updated_at_ms): a letter `codex queue` stored and no session has taken
  yet is a row whose payload is {"UserInput": {"content": [{"type": "text", "text":
  ENVELOPE}, ...]}}; the row goes when a session takes it;
- sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl: a taken letter is a
  {"type": "response_item", "payload": {"type": "message", "role": "user", "content":
  [{"type": "input_text", "text": ENVELOPE}]}, "timestamp": ...} record;
- thread-writer-locks/<thread>.lock, which the process that has the thread loaded creates
  and holds an flock on. Only a loaded thread takes queued letters; the others wait for a
  resume.
"""

import json
import os

from postbag.receipts import (
    NOT_TAKEN,
    UNKNOWN,
    WAITING,
    Receipt,
    is_the_letter,
    newest,
    taken_in,
)

BUSY_TRIES, BUSY_WAIT = 3, 0.05  # a queue database another process holds locked: tries, seconds between


def receipt(letter, joined, env):
    from postbag.guards import is_uuid

    thread = joined.get("thread")
    if not isinstance(thread, str) or not is_uuid(thread):
        return Receipt(UNKNOWN, "codex's join names no thread id, only a session id")
    home = home_directory(env)
    found = rollouts(home, thread) or []
    taken = taken_in(newest(found), "the thread's rollout", letter, _took) if found else None
    if taken is not None:
        return taken
    queued, unreadable = waits_in_the_queue(home, thread, letter)
    if unreadable:
        return Receipt(UNKNOWN, unreadable)
    if not found:  # queued or not, no session of that thread will ever take it
        return Receipt(NOT_TAKEN, GONE)
    if queued:
        return Receipt(WAITING, _who_takes_it(home, thread))
    return Receipt(UNKNOWN, "neither codex's queue nor the thread's rollout holds it")


GONE = "codex no longer has the thread it went to (its rollout is gone), so nothing will take it"


def _took(record, letter):
    payload = record.get("payload")
    if record.get("type") != "response_item" or not isinstance(payload, dict) or payload.get("role") != "user":
        return False
    content = payload.get("content")
    texts = [part.get("text") for part in content if isinstance(part, dict)] if isinstance(content, list) else []
    return any(is_the_letter(text, letter) for text in texts)


def _who_takes_it(home, thread):
    loaded = is_loaded(home, thread)
    if loaded:
        return "in codex's queue for the thread, which a running codex has loaded: it takes the letter when it is idle"
    if loaded is False:
        return (
            "in codex's queue for the thread, which no running codex has loaded: it is taken when the thread is "
            "resumed (in the app or editor, or with codex resume)"
        )
    return "in codex's queue for the thread; whether a running codex has it loaded cannot be told here"


def waits_at_once(joined, env):
    """What a send can say at once of a letter queued for a thread codex no longer has, or
    one no running codex has loaded; None otherwise, or where that cannot be told."""
    thread = joined.get("thread")
    if not isinstance(thread, str):
        return None
    home = home_directory(env)
    if rollouts(home, thread) == []:  # codex queue stored it all the same
        return f"but {GONE}"
    if is_loaded(home, thread) is False:
        return (
            "it waits in codex's queue: no running codex has the thread loaded, so it is taken when the thread is "
            "resumed"
        )
    return None


def reachability(joined, env):
    """Whether the thread behind the door `joined` can take a letter now, in words, from
    the same records a receipt reads."""
    from postbag.guards import is_uuid

    thread = joined.get("thread")
    if not isinstance(thread, str) or not is_uuid(thread):
        return "whether codex can take a letter now cannot be told: its join names no thread id, only a session id"
    home = home_directory(env)
    if rollouts(home, thread) == []:
        return (
            "codex cannot take a letter: codex no longer has the thread it joined with (its rollout is gone); "
            "it must join again from a live session"
        )
    loaded = is_loaded(home, thread)
    if loaded:
        return "codex can take a letter now: a running codex has its thread loaded, and takes a letter when idle"
    if loaded is False:
        return (
            "codex's letters will wait: no running codex has its thread loaded, so they are taken when the thread is "
            "resumed (in the app or editor, or with codex resume)"
        )
    return (
        "whether codex can take a letter now cannot be told: whether a running codex has its thread loaded is "
        "unknown here"
    )


def rollouts(home, thread):
    """The paths of the thread's rollouts, sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl
    under `home`; None where there are no sessions to look in. Folders are listed, not
    globbed: a send's own look at the records imports nothing more."""
    suffix = f"-{thread}.jsonl"
    days = [os.path.join(home, "sessions")]
    for _ in range(3):  # year, month, day
        found = []
        for folder in days:
            try:
                found += [entry.path for entry in os.scandir(folder) if entry.is_dir()]
            except OSError:
                continue
        days = found
    if not days:
        return None
    found = []
    for folder in days:
        try:
            names = os.listdir(folder)
        except OSError:
            return None
        found += [os.path.join(folder, name) for name in names if name.startswith("rollout-") and name.endswith(suffix)]
    return found


def home_directory(env):
    return env.get("CODEX_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".codex")


def waits_in_the_queue(home, thread, letter):
    """Whether `letter` is a row of codex's queue for `thread`: (True or False, None), or
    (None, why the queue cannot be read). Read-only, never immutable: the database is
    live, and another process may hold it locked a moment, which is waited out a little."""
    import time
    from contextlib import closing  # a connection as its own context manager commits and stays open

    try:
        import sqlite3
    except ImportError:
        return None, "this Python has no sqlite3 to read codex's queue with"
    path = os.path.join(home, "queue_1.sqlite")
    if not os.path.exists(path):
        return False, None  # nothing was ever queued here
    uri = "file:" + path.replace("%", "%25").replace("?", "%3f").replace("#", "%23") + "?mode=ro"
    for attempt in range(BUSY_TRIES):
        try:
            with closing(sqlite3.connect(uri, uri=True, timeout=BUSY_WAIT)) as db:
                rows = db.execute("SELECT payload_json FROM queued_items WHERE thread_id = ?", (thread,)).fetchall()
            return any(is_the_letter(text, letter) for (payload,) in rows for text in _texts(payload)), None
        except sqlite3.OperationalError as error:
            if ("locked" not in str(error) and "busy" not in str(error)) or attempt == BUSY_TRIES - 1:
                return None, f"cannot read codex's queue ({error})"
            time.sleep(BUSY_WAIT)
        except sqlite3.DatabaseError as error:
            return None, f"codex's queue is not a database postbag knows ({error})"
    return None, "codex's queue stayed locked"


def _texts(payload):
    try:
        content = json.loads(payload)["UserInput"]["content"]
        return [part["text"] for part in content if part.get("type") == "text"]
    except (TypeError, ValueError, KeyError, AttributeError):
        return []


def is_loaded(home, thread, locks="/proc/locks"):
    """Whether a running codex holds the writer lock of `thread`, as /proc/locks tells
    (Linux); None where that cannot be told. Nothing is locked or opened to find out."""
    kept = os.path.join(home, "thread-writer-locks")
    try:
        status = os.stat(os.path.join(kept, f"{thread}.lock"))
    except FileNotFoundError:
        # A codex that loads a thread creates its lock file and holds it: where this codex
        # keeps its locks and the thread has none, none has it loaded. With no such folder
        # this is not that codex's home, or a codex without locks: nothing is known.
        return False if os.path.isdir(kept) else None
    except OSError:
        return None
    try:
        with open(locks, "rb") as file:  # bytes: a process's first text open costs it 10 ms of codec set-up
            held = file.read()
    except OSError:
        return None
    device = b"%02x:%02x:%d" % (os.major(status.st_dev), os.minor(status.st_dev), status.st_ino)
    return any(line.split()[5:6] == [device] for line in held.splitlines() if b"FLOCK" in line)
