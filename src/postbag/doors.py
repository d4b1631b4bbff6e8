"""Knocking on a peer's native door: Claude Code's inbox socket, or `codex queue`.

A knock either fails before anything was handed over, when the sender can simply try
again after the peer rejoins, or after the door may have taken the letter, when a second
send could deliver it twice. The two refusals say which.
"""

import errno
import json
import os
import sys

from postbag.guards import SESSION_VARIABLES, Refusal
from postbag.transcript import visible

TIMEOUT = 30.0
APP_CODEX = "/Applications/ChatGPT.app/Contents/Resources/codex"
# sun_path holds 104 bytes on macOS and 108 on Linux, the terminating NUL included.
SOCKET_PATH_MAX = 103 if sys.platform == "darwin" else 107


def knock(peer, door, envelope):
    """Hand `envelope` to `peer` through its recorded door; return once it was taken."""
    if peer == "claude":
        _knock_claude(door["socket"], door["token"], envelope)
    else:
        _knock_codex(door["thread"], envelope)


def not_answered(peer, reason):
    return Refusal(
        f"{peer}'s door did not answer ({reason}); if its session restarted it must run: postbag join {peer}"
    )


def maybe_delivered(peer, reason):
    return Refusal(
        f"{peer}'s door failed after taking the letter ({reason}): it may already have reached {peer}, "
        f"and it was not recorded; do not resend before checking {peer}'s session and postbag read"
    )


def _knock_claude(path, token, envelope):
    import socket

    auth = {"type": "auth", "token": token}
    message = {"type": "user", "message": {"role": "user", "content": envelope}}
    payload = (json.dumps(auth) + "\n" + json.dumps(message) + "\n").encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as inbox:
        inbox.settimeout(TIMEOUT)
        try:
            _connect(inbox, path)
        except OSError as error:
            raise not_answered("claude", _socket_failure(error)) from None
        try:
            inbox.sendall(payload)
        except OSError as error:
            raise maybe_delivered("claude", _socket_failure(error)) from None


def _connect(inbox, path):
    """Connect to `path`, reaching it from its directory when it is too long to name."""
    import stat

    if not stat.S_ISSOCK(os.stat(path).st_mode):
        raise OSError(errno.ENOTSOCK, "not a socket")
    if len(os.fsencode(path)) <= SOCKET_PATH_MAX:
        inbox.connect(path)
        return
    # A short-lived, single-threaded process may borrow the working directory.
    here = os.open(".", os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.chdir(os.path.dirname(path))
        inbox.connect(os.path.basename(path))
    finally:
        os.fchdir(here)
        os.close(here)


def _socket_failure(error):
    if isinstance(error, TimeoutError) or error.errno == errno.ETIMEDOUT:
        return f"no answer within {TIMEOUT:g} s"
    if isinstance(error, FileNotFoundError):
        return "its socket is gone"
    if error.errno == errno.ENOTSOCK:
        return "not a socket"
    if error.errno == errno.ECONNREFUSED:
        return "connection refused"
    return error.strerror or str(error)


def _knock_codex(thread, envelope):
    import subprocess

    argv = [find_codex(os.environ), "queue", "--thread", thread, "--message", envelope]
    quiet = subprocess.DEVNULL  # codex's output can echo the thread id or undecodable bytes
    try:
        child = subprocess.Popen(
            argv, stdin=quiet, stdout=quiet, stderr=quiet, env=_child_environment(), start_new_session=True
        )
    except OSError as error:
        raise _start_failure(error) from None
    try:
        status = child.wait(TIMEOUT)
    except subprocess.TimeoutExpired:
        _stop(child)
        raise maybe_delivered("codex", f"codex queue gave no answer within {TIMEOUT:g} s") from None
    if status:
        how = f"exit status {status}" if status > 0 else f"killed by signal {-status}"
        raise maybe_delivered("codex", f"codex queue ended with {how}")


def _start_failure(error):
    if error.errno == errno.E2BIG:
        return Refusal("the letter is too long for the system to pass to codex queue; shorten the letter")
    return Refusal(f"codex queue could not start ({error.strerror}); set POSTBAG_CODEX to a working codex")


def _stop(child):
    import signal

    try:
        os.killpg(child.pid, signal.SIGKILL)  # codex may have started helpers of its own
    except OSError:
        child.kill()
    child.wait()


def _child_environment():
    """Our environment less every session variable: a token must not reach the other vendor."""
    hidden = (*SESSION_VARIABLES, "POSTBAG_LEDGER")
    return {name: value for name, value in os.environ.items() if name not in hidden}


def find_codex(env):
    """The codex binary: POSTBAG_CODEX, else the one inside the ChatGPT app, else PATH's."""
    named = env.get("POSTBAG_CODEX")
    if named:
        if _is_program(named):
            return os.path.abspath(named)
        raise Refusal(f"no codex at {visible(named)}; set POSTBAG_CODEX")
    if _is_program(APP_CODEX):
        return APP_CODEX
    import shutil

    found = shutil.which("codex", path=env.get("PATH", os.defpath))
    if found is None:
        raise Refusal("no codex on PATH; set POSTBAG_CODEX")
    return os.path.abspath(found)


def _is_program(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)
