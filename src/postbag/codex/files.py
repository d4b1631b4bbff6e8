"""Codex's records under CODEX_HOME (else ~/.codex), read-only, as Codex 0.153.0 to 0.171.0 (room.PROVEN) writes them:

- queue_1.sqlite, table queued_items (id, thread_id, payload_json, queue_order, created_at_ms, updated_at_ms):
  a letter `codex queue` stored and no session has taken yet is a row whose payload is
  {"UserInput": {"content": [{"type": "text", "text": ENVELOPE}, ...]}}; the row goes when a session takes it;
- sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl, the thread's rollout: its first record,
  {"type": "session_meta", "payload": {"cli_version", ...}}, names the version that began it; a taken letter is a
  {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text",
  "text": ENVELOPE}]}, "timestamp": ...} record; the settings a resumed turn runs with, and each turn's start,
  calls and end, are records too.

Every file is untrusted input (vendor_files.py): what is not of a shape known here is no sign of anything.
"""

import os

from postbag.receipts import heading_of, is_the_letter
from postbag.vendor_files import find_back, is_regular, json_of, open_regular, record, table, text

IN_THE_QUEUE, NOT_IN_THE_QUEUE, QUEUE_UNREAD = "in the queue", "not in the queue", "queue unread"
# What the latest turn of a thread is doing: ended (or none recorded), working, or at a call with no result yet.
TURN_ENDED, TURN_WORKING, TURN_AT_A_CALL = "ended", "working", "at a call"
BUSY_TRIES, BUSY_WAIT = 3, 0.05  # a queue database another process holds locked: tries, seconds between
# How far back from a rollout's end its latest turn is looked for: a send must not read a whole long rollout.
TURN_BACK = 4 << 20
_FIRST_LINE_MOST = 1 << 20  # the thread's instructions ride in the first record: tens of kilobytes
_TURN_NEEDLES = (b'"task_started"', b'"task_complete"', b'"turn_aborted"', b"_call")
_CALLS = ("function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output")
_TURN_EDGES = ("task_started", "task_complete", "turn_aborted")
_EDGE_NEEDLES = (*(f'"{edge}"'.encode() for edge in _TURN_EDGES), b'"thread_settings_applied"', b'"turn_context"')
THREAD_GONE = "codex no longer has the thread it went to (its rollout is gone), so nothing will take it"
THE_ROLLOUT = "the thread's rollout"  # how a receipt names it: its file name holds the thread's id


def home_directory(here):
    return here.env.get("CODEX_HOME") or os.path.join(here.home(), ".codex")


def rollouts(home, thread):
    """The paths of the thread's rollouts under `home`, or None where there are no sessions to look in.
    Folders are listed, not globbed: a send's own look at the records imports nothing more."""
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


def version_of(rollout):
    """The Codex version that began the rollout at `rollout`, from its first record (session_meta), or None."""
    try:
        fd = open_regular(rollout)
    except OSError:
        return None
    try:
        first = record(json_of(os.pread(fd, _FIRST_LINE_MOST, 0).partition(b"\n")[0]))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    return text(table(first, "payload"), "cli_version") if first.get("type") == "session_meta" else None


def took(entry, letter):
    """Whether a rollout record is the thread taking `letter`: a user's message holding its envelope."""
    payload = table(entry, "payload")
    if entry.get("type") != "response_item" or payload.get("role") != "user":
        return False
    content = payload.get("content")
    parts = content if type(content) is list else []
    return any(is_the_letter(text(part, "text"), letter) for part in parts)


def in_the_queue(home, thread, letter):  # noqa: PLR0911 - every way a live database can be unread says why
    """Whether `letter` is a row of codex's queue for `thread`: (IN_THE_QUEUE or NOT_IN_THE_QUEUE, None), or
    (QUEUE_UNREAD, why). Read-only, never immutable: the database is live, and another process may hold it
    locked a moment, which is waited out a little."""
    import time
    from contextlib import closing  # a connection as its own context manager commits and stays open

    try:
        import sqlite3
    except ImportError:
        return QUEUE_UNREAD, "this Python has no sqlite3 to read codex's queue with"
    path = os.path.join(home, "queue_1.sqlite")
    if not os.path.lexists(path):
        return NOT_IN_THE_QUEUE, None  # nothing was ever queued here
    # SQLite opens the database and its journals by their names, where a pipe would hang it.
    journals = [each for each in (f"{path}-wal", f"{path}-shm", f"{path}-journal") if os.path.lexists(each)]
    if not all(is_regular(each) for each in (path, *journals)):
        return QUEUE_UNREAD, "codex's queue is not a regular file"
    uri = "file:" + path.replace("%", "%25").replace("?", "%3f").replace("#", "%23") + "?mode=ro"
    for attempt in range(BUSY_TRIES):
        try:
            with closing(sqlite3.connect(uri, uri=True, timeout=BUSY_WAIT)) as db:
                rows = db.execute("SELECT payload_json FROM queued_items WHERE thread_id = ?", (thread,)).fetchall()
            found = any(is_the_letter(part, letter) for (payload,) in rows for part in _queued_texts(payload))
            return (IN_THE_QUEUE if found else NOT_IN_THE_QUEUE), None
        except sqlite3.OperationalError as error:
            if ("locked" not in str(error) and "busy" not in str(error)) or attempt == BUSY_TRIES - 1:
                return QUEUE_UNREAD, f"cannot read codex's queue ({error})"
            time.sleep(BUSY_WAIT)
        except (sqlite3.DatabaseError, ValueError, OverflowError, MemoryError) as error:
            return QUEUE_UNREAD, f"codex's queue is not a database postbag knows ({type(error).__name__})"
    return QUEUE_UNREAD, "codex's queue stayed locked"


def _queued_texts(payload):
    """The texts of a queue row's payload, as codex queue stores a message; none for any other shape."""
    try:
        message = record(json_of(payload))
    except (ValueError, TypeError):  # not JSON, or not even text: SQLite keeps whatever it was given
        return []
    parts = table(message, "UserInput").get("content")
    return [text(part, "text") for part in parts if text(part, "type") == "text"] if type(parts) is list else []


def _settings_of(entry):
    """The settings a rollout record states for the thread's turns, or None for any other record."""
    payload = table(entry, "payload")
    if entry.get("type") == "turn_context" and payload:
        return payload
    if entry.get("type") == "event_msg" and payload.get("type") == "thread_settings_applied":
        return table(payload, "thread_settings")
    return None


# What Codex 0.171.0 does with a queued letter when a turn of `codex exec` ends (openai/codex#41060, open): it
# begins a turn for the first queued letter and aborts it as exec exits ("turn_aborted", reason "interrupted"), the
# letter recorded unread or lost; and a thread whose last turn was so interrupted runs no queued letter, loaded
# again or woken, until someone starts a turn in it.
INTERRUPTED = "interrupted"
# A turn of `codex exec` that neither ended nor was interrupted, after whose start another codex applied the thread's
# settings as it loaded the thread (exec applies them once, as its turn begins): the exec was killed, and the codex
# that has the thread now takes queued letters as any does (seen on 0.171.0).
LEFT = "left"


def latest_turn(path):
    """The latest turn of the rollout at `path`, read in one look back, as (trigger, end, policy): the trigger Codex
    recorded as the turn began ("exec", "queue", "user"...); "working" while it runs, "ended", INTERRUPTED or LEFT;
    and the approval policy (a name, or a table for a granular one) from the latest record of the thread's settings,
    thread_settings_applied or a turn_context (the only one Codex 0.153 writes). Each None where not found or not
    readable: a doubt is no policy."""
    found = {"applied": 0}

    def edge(entry):
        payload = table(entry, "payload")
        kind = payload.get("type") if entry.get("type") == "event_msg" else None
        if "started" not in found:  # still within the latest turn
            if kind in ("task_complete", "turn_aborted") and "ended" not in found:
                found["ended"] = INTERRUPTED if text(payload, "reason") == INTERRUPTED else "ended"
            elif kind == "thread_settings_applied":
                found["applied"] += 1
            elif kind == "task_started":
                found["started"] = text(table(payload, "turn_attribution"), "turn_trigger")
        if "settings" not in found:
            settings = _settings_of(entry)
            if settings is not None:
                found["settings"] = settings
        return "started" in found and "settings" in found

    find_back(path, THE_ROLLOUT, _EDGE_NEEDLES, edge, None, TURN_BACK)
    policy = found["settings"].get("approval_policy") if "settings" in found else None
    if "started" not in found:
        return None, None, policy
    trigger = found["started"]
    if "ended" in found:
        return trigger, found["ended"], policy
    return trigger, LEFT if trigger == "exec" and found["applied"] > 1 else "working", policy


def read_before_its_turn_ended(path, letter):
    """Whether the model read `letter`, which the rollout at `path` holds: False where the turn Codex began for it
    was aborted before any answer or call of the model's and no answer came after; True where one came, or the turn
    ended as turns do; None where the rollout cannot tell (still working, or not read far enough)."""
    try:
        fd = open_regular(path)
    except OSError:
        return None
    try:
        end = os.fstat(fd).st_size
        data = os.pread(fd, min(end, TURN_BACK), max(0, end - TURN_BACK))
    except OSError:
        return None
    finally:
        os.close(fd)
    # Only lines from the first that holds the letter's heading on can be its record, or after it.
    first = data.find(heading_of(letter).encode())
    seen = aborted = False
    for line in data[data.rfind(b"\n", 0, first) + 1 :].split(b"\n") if first >= 0 else ():
        try:
            entry = record(json_of(line))
        except ValueError:
            continue
        if not seen:
            seen = took(entry, letter)
            continue
        payload = table(entry, "payload")
        answering = payload.get("role") == "assistant" or payload.get("type") in _CALLS
        if entry.get("type") == "response_item" and answering:
            return True  # in its own turn, or in one a person started since, the letter in view
        event = payload.get("type") if entry.get("type") == "event_msg" else None
        if event == "turn_aborted":
            aborted = True
        elif event in ("task_complete", "task_started") and not aborted:
            return True
    return False if aborted else None


def turn_now(path):
    """What the latest turn at `path` does: TURN_ENDED (also where nothing tells), TURN_WORKING or TURN_AT_A_CALL."""
    pending, answered = [], set()

    def turn_edge(entry):
        payload = table(entry, "payload")
        kind = payload.get("type")
        if entry.get("type") == "event_msg" and kind in _TURN_EDGES:
            return True
        if entry.get("type") == "response_item" and kind in _CALLS:
            call = text(payload, "call_id")
            if kind.endswith("_output"):
                answered.add(call)
            elif call not in answered:
                pending.append(call)
        return False

    found, _ = find_back(path, THE_ROLLOUT, _TURN_NEEDLES, turn_edge, None, TURN_BACK)
    if found is None or table(found, "payload").get("type") != "task_started":
        return TURN_ENDED
    return TURN_AT_A_CALL if pending else TURN_WORKING
