"""Knocking on a peer's native door: Claude Code's inbox socket, or `codex queue`.

A knock either fails before anything was handed over, when the sender can simply try
again after the peer rejoins, or after the door may have taken the letter, when a second
send could deliver it twice. The two refusals say which. A door that took the letter has
only been handed it: neither door says whether the agent read it.
"""

import errno
import json
import os
import sys

from postbag.guards import is_vendor_session_variable
from postbag.refusal import Refusal

TIMEOUT = 30.0
APP_CODEX = "/Applications/ChatGPT.app/Contents/Resources/codex"
# sun_path holds 104 bytes on macOS and 108 on Linux, the terminating NUL included.
SOCKET_PATH_MAX = 103 if sys.platform == "darwin" else 107
# What `codex queue` says on stderr, in our words. Its own words carry the thread id, so
# they are never shown.
_CODEX_SAYS = (
    ("no rollout found", "codex knows no such thread"),
    ("no active session found", "codex knows no such thread"),
)


def knock(peer, door, envelope, env, *, sandboxed=False, wake=False):  # noqa: PLR0913
    """Hand `envelope` to `peer` through its recorded door, from inside Codex's sandbox if
    `sandboxed`; return once it was taken. With `wake`, codex's daemon is asked to load
    the thread, and what came of that is returned (codex_records.WOKEN ...); else None."""
    if peer == "claude":
        _knock_claude(door["socket"], door["token"], envelope, sandboxed)
        return None
    return _knock_codex(door["thread"], envelope, env, wake)


def not_answered(peer, reason):
    return Refusal(
        f"{peer}'s door did not answer ({reason}); if its session restarted it must run: postbag join {peer}"
    )


def maybe_delivered(peer, reason):
    return Refusal(
        f"{peer}'s door failed after taking the letter ({reason}): it may already have reached {peer}, "
        f"and it was not recorded; do not resend before checking {peer}'s session and postbag read"
    )


def _knock_claude(path, token, envelope, sandboxed):
    # The C module beneath `socket`, which would cost a send about 10 ms: it builds enums of
    # every address family and flag, and imports selectors.
    from _socket import AF_UNIX, SOCK_STREAM, socket

    auth = {"type": "auth", "token": token}
    message = {"type": "user", "message": {"role": "user", "content": envelope}}
    payload = (json.dumps(auth) + "\n" + json.dumps(message) + "\n").encode()
    inbox = socket(AF_UNIX, SOCK_STREAM)
    try:
        inbox.settimeout(TIMEOUT)
        try:
            _connect(inbox, path)
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


def _knock_codex(thread, envelope, env, wake):
    import subprocess

    argv = [find_codex(env), "queue", *(["--resume"] if wake else []), "--thread", thread, "--message", envelope]
    try:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,  # read to tell failures apart, never shown: it can hold the thread id
            env=child_environment(env),
            start_new_session=True,
        )
    except OSError as error:
        raise _start_failure(error) from None
    status, said = _finish(child, TIMEOUT)
    if status is None:
        _stop(child)
        raise maybe_delivered("codex", f"codex queue gave no answer within {TIMEOUT:g} s")
    if status < 0:
        raise maybe_delivered("codex", f"codex queue was killed by {_signal_name(-status)}")
    if status > 0:
        # codex queue stores the letter last, once the thread was found: a failure means
        # it took nothing, and what helps is a fresh door.
        raise not_answered("codex", f"codex queue exited {status}{_codex_said(said)}")
    return _resumed(said) if wake else None


def _resumed(stderr):
    """What came of the resume, from the warning codex queue prints when it stored the letter
    but could not have its daemon load the thread (it names the thread: never shown)."""
    from postbag.codex_records import LOADED_ELSEWHERE, NO_DAEMON_ANSWER, NOT_WOKEN, WOKEN

    text = stderr.decode(errors="replace")
    if "could not resume thread" not in text:
        return WOKEN
    if "start a local daemon" in text:
        return NO_DAEMON_ANSWER
    if "already has an active writer" in text:
        return LOADED_ELSEWHERE
    return NOT_WOKEN


def _finish(child, seconds):
    """The child's exit status and the start of what it wrote on stderr, or (None, ...)
    past `seconds`. A thread blocks in waitpid and wakes this one through a pipe the moment
    the child exits: Popen.wait(timeout) would poll with growing sleeps, and a helper of
    codex's that kept stderr open would hide the exit."""
    import select
    import time

    deadline = time.monotonic() + seconds
    wake, woken = os.pipe()

    def wait_for_exit():
        child.wait()
        try:
            os.write(woken, b"x")
        except OSError:  # the knock gave up waiting and closed its end
            pass
        finally:
            os.close(woken)

    start_beside_the_append(wait_for_exit)
    said, streams = b"", [child.stderr.fileno(), wake]
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            ready = select.select(streams, [], [], remaining)[0]
            if not ready:
                return None, said
            if wake in ready:
                if len(streams) == 2:  # stderr still open: take what the exit left in it
                    said += _rest(streams[0])
                return child.returncode, said[:4096]
            chunk = os.read(streams[0], 65536)
            if chunk:
                said = (said + chunk)[:4096]  # enough to tell failures apart, bounded whatever it prints
            else:
                streams.pop(0)  # codex closed stderr; its exit follows
        return None, said
    finally:
        child.stderr.close()
        os.close(wake)  # the writing end stays with the thread, which may still be waiting


def start_beside_the_append(work):
    """Start `work` on a daemon thread born with every signal blocked: a signal sent to the
    process must reach the main thread, which holds it back while it appends. Taken by
    another thread, it would end the process halfway through the record. The thread."""
    import threading

    from postbag.signals import Held

    with Held():
        thread = threading.Thread(target=work, daemon=True)
        thread.start()
    return thread


def _rest(stream):
    """What is left in a pipe whose writer has exited, without waiting for a helper that kept it."""
    os.set_blocking(stream, False)
    try:
        return os.read(stream, 4096)
    except BlockingIOError:
        return b""


def _codex_said(stderr):
    text = stderr.decode(errors="replace").lower()
    for words, meaning in _CODEX_SAYS:
        if words in text:
            return f": {meaning}"
    return ""


def _signal_name(number):
    import signal

    try:
        return f"signal {number} ({signal.Signals(number).name})"
    except ValueError:
        return f"signal {number}"


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


def child_environment(env):
    """`env` less every vendor session variable and the ledger's path: a token must not reach
    the other vendor."""
    hidden = is_vendor_session_variable
    return {name: value for name, value in env.items() if name != "POSTBAG_LEDGER" and not hidden(name)}


def find_codex(env):
    """The codex binary: POSTBAG_CODEX (a path, or a name PATH finds), else the one inside
    the ChatGPT app, else PATH's codex."""
    search = env.get("PATH", os.defpath)
    named = env.get("POSTBAG_CODEX")
    if named:
        found = which(named, search)
        if found is None:
            raise Refusal(f"no codex at {named}; set POSTBAG_CODEX")
        return os.path.abspath(found)
    if os.path.isfile(APP_CODEX) and os.access(APP_CODEX, os.X_OK):
        return APP_CODEX
    found = which("codex", search)
    if found is None:
        raise Refusal("no codex on PATH; set POSTBAG_CODEX")
    return os.path.abspath(found)


def which(name, search):
    """The program `name` (a path, or a name looked for in `search`, a PATH), or None, as
    shutil.which finds it on a POSIX system; importing shutil would cost a send 5 ms."""
    if os.path.dirname(name):
        return name if _is_program(name) else None
    for directory in search.split(os.pathsep) if search else ():
        candidate = os.path.join(directory, name)
        if _is_program(candidate):
            return candidate
    return None


def _is_program(path):
    return os.path.exists(path) and os.access(path, os.X_OK) and not os.path.isdir(path)
