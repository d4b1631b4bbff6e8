"""Claude Code's door, and its records: which variables are its door, how a letter is
knocked through it, what its MCP door's send tool is called, and what its records say of
a letter (receipts) and of whether its session can take one now (`open`). Together with
how its session is told from the environment (__init__.py), this is all postbag knows of
Claude Code; the room offers it all, for peers.py, from here.

The door: each session listens on an inbox socket and exports its path and token to its
commands and MCP servers; a letter is two JSON lines written there.
The records, read-only: Claude Code 2.1.248 to 2.1.332 (PROVEN), under its config directory
(CLAUDE_CONFIG_DIR, else ~/.claude):
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

import errno
import os
import sys

from postbag import children
from postbag.claude import NAME, NO_INBOX, SESSION, SOCKET, TOKEN, inside, without_an_inbox
from postbag.doors import maybe_delivered, not_answered
from postbag.fields import is_door_field, is_uuid
from postbag.homes import home_of
from postbag.receipts import (
    NOT_TAKEN,
    SLACK,
    TAKEN,
    UNKNOWN,
    LookBeside,
    Receipt,
    find_back,
    is_the_letter,
    moment,
    newest,
    taken_in,
    unproven,
)
from postbag.refusal import Refusal

# The versions the real-client tier proves postbag on, oldest and newest (tests/clients/pins.py
# takes its pairs from here); an unknown receipt says so of records from outside them.
PROVEN = ("2.1.248", "2.1.332")
# The first Claude Code whose crossSessionInbound hold keeps a letter from the model (2.1.270
# and older, run with -p, hand it over all the same); accept and refuse work across PROVEN.
HOLDS_SINCE = "2.1.271"
# The MCP door's send tool as Claude Code names it to its model (mcp__SERVER__TOOL), the
# server registered under the name postbag, as README's registration does.
SEND_TOOL = "the tool mcp__postbag__send"
# sun_path holds 104 bytes on macOS and 108 on Linux, the terminating NUL included.
SOCKET_PATH_MAX = 103 if sys.platform == "darwin" else 107


def door_of_session(env):
    """What `join` records of the session `env` is: its socket and token, and its id, by
    which its transcript is found."""
    if without_an_inbox(env):
        raise Refusal(NO_INBOX)
    if not inside(env):
        raise Refusal(f"join {NAME} from inside a {NAME} session")
    door = {"socket": env[SOCKET], "token": env[TOKEN]}
    for field, name in (("socket", SOCKET), ("token", TOKEN)):
        if not is_door_field(door[field]):
            raise Refusal(f"{name} is not valid text")
    door["socket"] = os.path.abspath(door["socket"])
    _require_a_socket(door["socket"])
    session = env.get(SESSION)
    if session and is_door_field(session):
        door["session"] = session
    return door


def _require_a_socket(path):
    """Refuse to record an inbox socket that is not there: no one would ever bind it."""
    import os
    import stat

    try:
        is_socket = stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError as error:
        why = "it does not exist" if isinstance(error, FileNotFoundError) else error.strerror
    else:
        why = None if is_socket else "it is not a socket"
    if why is not None:
        raise Refusal(
            f"Claude Code named an inbox socket that is not there ({why}); no letter could reach this session"
        )


def knock(door, envelope, env, *, sandboxed=False, wake=False):
    """Write `envelope` to the session's inbox socket, from inside Codex's sandbox if
    `sandboxed`; return once it was taken (None: Claude wakes its session itself)."""
    # The C module beneath `socket`, which would cost a send about 10 ms: it builds enums of
    # every address family and flag, and imports selectors.
    import json  # here: at the top it would cost the human's verbs, refused before the rest loads, 9 ms
    from _socket import AF_UNIX, SOCK_STREAM, socket

    auth = {"type": "auth", "token": door["token"]}
    message = {"type": "user", "message": {"role": "user", "content": envelope}}
    payload = (json.dumps(auth) + "\n" + json.dumps(message) + "\n").encode()
    inbox = socket(AF_UNIX, SOCK_STREAM)
    try:
        inbox.settimeout(children.TIMEOUT)
        try:
            _connect(inbox, door["socket"])
        except OSError as error:
            if error.errno in (errno.EPERM, errno.EACCES) and sandboxed:
                raise Refusal(
                    f"Codex's sandbox blocks the connection to claude's socket ({error.strerror}); nothing was "
                    "handed over. The human can allow it with network access for the workspace sandbox "
                    "(sandbox_workspace_write.network_access = true)"
                ) from None
            raise not_answered("claude", _socket_failure(error)) from None
        try:
            inbox.sendall(payload)
        except OSError as error:
            raise maybe_delivered("claude", _socket_failure(error)) from None
    finally:
        inbox.close()


def _connect(inbox, path):
    """Connect to `path`, reaching one too long to name through its directory's descriptor
    (/proc/self/fd, on Linux): the working directory stays, for threads beside the knock
    read files by relative paths. Claude Code binds no longer path where there is no /proc."""
    import stat

    if not stat.S_ISSOCK(os.stat(path).st_mode):
        raise OSError(errno.ENOTSOCK, "not a socket")
    if len(os.fsencode(path)) <= SOCKET_PATH_MAX:
        inbox.connect(path)
        return
    directory = os.open(os.path.dirname(path), os.O_RDONLY | os.O_CLOEXEC)
    try:
        inbox.connect(f"/proc/self/fd/{directory}/{os.path.basename(path)}")
    finally:
        os.close(directory)


def _socket_failure(error):
    if isinstance(error, TimeoutError) or error.errno == errno.ETIMEDOUT:
        return f"no answer within {children.TIMEOUT:g} s"
    if isinstance(error, FileNotFoundError):
        return "its socket is gone"
    if error.errno == errno.ENOTSOCK:
        return "not a socket"
    if error.errno == errno.ECONNREFUSED:
        return "connection refused"
    return error.strerror or str(error)


# The strictest setting wins, as Claude Code applies them; an unknown value holds.
_STRICTNESS = {"accept": 0, "hold": 1, "refuse": 2}
MANAGED_SETTINGS = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)


def receipt(letter, joined, env):
    import glob  # only here: a send's own look at the records needs none

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
    found = _why_not(alive, config, letter)
    return found.noting(unproven(NAME, version_of(newest(transcripts)), PROVEN)) if transcripts else found


def version_of(transcript):
    """The Claude Code version that wrote the transcript at `transcript` last, or None."""
    found, _ = find_back(transcript, "claude's transcript", b'"version"', _has_version, None, _BLOCK_BACK)
    return None if found is None else found["version"]


def _has_version(record):
    return isinstance(record.get("version"), str)


_BLOCK_BACK = 1 << 20  # each line carries the version: the last megabyte holds one


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


def look_beside(joined, env, wakes):
    """What a send says beside its knock, read while the door works: whether the session's
    settings keep the letter out (`resume` is false: there is no thread to wake)."""
    return LookBeside(refused_at_once, joined, env)


def refused_at_once(joined, env):
    """What a send can say at once of a letter to a session whose settings will not let it
    take letters from other sessions; None otherwise."""
    config = config_directory(env)
    session = joined.get("session")
    alive = live_session(config, session) if isinstance(session, str) else None
    setting = inbound_setting(config, alive["cwd"] if alive else None)
    return {"refuse": f"but {REFUSED}", "hold": f"but {HELD}"}.get(setting)


def reachability(joined, env, wakes=True):
    """Whether the session behind the door `joined` can take a letter now, in words, from
    the same records a receipt reads."""
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
    return named or os.path.join(home_of(env), ".claude")


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
    import json  # here: at the top it would cost the human's verbs, refused before the rest loads, 9 ms

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
