"""Codex's door, and its records: how its thread is told from an MCP call, what its door
is, how a letter is knocked through that door (`codex queue`, with `--resume` to wake a
thread no running Codex has loaded), what its MCP door's send tool is called, and what
its records say of a letter (receipts) and of whether its thread can take one now
(`open`). Together with how its thread is told from the environment (__init__.py), this
is all postbag knows of Codex; the room offers it all, for peers.py, from here.

The records, read-only: Codex 0.153.0 to 0.171.0 (PROVEN), under CODEX_HOME (else ~/.codex):
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

import errno
import os
import sys

from postbag import children
from postbag.codex import NAME, SESSION, THREAD, inside
from postbag.doors import maybe_delivered, not_answered
from postbag.fields import is_door_field, is_uuid
from postbag.homes import home_of
from postbag.receipts import (
    NOT_TAKEN,
    UNKNOWN,
    WAITING,
    LookBeside,
    Receipt,
    find_back,
    is_the_letter,
    newest,
    numbers,
    taken_in,
    unproven,
)
from postbag.refusal import Refusal

# The versions the real-client tier proves postbag on, oldest and newest (tests/clients/pins.py
# takes its pairs from here); an unknown receipt says so of records from outside them.
PROVEN = ("0.153.0", "0.171.0")
# The MCP door's send tool as Codex names it to its model: a function inside the server's
# namespace, the server registered under the name postbag, as README's registration does.
SEND_TOOL = "the tool send of the mcp__postbag namespace"
APP_CODEX = "/Applications/ChatGPT.app/Contents/Resources/codex"
# What `codex queue` says on stderr, in our words. Its own words carry the thread id, so
# they are never shown.
_CODEX_SAYS = (
    ("no rollout found", "codex knows no such thread"),
    ("no active session found", "codex knows no such thread"),
)


def door_of_session(env):
    """What `join` records of the thread `env` is: CODEX_THREAD_ID, else CODEX_SESSION_ID."""
    if not inside(env):
        raise Refusal(f"join {NAME} from inside a {NAME} session")
    if THREAD in env:
        # CODEX_SESSION_ID can name a root shared by sub-agent threads, so a thread id that
        # is present but malformed is refused rather than silently replaced by the root.
        if not is_uuid(env[THREAD]):
            raise Refusal(f"{THREAD} is not a thread id")
        name = THREAD
    else:
        name = SESSION
    if not is_door_field(env[name]):
        raise Refusal(f"{name} is not valid text")
    return {"thread": env[name]}


def thread_of_call(meta):
    """The threadId Codex puts in each MCP call's _meta (it gives its servers no variables
    of the thread), as it came; None without one."""
    return meta.get("threadId") if isinstance(meta, dict) else None


def door_of_call(thread):
    """The door of the thread that made an MCP call, `thread` being its threadId."""
    if type(thread) is not str or not is_uuid(thread):
        raise Refusal("the call's threadId is not a thread id")
    return {"thread": thread}


def knock(door, envelope, env, *, sandboxed=False, wake=False):
    """`codex queue` the envelope for the door's thread, with `env` as the child's own (no
    session variable of either vendor in it); with `wake`, ask codex's daemon to load the
    thread, and return what came of that (WOKEN ...); else None."""
    argv = [find_codex(env), "queue", "--thread", door["thread"], "--message", envelope]
    older = None  # NO_RESUME_ANSWER, once a codex from before --resume refused it
    try:
        status, said = children.run([*argv[:2], "--resume", *argv[2:]] if wake else argv, env)
        if wake and status == _USAGE and _NO_RESUME in said:  # a usage error: nothing was stored
            status, said = children.run(argv, env)
            older = NO_RESUME_ANSWER
    except OSError as error:
        raise _start_failure(error) from None
    if status is None:
        raise maybe_delivered("codex", f"codex queue gave no answer within {children.TIMEOUT:g} s")
    if status < 0:
        raise maybe_delivered("codex", f"codex queue was killed by {children.signal_name(-status)}")
    if status > 0:
        # codex queue stores the letter last, once the thread was found: a failure means
        # it took nothing, and what helps is a fresh door.
        raise not_answered("codex", f"codex queue exited {status}{_codex_said(said)}")
    if not wake:
        return None
    return older or _resumed(said)


# What a codex from before `codex queue --resume` (WAKES_SINCE) says of it: a usage error,
# exit 2, raised before anything is stored, so the letter is knocked again without it.
_USAGE, _NO_RESUME = 2, b"unexpected argument '--resume'"


def _resumed(stderr):
    """What came of the resume, from the warning codex queue prints when it stored the letter
    but could not have its daemon load the thread (it names the thread: never shown)."""
    text = stderr.decode(errors="replace")
    if "could not resume thread" not in text:
        return WOKEN
    if "start a local daemon" in text:
        return NO_DAEMON_ANSWER
    if "already has an active writer" in text:
        return LOADED_ELSEWHERE
    return NOT_WOKEN


def _codex_said(stderr):
    text = stderr.decode(errors="replace").lower()
    for words, meaning in _CODEX_SAYS:
        if words in text:
            return f": {meaning}"
    return ""


def _start_failure(error):
    if error.errno == errno.E2BIG:
        return Refusal("the letter is too long for the system to pass to codex queue; shorten the letter")
    return Refusal(f"codex queue could not start ({error.strerror}); set POSTBAG_CODEX to a working codex")


def find_codex(env):
    """The codex binary: POSTBAG_CODEX (a path, or a name PATH finds), else the one inside
    the ChatGPT app, else PATH's codex."""
    search = env.get("PATH", os.defpath)
    named = env.get("POSTBAG_CODEX")
    if named:
        found = children.which(named, search)
        if found is None:
            raise Refusal(f"no codex at {named}; set POSTBAG_CODEX")
        return os.path.abspath(found)
    if os.path.isfile(APP_CODEX) and os.access(APP_CODEX, os.X_OK):
        return APP_CODEX
    found = children.which("codex", search)
    if found is None:
        raise Refusal("no codex on PATH; set POSTBAG_CODEX")
    return os.path.abspath(found)


BUSY_TRIES, BUSY_WAIT = 3, 0.05  # a queue database another process holds locked: tries, seconds between


def receipt(letter, joined, env):
    thread = joined.get("thread")
    if not isinstance(thread, str) or not is_uuid(thread):
        return Receipt(UNKNOWN, "codex's join names no thread id, only a session id")
    home = home_directory(env)
    found = rollouts(home, thread) or []
    taken = taken_in(newest(found), "the thread's rollout", letter, _took) if found else None
    if taken is not None:
        return taken
    queued, unreadable = waits_in_the_queue(home, thread, letter)
    if not found:  # queued or not, no session of that thread will ever take it
        return Receipt(UNKNOWN, unreadable) if unreadable else Receipt(NOT_TAKEN, GONE)
    if queued:  # None where the queue cannot be read
        return Receipt(WAITING, _who_takes_it(home, thread, newest(found)))
    unknown = Receipt(UNKNOWN, unreadable or "neither codex's queue nor the thread's rollout holds it")
    return unknown.noting(unproven(NAME, version_of(newest(found)), PROVEN))


def version_of(rollout):
    """The Codex version that began the rollout at `rollout`, from its first record, or None."""
    import json  # here: at the top it would cost the human's verbs, refused before the rest loads, 9 ms

    try:
        with open(rollout, "rb") as file:
            first = json.loads(file.readline(_FIRST_LINE_MAX))
        return first["payload"]["cli_version"] if first.get("type") == "session_meta" else None
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


_FIRST_LINE_MAX = 1 << 20  # the thread's instructions ride in it: tens of kilobytes


GONE = "codex no longer has the thread it went to (its rollout is gone), so nothing will take it"


def _took(record, letter):
    payload = record.get("payload")
    if record.get("type") != "response_item" or not isinstance(payload, dict) or payload.get("role") != "user":
        return False
    content = payload.get("content")
    texts = [part.get("text") for part in content if isinstance(part, dict)] if isinstance(content, list) else []
    return any(is_the_letter(text, letter) for text in texts)


def _who_takes_it(home, thread, path):
    loaded = is_loaded(home, thread)
    if loaded:
        return f"in codex's queue for the thread, which a running codex has loaded: {_turn_now(path)}"
    if loaded is False:
        return f"in codex's queue for the thread, which no running codex has loaded: {_unloaded(home, path)[1]}"
    return "in codex's queue for the thread; whether a running codex has it loaded cannot be told here"


RESUMED = "in the app or editor, or with codex resume"
DAEMON_START = "codex app-server daemon start"
NO_DAEMON = (
    f"codex's daemon, which wakes it, is not running: once the human runs {DAEMON_START}, the next letter "
    "wakes the thread, with any letters waiting for it"
)
NOT_WOKEN_WHY = f"codex's daemon could not wake it: it is taken when the thread is resumed ({RESUMED})"
WAKES_SINCE = "0.166.0"  # the first Codex whose codex queue has --resume
NO_RESUME = (
    f"this codex cannot wake a thread (its codex queue has no --resume, which came in Codex {WAKES_SINCE}): it "
    f"is taken when the thread is resumed ({RESUMED})"
)
NOT_WAKING = (
    f"this exchange wakes no thread (it was opened with --no-wake): it is taken when the thread is resumed ({RESUMED})"
)
NEVER_ASKS = "never"  # the one approval policy under which a turn cannot stop to ask a person


def _unloaded(home, path, wakes=True):
    """Of a thread no running codex has loaded, whose newest rollout is `path`: whether a
    letter to it wakes it, and what becomes of its letters, in words."""
    woken, why = _wakes(path, wakes)
    if not woken:
        return False, why
    wrote = version_of(path)
    if numbers(wrote) is not None and numbers(wrote) < numbers(WAKES_SINCE):
        return False, (
            f"the codex that wrote its rollout, {wrote}, cannot wake a thread (codex queue --resume came in "
            f"Codex {WAKES_SINCE}): it is taken when the thread is resumed ({RESUMED})"
        )
    if daemon_runs(home) is False:
        return True, NO_DAEMON
    return True, "the next letter wakes it through codex's daemon, with any letters waiting for it"


def _wakes(path, wakes):
    """Whether a letter may wake the thread whose newest rollout is `path`, as (True, None),
    or (False, why not, and what then). A woken turn has nobody to answer an approval:
    codex holds it there unseen, and every later letter behind it, so a thread whose policy
    may ask for one is not woken (CONCEPT.md)."""
    if not wakes:
        return False, NOT_WAKING
    policy = approval_policy(path)
    if policy is None:
        return False, (
            "postbag does not wake it, since its rollout does not say whether a woken turn could stop for an "
            f"approval: it is taken when the thread is resumed ({RESUMED})"
        )
    if policy != NEVER_ASKS:
        shown = policy if isinstance(policy, str) else "granular"
        return False, (
            f"postbag does not wake it: the thread asks for approvals (approval_policy {shown}), and nobody could "
            f"give one to a woken turn; it is taken when the thread is resumed where a person can approve ({RESUMED})"
        )
    return True, None


def _turn_now(path):
    """What a loaded thread, whose newest rollout is `path`, is doing, and so when it takes a letter."""
    pending = open_turn(path)
    if pending is None:
        return "it takes the letter when it is idle"
    if not pending:
        return "its turn is working, and it takes the letter when the turn ends"
    if approval_policy(path) == NEVER_ASKS:
        return "its turn is running a tool call, and it takes the letter when the turn ends"
    return (
        "its turn has stopped at a tool call that has no result yet: a command still running, or an approval "
        "nobody has given in that codex; it takes the letter when the turn ends"
    )


# What `codex queue --resume` said of the resume it asked codex's daemon for (knock).
WOKEN, NO_DAEMON_ANSWER, LOADED_ELSEWHERE, NOT_WOKEN = "woken", "no daemon", "loaded elsewhere", "not woken"
NO_RESUME_ANSWER = "no resume"


def look_beside(joined, env, wakes):
    """What a send looks at around its knock: whether to wake the thread, and what to say."""
    return Wake(joined, env, wakes)


class Wake:
    """What a send does about a thread no running codex may have loaded: decided before the
    knock from the thread's rollout (`resume`: whether `codex queue --resume` asks codex's
    daemon to load it), and said once codex answered (`words`). Whether a running codex has
    it loaded is read while the door works: a process's first read of /proc/locks can cost
    more than the send may spend, and a loaded thread shrugs off a resume ("already has an
    active writer")."""

    def __init__(self, joined, env, wakes):
        self.resume, self._gone, self._loaded, self._why = False, False, None, None
        thread = joined.get("thread")
        if not isinstance(thread, str):
            return
        home = home_directory(env)
        found = rollouts(home, thread)
        if found == []:  # codex queue stores it all the same
            self._gone = True
        elif found:  # None: no sessions here to read, and nothing is known
            self._loaded = LookBeside(lambda _joined, _env: is_loaded(home, thread), joined, env)
            self.resume, self._why = _wakes(newest(found), wakes)

    def words(self, answer):
        """What the send adds, given codex's `answer` of the resume (one of WOKEN ...), or None."""
        if self._gone:
            return f"but {GONE}"
        loaded = self._loaded.words() if self._loaded is not None else True
        if loaded or answer == LOADED_ELSEWHERE:
            return None  # a running codex has it loaded and takes it when idle, or nothing is known
        if not self.resume:
            return _waits(loaded, self._why)
        if answer == WOKEN:
            return "codex's daemon woke the thread to take it"
        return _waits(loaded, {NO_DAEMON_ANSWER: NO_DAEMON, NO_RESUME_ANSWER: NO_RESUME}.get(answer, NOT_WOKEN_WHY))


def _waits(loaded, why):
    if loaded is False:
        return f"but it waits in codex's queue: no running codex has the thread loaded, and {why}"
    return f"but whether a running codex has the thread loaded cannot be told here; if none has, it waits: {why}"


def reachability(joined, env, wakes=True):
    """Whether the thread behind the door `joined` can take a letter now, in words, from
    the same records a receipt reads; `wakes`: whether the open exchange wakes threads."""
    thread = joined.get("thread")
    if not isinstance(thread, str) or not is_uuid(thread):
        return "whether codex can take a letter now cannot be told: its join names no thread id, only a session id"
    home = home_directory(env)
    found = rollouts(home, thread)
    if found == []:
        return (
            "codex cannot take a letter: codex no longer has the thread it joined with (its rollout is gone); "
            "it must join again from a live session"
        )
    loaded = is_loaded(home, thread)
    if loaded:
        return f"codex can take a letter now: a running codex has its thread loaded, and {_turn_now(newest(found))}"
    if loaded is False and found:
        woken, why = _unloaded(home, newest(found), wakes)
        if woken and why != NO_DAEMON:
            return f"codex can take a letter now: no running codex has its thread loaded, and {why}"
        return f"codex's letters will wait: no running codex has its thread loaded, and {why}"
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
    return env.get("CODEX_HOME") or os.path.join(home_of(env), ".codex")


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
    import json  # here: at the top it would cost the human's verbs, refused before the rest loads, 9 ms

    try:
        content = json.loads(payload)["UserInput"]["content"]
        return [part["text"] for part in content if part.get("type") == "text"]
    except (TypeError, ValueError, KeyError, AttributeError):
        return []


def is_loaded(home, thread, system=sys.platform, locks="/proc/locks"):
    """Whether a running codex holds the writer lock of `thread`; None where that cannot be
    told. Nothing is locked to find out, so a codex loading the thread that moment is never
    turned away: Linux lists every flock in /proc/locks; macOS's kernel keeps flock and
    fcntl locks on one list per file, so asking fcntl which lock would block one (F_GETLK)
    sees codex's flock without taking anything."""
    kept = os.path.join(home, "thread-writer-locks")
    path = os.path.join(kept, f"{thread}.lock")
    try:
        status = os.stat(path)
    except FileNotFoundError:
        # A codex that loads a thread creates its lock file and holds it: where this codex
        # keeps its locks and the thread has none, none has it loaded. With no such folder
        # this is not that codex's home, or a codex without locks: nothing is known.
        return False if os.path.isdir(kept) else None
    except OSError:
        return None
    if system == "linux":
        return _listed_in(locks, status)
    if system in _FLOCK_LAYOUTS:
        return _blocked(path, _FLOCK_LAYOUTS[system])
    return None


def _listed_in(locks, status):
    try:
        with open(locks, "rb") as file:  # bytes: a process's first text open costs it 10 ms of codec set-up
            held = file.read()
    except OSError:
        return None
    device = b"%02x:%02x:%d" % (os.major(status.st_dev), os.minor(status.st_dev), status.st_ino)
    return any(line.split()[5:6] == [device] for line in held.splitlines() if b"FLOCK" in line)


# Where F_GETLK sees an flock, the layout of its struct flock: (format, index of l_type).
_FLOCK_LAYOUTS = {"darwin": ("qqihh", 3)}


def _blocked(path, layout):
    """Whether some lock on the file at `path` would block a write lock on all of it: asked,
    never taken (fcntl F_GETLK, on a descriptor opened only to read)."""
    import fcntl  # here: only macOS asks; at the top both would cost every refusal 0.9 ms
    import struct

    shape, type_at = layout
    fields = list(struct.unpack(shape, bytes(struct.calcsize(shape))))  # every field 0
    fields[type_at] = fcntl.F_WRLCK
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        answer = struct.unpack(shape, fcntl.fcntl(descriptor, fcntl.F_GETLK, struct.pack(shape, *fields)))
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return answer[type_at] != fcntl.F_UNLCK


def approval_policy(path):
    """The approval policy the thread whose newest rollout is `path` runs a resumed turn
    with (a name, or a table for a granular policy), from the latest record that states it:
    thread_settings_applied, or a turn's turn_context (the only one of them Codex 0.153
    writes); None where the rollout does not say or cannot be read."""
    found, _ = find_back(path, "the thread's rollout", _SETTINGS_NEEDLES, _settings_of, None, TURN_BACK)
    return None if found is None else _settings_of(found).get("approval_policy")


# How far back from a rollout's end its latest turn is looked for: each turn records its
# start and the thread's settings, and a send must not read a whole long rollout for them.
TURN_BACK = 4 << 20
_SETTINGS_NEEDLES = (b'"thread_settings_applied"', b'"turn_context"')


def _settings_of(record):
    """The settings a rollout record states for the thread's turns, or None (falsy)."""
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return None
    if record.get("type") == "turn_context":
        return payload if "approval_policy" in payload else None
    if record.get("type") == "event_msg" and payload.get("type") == "thread_settings_applied":
        settings = payload.get("thread_settings")
        return settings if isinstance(settings, dict) else None
    return None


def open_turn(path):
    """Of the latest turn in the rollout at `path`: None when it ended, or where nothing tells;
    else the names of the tool calls it made that have no output yet (maybe none)."""
    pending, answered = [], set()

    def turn_edge(record):
        payload = record.get("payload")
        kind = payload.get("type") if isinstance(payload, dict) else None
        if record.get("type") == "event_msg" and kind in ("task_started", "task_complete", "turn_aborted"):
            return True
        if record.get("type") == "response_item" and kind in _CALLS:
            if kind.endswith("_output"):
                answered.add(payload.get("call_id"))
            elif payload.get("call_id") not in answered:
                pending.append(payload.get("name"))
        return False

    found, _ = find_back(path, "the thread's rollout", _TURN_NEEDLES, turn_edge, None, TURN_BACK)
    return pending if found is not None and found["payload"]["type"] == "task_started" else None


_CALLS = ("function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output")
_TURN_NEEDLES = (b'"task_started"', b'"task_complete"', b'"turn_aborted"', b"_call")


def daemon_runs(home):
    """Whether codex's app-server daemon for `home` runs, from the record of its process it
    keeps (app-server-daemon/daemon.pid, gone once it stops): its pid, and on Linux the
    start time /proc gives that pid; None where the record cannot be read. Nothing is
    connected to or signalled but with signal 0, which only asks."""
    import json  # here: at the top it would cost the human's verbs, refused before the rest loads, 9 ms

    try:
        with open(os.path.join(home, "app-server-daemon", "daemon.pid"), "rb") as file:
            record = json.loads(file.read())
        pid = record["pid"]
    except FileNotFoundError:
        return False
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if type(pid) is not int or pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # a process of another user's: alive
        pass
    started = (record.get("processIdentity") or {}).get("startTicks") if isinstance(record, dict) else None
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rpartition(b")")[2].split()
    except OSError:
        return True  # no /proc here (macOS): the pid lives
    return started is None or fields[19:20] == [b"%d" % started]  # field 22, counted after the name
