"""Claude Code's records, as receipts and `open` read them, read-only, under its config
directory (CLAUDE_CONFIG_DIR, else ~/.claude); Claude Code 2.1.248 to 2.1.332
(room.PROVEN) writes them so:

- projects/<its working directory>/<session id>.jsonl, the transcript: a letter the
  session took is a {"type": "queue-operation", "operation": "enqueue", "content":
  ENVELOPE, "timestamp": ...} record, within a moment of the knock, then a user turn;
  each user turn records the permission mode it ran in ("permissionMode") and each line
  the version that wrote it;
- sessions/<pid>.json, {"pid", "sessionId", "cwd", "procStart", ...}, there while the
  session runs and removed when it exits cleanly; its process's start time, on Linux
  /proc/<pid>/stat's, tells it from another process given the same pid since.

Every file is untrusted input (vendor_files.py): what is not of the shape known here is
no sign of anything.
"""

import os

from postbag.here import home_of
from postbag.receipts import SLACK, TAKEN, UNKNOWN, Receipt, is_the_letter, taken_in
from postbag.times import moment
from postbag.vendor_files import find_back, read_json, record, text, whole

ENDED, RUNS, CANNOT_TELL = "ended", "runs", "cannot tell"  # a session, by its file
THE_TRANSCRIPT = "claude's transcript"  # how a receipt names it: its file name holds the session id
_PID_MOST = 2**31 - 1  # a pid_t
_BLOCK_BACK = 1 << 20  # each line carries the version: the last megabyte holds one


class Session:
    """What a running session's file says: its process (`pid`) and working directory (`cwd`)."""

    __slots__ = ("cwd", "pid")

    def __init__(self, pid, cwd):
        self.pid, self.cwd = pid, cwd


def config_directory(env):
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(home_of(env), ".claude")


def transcripts(config, session="*"):
    """The paths of the transcripts of `session` (default: every session's) under `config`."""
    import glob  # only here: a send's own look at the records needs none

    return glob.glob(os.path.join(glob.escape(config), "projects", "*", f"{session}.jsonl"))


def live_session(config, session):
    """The session `session` as its file says while it runs: a Session; ENDED where it has
    none, or only files whose process is gone (a session that crashed leaves its file, and
    one resumed later in a new process writes another); CANNOT_TELL where there are no
    session files here."""
    directory = os.path.join(config, "sessions")
    try:
        names = os.listdir(directory)
    except OSError:
        return CANNOT_TELL
    for name in names:
        if not name.endswith(".json"):
            continue
        try:
            found = record(read_json(os.path.join(directory, name)))
        except (OSError, ValueError):
            continue
        if found.get("sessionId") == session:
            pid = whole(found.get("pid"), 1, _PID_MOST)
            if pid is not None and _running(pid, text(found, "procStart")):
                return Session(pid, text(found, "cwd"))
    return ENDED


def _running(pid, started):
    """Whether the process `pid` runs, and, where /proc tells and `started` is its start
    time as the session's file recorded it, is the same process."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it runs
        return True
    if started is None or not (started.isascii() and started.isdigit()):
        return True  # a start time in a form not known here tells nothing
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rpartition(b")")[2].split()
    except OSError:
        return True  # no /proc here (macOS): the pid lives
    return fields[19:20] == [started.encode(errors="replace")]  # field 22, counted after the name


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
    """(The permission mode the session's latest turn before `seconds` (since the epoch;
    None: now) ran in, as its transcript records it, or None where none says; why the
    transcript could not be read far enough to tell, or None)."""

    def said_mode(entry):
        if text(entry, "permissionMode") is None:
            return False
        return seconds is None or (moment(entry.get("timestamp")) or 0) <= seconds + SLACK

    found, unread = find_back(transcript, THE_TRANSCRIPT, b'"permissionMode"', said_mode, None)
    return (None, unread) if found is None else (found["permissionMode"], None)


def taken_by_another(config, own, letter, clock):
    """TAKEN, by a session other than the one that joined, where another transcript written
    since the letter was sent holds it: Claude Code checks no token off Windows, so a
    session restarted on the same socket takes what was sent to the old one. UNKNOWN
    where such a transcript cannot be read; None where none holds it."""
    since = (moment(letter["at"]) or 0) - SLACK
    unreadable = None
    for path in transcripts(config):
        try:
            if path in own or os.stat(path).st_mtime < since:
                continue
        except OSError:
            continue
        taken = taken_in(path, "another claude session's transcript", letter, took, clock)
        if taken is not None and taken.state == TAKEN:
            taken.why = BY_ANOTHER
            return taken
        unreadable = unreadable or taken
    if unreadable is not None:
        why = f"claude's session has ended; whether another took the letter is unknown: {unreadable.why}"
        return Receipt(UNKNOWN, why)
    return None


BY_ANOTHER = (
    "by another claude session, which listens on the socket it went to: the session that joined has ended, "
    "and the new one has not joined"
)
