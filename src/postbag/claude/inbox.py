"""Claude Code's door: each session listens on an inbox socket and exports its path and token to its commands
and MCP servers; a letter is two JSON lines written there, an auth frame with the token, then a user message.

The session answers nothing on that connection. Where it does not simply take a letter (it holds it for the
person's review, refuses it, or drops it at its inbox), it says so at once in a peer_message_status frame to the
sender's own socket, when the frame names one ("from": "uds:PATH") beside the inbox and the process that listens
there is the one that wrote. So a knock that means to hear Claude's word listens, for a moment, on a socket of its
own in the inbox's directory, and names it.
"""

import errno
import os

from postbag import processes
from postbag.doors import maybe_delivered, not_answered
from postbag.json_values import dumps
from postbag.refusal import Refusal
from postbag.vendor_files import json_of, record, text

# sun_path holds 104 bytes on macOS and 108 on Linux, the terminating NUL included.
SOCKET_PATH_MOST = {"darwin": 103}
SOCKET_PATH_MOST_ELSEWHERE = 107
# What Claude says of a letter, in a peer_message_status frame's "status".
HELD, REFUSED, DROPPED = "held", "refused", "dropped"
_STATUSES = ("held", "denied", "expired", "delivered", "refused", "dropped")
# Why Claude dropped a letter at its inbox, in the frame's "drop_reason".
DROP_REASONS = {
    "rate-limited": "its limit of letters from one sender at a time",
    "duplicate": "the same text from the same sender within 30 s",
    "queue-full": "its queue of waiting letters was full",
    "hop-loop": "a relay loop",
    "hop-runaway": "a relay chain too long",
    "unverified": "a sender it could not verify",
}
_FRAME_MOST = 64 << 10  # bytes of a frame read from Claude: a status is a few hundred
# Claude Code takes about 30 letters at once from one sender, then one every two seconds, and drops the rest at its
# inbox, saying nothing of them to a sender that names no socket of its own (2.1.332, measured: docs/doors.md). A
# sender is a process, and the MCP server is one process for all of a session's letters: so a process throttles its
# knocks to the rate Claude counts them at.
BURST, REFILL = 30, 0.5  # letters, and letters a second
# The rate a process keeps to: a little under Claude's, whose clock starts when it reads a letter, a moment after
# the knock (at 0.5 exactly, one letter in 33 was still dropped).
KEPT_TO = 0.9 * REFILL
# And the burst it starts with, a few letters under Claude's: Claude's clock starts when it reads the first letter,
# which a busy machine delays, and a letter it reads later than the one before finds that much less refilled (with
# the whole burst, 33 letters lost one on a loaded machine). Five letters are ten seconds of lag.
HEADROOM = 5


class Throttle:
    """The letters this process may knock with at once, as Claude Code counts a sender's."""

    def __init__(self):
        self.tokens, self.last = float(BURST - HEADROOM), None

    def wait(self):
        """Wait, where Claude would drop the next letter, until it would take it."""
        import time

        now = time.monotonic()
        if self.last is not None:
            self.tokens = min(BURST - HEADROOM, self.tokens + (now - self.last) * KEPT_TO)
        if self.tokens < 1:
            time.sleep((1 - self.tokens) / KEPT_TO)
            now, self.tokens = time.monotonic(), 1.0
        self.last, self.tokens = now, self.tokens - 1


def knock(door, envelope, *, here, sandbox=None, hear=False):
    """Write `envelope` to the inbox socket of `door`, from inside `sandbox` (the Sandbox around the sender, or
    None). With `hear`, name a socket of the knock's own on which Claude can say what it did with the letter, and
    return the StatusListener there (None where none could be made); else None."""
    most = SOCKET_PATH_MOST.get(here.platform, SOCKET_PATH_MOST_ELSEWHERE)
    listener = StatusListener.beside(door["socket"], most) if hear else None
    if listener is None:  # a knock that names its own socket is a sender of its own
        here.throttles.setdefault("claude", Throttle()).wait()
    auth = {"type": "auth", "token": door["token"]}
    message = {"type": "user", "message": {"role": "user", "content": envelope}}
    if listener is not None:
        message |= {"from": f"uds:{listener.path}", "msg_id": listener.msg_id}
    payload = (dumps(auth) + "\n" + dumps(message) + "\n").encode()
    inbox = _stream_socket()
    try:
        inbox.settimeout(processes.TIMEOUT)
        try:
            _connect(inbox, door["socket"], most)
        except OSError as error:
            if error.errno in (errno.EPERM, errno.EACCES) and sandbox is not None:
                raise Refusal(
                    f"{sandbox.name} blocks the connection to claude's socket ({error.strerror}); "
                    f"nothing was handed over. {sandbox.allow_connecting}"
                ) from None
            raise not_answered("claude", _socket_failure(error)) from None
        try:
            inbox.sendall(payload)
        except OSError as error:
            raise maybe_delivered("claude", _socket_failure(error)) from None
    except Refusal:
        if listener is not None:
            listener.close()
        raise
    finally:
        inbox.close()
    return listener


class StatusListener:
    """A socket of the knock's own beside the inbox, where Claude says what it did with the letter; gone once heard."""

    def __init__(self, listener, path):
        self.listener, self.path, self.msg_id = listener, path, _uuid()

    @classmethod
    def beside(cls, inbox, most):
        """A StatusListener beside the socket `inbox`, or None where none can be made (its path longer than `most`,
        or a socket the system will not make, bind or listen on there)."""
        # The whole socket module, whose accept() the C one lacks: only a knock that hears pays for it.
        from socket import AF_UNIX, SOCK_STREAM, socket

        path = os.path.join(os.path.dirname(inbox), f"postbag-{os.getpid()}-{os.urandom(4).hex()}.sock")
        if len(os.fsencode(path)) > most:
            return None  # Claude would not reach it either
        listener = socket(AF_UNIX, SOCK_STREAM)
        try:
            listener.bind(path)
            os.chmod(path, 0o600)
            listener.listen(4)
        except OSError:
            listener.close()
            return None
        return cls(listener, path)

    def word(self, seconds):
        """What Claude said of the letter within `seconds`: (HELD, REFUSED or DROPPED, and
        for DROPPED its reason in words, or None), or (None, None) where it said nothing."""
        import time

        deadline = time.monotonic() + seconds
        try:
            while (left := deadline - time.monotonic()) > 0:
                self.listener.settimeout(left)
                try:
                    connection, _ = self.listener.accept()
                except (TimeoutError, OSError):
                    break
                said = _status_word(_frames(connection, deadline))
                if said is not None:
                    return said
            return None, None
        finally:
            self.close()

    def close(self):
        self.listener.close()
        try:
            os.unlink(self.path)
        except OSError:
            pass


def _frames(connection, deadline):
    """What `connection` wrote before it ended or `deadline` passed, at most _FRAME_MOST bytes, as lines."""
    import time

    data = b""
    try:
        while len(data) < _FRAME_MOST and (left := deadline - time.monotonic()) > 0:
            connection.settimeout(left)
            chunk = connection.recv(_FRAME_MOST)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    finally:
        connection.close()
    return data[:_FRAME_MOST].split(b"\n")


def _status_word(lines):
    """Claude's word in a peer_message_status frame among `lines`, as StatusListener.word gives it; None without one."""
    for line in lines:
        try:
            frame = record(json_of(line))
        except ValueError:
            continue
        status = text(frame, "status")
        if frame.get("type") != "control" or frame.get("action") != "peer_message_status" or status not in _STATUSES:
            continue
        if (status == "expired" and frame.get("status_detail") == "refused") or status == REFUSED:
            return REFUSED, None
        if status == DROPPED:
            return DROPPED, DROP_REASONS.get(text(frame, "drop_reason"))
        if status == HELD:
            return HELD, None
    return None


def _uuid():
    """A random UUID (version 4) for a frame's msg_id: importing uuid would slow a send (docs/performance.md)."""
    raw = bytearray(os.urandom(16))
    raw[6], raw[8] = (raw[6] & 0x0F) | 0x40, (raw[8] & 0x3F) | 0x80
    hexed = raw.hex()
    return f"{hexed[:8]}-{hexed[8:12]}-{hexed[12:16]}-{hexed[16:20]}-{hexed[20:]}"


def _connect(inbox, path, most):
    """Connect to `path`, one longer than `most` bytes through its directory's descriptor (/proc/self/fd, on Linux):
    no chdir, for threads beside the knock read relative paths. Claude Code binds no longer path without /proc."""
    import stat

    if not stat.S_ISSOCK(os.stat(path).st_mode):
        raise OSError(errno.ENOTSOCK, "not a socket")
    if len(os.fsencode(path)) <= most:
        inbox.connect(path)
        return
    directory = os.open(os.path.dirname(path), os.O_RDONLY | os.O_CLOEXEC)
    try:
        inbox.connect(f"/proc/self/fd/{directory}/{os.path.basename(path)}")
    finally:
        os.close(directory)


def _stream_socket():
    """A new Unix stream socket, from the private C module beneath `socket`: the whole socket module would cost a
    send about 8 ms (docs/performance.md). Where `_socket` is missing, lacks these names, or makes no socket of these
    arguments, `socket` serves (tests/test_private_modules.py makes each happen); `socket` imports `_socket`
    itself, so where that is broken, so is `socket`."""
    try:
        import _socket

        return _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except (ImportError, AttributeError, TypeError):
        import socket

        return socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)


def _socket_failure(error):
    if isinstance(error, TimeoutError) or error.errno == errno.ETIMEDOUT:
        return f"no answer within {processes.TIMEOUT:g} s"
    if isinstance(error, FileNotFoundError):
        return "its socket is gone"
    if error.errno == errno.ENOTSOCK:
        return "not a socket"
    if error.errno == errno.ECONNREFUSED:
        return "connection refused"
    return error.strerror or str(error)


def require_a_socket(path):
    """Refuse to record an inbox socket that is not there: no one would ever bind it."""
    import stat

    try:
        if stat.S_ISSOCK(os.stat(path).st_mode):
            return
        why = "it is not a socket"
    except OSError as error:
        why = "it does not exist" if isinstance(error, FileNotFoundError) else error.strerror
    raise Refusal(f"Claude Code named an inbox socket that is not there ({why}); no letter could reach this session")
