"""A client of `postbag mcp` that writes the wire format by hand: one JSON-RPC message a
line on the server's stdin, its replies read line by line from its stdout. The official
SDKs prove the protocol (test_mcp.py); this sends what they never would (broken JSON,
oversized lines, stray notifications, an end of input in the middle of a call) and,
with less overhead than theirs, times calls for the benchmark."""

import json
import os
import select
import subprocess

WAIT = 30.0  # generous: a wait ends as soon as the reply is there


class RawServer:
    """`argv` (a postbag mcp command) started with `env`, ready for requests."""

    def __init__(self, argv, env, *, cwd=None):
        self.process = subprocess.Popen(
            argv, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self._asked = 0
        self._pending = b""

    def handshake(self, version="2025-06-18"):
        """initialize, then the initialized notification, as both clients do; the result."""
        result = self.call("initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT})
        self.notify("notifications/initialized")
        return result

    def call(self, method, params=None):
        """Send a request and return its whole reply (result or error)."""
        self._asked += 1
        message = {"jsonrpc": "2.0", "id": self._asked, "method": method}
        if params is not None:
            message["params"] = params
        self.write(json.dumps(message).encode() + b"\n")
        return self.reply()

    def tool(self, name, arguments=None, meta=None):
        """A tools/call's result: (text, isError)."""
        params = {"name": name, "arguments": arguments or {}}
        if meta is not None:
            params["_meta"] = meta
        result = self.call("tools/call", params)["result"]
        [content] = result["content"]
        return content["text"], result["isError"]

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}
        self.write(json.dumps(message).encode() + b"\n")

    def write(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def reply(self, timeout=WAIT):
        """The next line the server writes, parsed; AssertionError if none comes in time."""
        while b"\n" not in self._pending:
            ready = select.select([self.process.stdout], [], [], timeout)[0]
            if not ready:
                raise AssertionError(f"postbag mcp gave no reply within {timeout:g} s")
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            if not chunk:
                raise AssertionError(f"postbag mcp closed its output; stderr: {self.process.stderr.read()!r}")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return json.loads(line)

    def close(self, timeout=WAIT):
        """Close its input, as a client does when its session ends; the exit status."""
        if not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self.process.stdout.close()
            self.process.stderr.close()


CLIENT = {"name": "postbag-tests", "version": "0"}
