"""What Claude Code records of a letter, read-only: the session's transcript, its live
session file, and the settings that decide what it does with letters from other sessions.

Claude Code 2.1.328, under its config directory (CLAUDE_CONFIG_DIR, else ~/.claude):
- projects/<its working directory>/<session id>.jsonl, the transcript: a letter the
  session took is a {"type": "queue-operation", "operation": "enqueue", "content":
  ENVELOPE, "timestamp": ...} record, within a moment of the knock, then a user turn;
- sessions/<pid>.json, {"pid", "sessionId", "cwd", ...}, there while the session runs
  and removed when it exits cleanly;
- settings.json, and the project's .claude/settings.json and .claude/settings.local.json:
  "crossSessionInbound" is "accept", "hold" (held for the person's review, dropped unless
  approved within "dialogExpiry", five minutes by default) or "refuse" (dropped). A
  project may only tighten the user's setting; managed settings overrule both. Under
  hold and refuse the transcript gets nothing.
"""

import json
import os

from postbag.receipts import (
    NOT_TAKEN,
    SLACK,
    TAKEN,
    UNKNOWN,
    Receipt,
    is_the_letter,
    moment,
    newest,
    taken_in,
)

# The strictest setting wins, as Claude Code applies them; an unknown value holds.
_STRICTNESS = {"accept": 0, "hold": 1, "refuse": 2}
MANAGED_SETTINGS = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)


def receipt(letter, joined, env):
    import glob  # only here: a send's own look at the records needs none

    from postbag.guards import is_uuid

    session = joined.get("session")
    if not isinstance(session, str) or not is_uuid(session):
        return Receipt(UNKNOWN, "claude's join names no session to look in (a join from before postbag 1.2)")
    config = config_directory(env)
    transcripts = glob.glob(os.path.join(glob.escape(config), "projects", "*", f"{session}.jsonl"))
    taken = taken_in(newest(transcripts), "claude's transcript", letter, _took) if transcripts else None
    if taken is not None:
        return taken
    alive = live_session(config, session)
    if alive is False:  # another session may have bound the same socket since, and taken it there
        elsewhere = _taken_by_another(config, set(transcripts), letter)
        if elsewhere is not None:
            return elsewhere
    return _why_not(alive, config, letter)


def _taken_by_another(config, own, letter):
    """TAKEN, by a session other than the one that joined, where another transcript written
    since the letter was sent holds it: Claude Code checks no token off Windows, so a
    session restarted on the same socket takes what was sent to the old one. UNKNOWN
    where such a transcript cannot be read; None where none holds it."""
    import glob

    since = (moment(letter["at"]) or 0) - SLACK
    unreadable = None
    for path in glob.glob(os.path.join(glob.escape(config), "projects", "*", "*.jsonl")):
        try:
            if path in own or os.stat(path).st_mtime < since:
                continue
        except OSError:
            continue
        taken = taken_in(path, "another claude session's transcript", letter, _took)
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


def _took(record, letter):
    """Whether a transcript record is the session taking `letter`: its enqueue, or its turn."""
    if record.get("type") == "queue-operation" and record.get("operation") == "enqueue":
        return is_the_letter(record.get("content"), letter)
    return False


def _why_not(alive, config, letter):
    """What the records say of a letter the transcript does not hold, given `alive`, the
    session's file (False: it ended; None: unknown): the session ended, or its settings
    hold or refuse letters from other sessions; else nothing known. Settings changed since
    the letter was sent say what they say now, not what they said then."""
    if alive is False:
        return Receipt(NOT_TAKEN, "claude's session has ended, and its transcript holds no sign of the letter")
    cwd = alive["cwd"] if alive else None
    setting = inbound_setting(config, cwd)
    sent = moment(letter["at"])
    if sent is not None and _changed_since(config, cwd, sent + 1):  # the ledger's time is to the second
        return Receipt(
            UNKNOWN,
            f"claude's transcript holds no sign of the letter, and claude's settings now say crossSessionInbound "
            f"{setting}, changed since it was sent: what they said then is not recorded",
        )
    if setting == "refuse":
        return Receipt(NOT_TAKEN, REFUSED)
    if setting == "hold":
        return Receipt(NOT_TAKEN, HELD)
    return Receipt(UNKNOWN, "claude's transcript holds no sign of the letter (yet), and its records say nothing of why")


REFUSED = "claude's settings refuse letters from other sessions (crossSessionInbound refuse): the session drops them"
HELD = (
    "claude's settings hold letters from other sessions for the person's review (crossSessionInbound hold): "
    "unless approved in that session, a held letter is dropped after dialogExpiry, five minutes by default"
)


def refused_at_once(joined, env):
    """What a send can say at once of a letter to a session whose settings will not let it
    take letters from other sessions; None otherwise."""
    config = config_directory(env)
    session = joined.get("session")
    alive = live_session(config, session) if isinstance(session, str) else None
    setting = inbound_setting(config, alive["cwd"] if alive else None)
    return {"refuse": f"but {REFUSED}", "hold": f"but {HELD}"}.get(setting)


def reachability(joined, env):
    """Whether the session behind the door `joined` can take a letter now, in words, from
    the same records a receipt reads."""
    from postbag.guards import is_uuid

    session = joined.get("session")
    if not isinstance(session, str) or not is_uuid(session):
        return "whether claude can take a letter now cannot be told: its join names no session (a join from before 1.2)"
    config = config_directory(env)
    alive = live_session(config, session)
    if alive is False:
        return "claude cannot take a letter now: its session has ended; start Claude again, and let it join"
    setting = inbound_setting(config, alive["cwd"] if alive else None)
    if setting == "refuse":
        return f"claude will not take a letter now: {REFUSED}"
    if setting == "hold":
        return f"claude will not act on a letter at once: {HELD}"
    if alive is None:
        return "whether claude can take a letter now cannot be told: its client keeps no session files here"
    return "claude can take a letter now: its session runs, and its settings let letters from other sessions in"


def config_directory(env):
    named = env.get("CLAUDE_CONFIG_DIR")
    return named or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".claude")


def live_session(config, session):
    """The session file of the running session `session`, False when it has none (the
    session has ended), or None when that cannot be told (no session files here)."""
    directory = os.path.join(config, "sessions")
    try:
        names = os.listdir(directory)
    except OSError:
        return None
    for name in names:
        if not name.endswith(".json"):
            continue
        record = _json_file(os.path.join(directory, name))
        if isinstance(record, dict) and record.get("sessionId") == session:
            pid = record.get("pid")
            return record if type(pid) is int and _running(pid) else False
    return False


def inbound_setting(config, cwd):
    """The crossSessionInbound that applies to a session working in `cwd` (None: unknown),
    "accept" where nothing sets it."""
    for path in MANAGED_SETTINGS:
        managed = _setting(path)
        if managed is not None:
            return managed
    found = [_setting(path) for path in _own_settings(config, cwd)]
    return max((value for value in found if value is not None), key=_STRICTNESS.__getitem__, default="accept")


def _changed_since(config, cwd, seconds):
    """Whether a settings file that decides crossSessionInbound for a session in `cwd` was
    written after `seconds` (since the epoch)."""
    paths = [*MANAGED_SETTINGS, *_own_settings(config, cwd)]
    for path in paths:
        try:
            if os.stat(path).st_mtime > seconds:
                return True
        except OSError:
            continue
    return False


def _own_settings(config, cwd):
    """The person's settings file, and the project's two for a session working in `cwd`."""
    project = [os.path.join(cwd, ".claude", name) for name in ("settings.json", "settings.local.json")] if cwd else []
    return [os.path.join(config, "settings.json"), *project]


def _setting(path):
    settings = _json_file(path)
    if not isinstance(settings, dict) or "crossSessionInbound" not in settings:
        return None
    value = settings["crossSessionInbound"]
    return value if value in _STRICTNESS else "hold"  # Claude Code holds while a value is not one it knows


def _json_file(path):
    try:
        with open(path, "rb") as file:
            return json.loads(file.read(1 << 20))
    except (OSError, ValueError):
        return None


def _running(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it runs
        return True
    return True
