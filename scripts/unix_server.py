"""A listening AF_UNIX socket served on a thread of its own.

It stands in for an agent session's door in the demo, the benchmark and the tests. Each
connection goes to `handle`, which owns it from then on.
"""

import os
import socket
import threading


class UnixServer:
    def __init__(self, path, handle, backlog=16):
        self.path = path
        self._handle = handle
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _bind(self._socket, path)
        self._socket.listen(backlog)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:  # closed
                return
            self._handle(connection)

    def close(self):
        """Stop listening, as a session does when it exits; the socket file stays behind."""
        try:
            self._socket.shutdown(socket.SHUT_RDWR)  # wakes the accept() blocked on the thread
        except OSError:
            pass
        self._thread.join(10)
        self._socket.close()


def _bind(server, path):
    # Bound from inside its directory, a socket may have a path longer than sun_path holds
    # (104 bytes on macOS, whose $TMPDIR alone is long).
    here = os.open(".", os.O_RDONLY)
    try:
        os.chdir(os.path.dirname(path))
        server.bind(os.path.basename(path))
    finally:
        os.fchdir(here)
        os.close(here)
