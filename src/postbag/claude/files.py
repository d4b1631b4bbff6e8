"""Claude Code's records, read-only, under its config directory (CLAUDE_CONFIG_DIR, else ~/.claude), as the
versions room.PROVEN names write them:

- projects/<its working directory>/<session id>.jsonl, the transcript: a letter the session took is a
  {"type": "queue-operation", "operation": "enqueue", "content": ENVELOPE, "timestamp": ...} record, then a user
  turn, written a moment after the taking (0.1 to 0.3 s); each user turn records the permission mode it ran in
  ("permissionMode") and each line the version that wrote it;
- sessions/<pid>.json, {"pid", "sessionId", "cwd", "procStart", "entrypoint", "version", "messagingSocketPath",
  ...}, there while the session runs and removed when it exits cleanly; its process's start time, on Linux
  /proc/<pid>/stat's, tells it from another process given the same pid since.

What is not of the shape known here is no sign of anything (vendor_files.py).
"""

import os

from postbag.doors import is_uuid
from postbag.processes import PID_MOST, runs
from postbag.receipts import SLACK, TAKEN, is_the_letter, taken_in
from postbag.room import CANNOT_TELL
from postbag.times import moment
from postbag.vendor_files import find_back, read_json, read_regular, record, text, whole

ENDED = "ended"  # a session whose file says it runs no longer (else a Session, or CANNOT_TELL)
THE_TRANSCRIPT = "claude's transcript"  # how a receipt names it: its file name holds the session id
_BLOCK_BACK = 1 << 20  # each line carries the version: the last megabyte holds one
PATH_MOST = 4096  # characters of a path: Linux's PATH_MAX, past macOS's 1024


class Session:
    """What a running session's file says: its process (`pid`), working directory (`cwd`, absolute), the app it
    runs in (`app`, its "entrypoint": "cli" in a terminal, "claude-vscode", "claude-desktop", "sdk-cli" without a
    screen...), the version that wrote the file, and the inbox `socket` it listens on; each None where unsaid."""

    __slots__ = ("app", "cwd", "pid", "socket", "version")

    def __init__(self, pid, cwd, app, version, socket):
        self.pid, self.cwd, self.app, self.version, self.socket = pid, cwd, app, version, socket


def config_directory(here):
    return here.env.get("CLAUDE_CONFIG_DIR") or os.path.join(here.home(), ".claude")


def transcripts(config, session=None):
    """The paths of the transcripts of `session` (default: every session's) under `config`, hidden folders aside,
    listed by hand: glob imports re, which costs a send more than the rest of its look at Claude's files."""
    try:
        with os.scandir(os.path.join(config, "projects")) as found:
            projects = [entry.path for entry in found if not entry.name.startswith(".")]
    except OSError:
        return []
    if session is not None:
        return [path for project in projects if os.path.lexists(path := os.path.join(project, f"{session}.jsonl"))]
    return [path for project in projects for path in _transcripts_in(project)]


def _transcripts_in(project):
    try:
        names = os.listdir(project)
    except OSError:  # not a folder, or gone
        return []
    return [os.path.join(project, name) for name in names if name.endswith(".jsonl") and not name.startswith(".")]


def live_session(config, session):
    """The session `session` as its file says while it runs: a Session; ENDED where it has none, or only files
    whose process is gone (a session that crashed leaves its file, and one resumed later in a new process writes
    another); CANNOT_TELL where there is no sessions folder here."""
    running = _running_sessions(config)
    if running is None:
        return CANNOT_TELL
    return next((found for sessions_id, found in running if sessions_id == session), ENDED)


def listener(config, socket):
    """(session id, Session) of the running session whose file says it listens on the inbox `socket`, or None: a
    session restarted on the socket of one that ended takes what is sent there."""
    running = _running_sessions(config)
    wanted = os.path.normpath(socket)
    return next((each for each in running or () if each[1].socket and os.path.normpath(each[1].socket) == wanted), None)


def _running_sessions(config):
    """(session id, Session), lazily, of each session file whose process runs; None without a sessions folder."""
    directory = os.path.join(config, "sessions")
    try:
        names = os.listdir(directory)
    except OSError:
        return None
    return (found for name in names if name.endswith(".json") for found in _running(os.path.join(directory, name)))


def _running(path):
    """[(session id, Session)] from the session file at `path`, where its process runs; else []."""
    try:
        found = record(read_json(path))
    except (OSError, ValueError):
        return []
    pid = whole(found.get("pid"), 1, PID_MOST)
    started = text(found, "procStart")
    started = int(started) if started and started.isascii() and started.isdigit() and len(started) < 20 else None
    if pid is None or not runs(pid, started):  # a start time in a form not known here tells nothing
        return []
    cwd = text(found, "cwd")
    # A relative folder would be read from postbag's own; one with a NUL, or longer than a path, names none.
    cwd = cwd if cwd and os.path.isabs(cwd) and "\0" not in cwd and len(cwd) <= PATH_MOST else None
    session = Session(pid, cwd, text(found, "entrypoint"), text(found, "version"), text(found, "messagingSocketPath"))
    return [(found.get("sessionId"), session)]


# The variable by which a session's environment sets how long Claude holds a letter before it drops it unanswered,
# in milliseconds, over dialogExpiry (read from the 2.1.271, 2.1.336 and 2.1.337 binaries, and seen on each).
DIALOG_TIMEOUT = "CLAUDE_CODE_USER_DIALOG_TIMEOUT_MS"
ENVIRON_MOST = 1 << 20  # bytes of a process's environment read: a few kilobytes, most often


def dialog_timeout(pid):
    """The milliseconds DIALOG_TIMEOUT is set to in the environment of the session's process `pid`, or None;
    ValueError, saying why, where that cannot be told (no /proc, as on macOS; another user's process; a value in a
    form not known here). Only that variable is looked at, never shown: the rest holds the session's token."""
    try:
        data = read_regular(f"/proc/{pid}/environ", ENVIRON_MOST)
    except OSError as error:
        raise ValueError(f"its process's environment cannot be read here ({error.strerror})") from None
    wanted = DIALOG_TIMEOUT.encode() + b"="
    found = next((entry[len(wanted) :] for entry in data.split(b"\0") if entry.startswith(wanted)), None)
    if found is None:
        return None
    if not (found.isdigit() and len(found) < 16):
        raise ValueError(f"its environment sets {DIALOG_TIMEOUT} to what postbag does not know")
    return int(found)


def took(entry, letter):
    """Whether a transcript record is the session taking `letter`: its enqueue."""
    if entry.get("type") == "queue-operation" and entry.get("operation") == "enqueue":
        return is_the_letter(text(entry, "content"), letter)
    return False


def version_of(transcript):
    """The Claude Code version that wrote the transcript at `transcript` last, or None."""
    found, _ = find_back(transcript, THE_TRANSCRIPT, b'"version"', _has_version, None, _BLOCK_BACK)
    return None if found is None else found["version"]


def _has_version(entry):
    return text(entry, "version") is not None


def mode_at(transcript, seconds):
    """(The permission mode the latest turn before `seconds` (since the epoch; None: now) ran in, as the transcript
    records it, or None; why the transcript could not be read far enough to tell, or None)."""

    def said_mode(entry):
        if text(entry, "permissionMode") is None:
            return False
        return seconds is None or (moment(entry.get("timestamp")) or 0) <= seconds + SLACK

    found, unread = find_back(transcript, THE_TRANSCRIPT, b'"permissionMode"', said_mode, None)
    return (None, unread) if found is None else (found["permissionMode"], None)


def taken_elsewhere(config, own, letter, clock):
    """Whether a transcript not `own` (the joined session's), written since the letter was sent, holds it: Claude
    Code checks no token off Windows, so a session restarted on the same socket takes what was sent to the old one.
    (the TAKEN Receipt, None), (None, why such a transcript cannot be read), or (None, None) where none holds it."""
    since = (moment(letter["at"]) or 0) - SLACK
    unreadable = None
    for path in transcripts(config):
        try:
            if path in own or os.stat(path).st_mtime < since:
                continue
        except OSError:
            continue
        taken = taken_in(path, "another claude transcript", letter, took, clock)
        if taken is not None and taken.state == TAKEN:
            return taken, None
        unreadable = unreadable or taken
    return None, None if unreadable is None else unreadable.why


def session_of(joined):
    """The session id a join of a session records, where it is one."""
    session = joined.get("session")
    return session if type(session) is str and is_uuid(session) else None
