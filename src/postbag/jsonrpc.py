"""JSON-RPC 2.0 as the MCP server speaks it: one message a line on a byte stream, each
request answered in turn. One error type, JsonRpcError, carries its code; answer() turns
it into the error reply, in this one place.
"""

import json

# The longest message read whole: a letter at its size cap, as escaped as JSON can make
# it, with room to spare. A longer line is skipped, and answered as an invalid request.
LONGEST = 1 << 20
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


class JsonRpcError(Exception):
    """A request that gets an error reply: `code` (one of the codes above) and `message`."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


def answer(line, methods):
    """The reply to one line from the client (None: a line longer than LONGEST), or None
    for a notification or a reply. `methods` maps a method's name to what answers its
    params with a result, or raises JsonRpcError."""
    message = _message(line)
    if isinstance(message, JsonRpcError):
        return _error(None, message)
    if "method" not in message:
        return None  # a reply: this server asks nothing, so it expects none
    if "id" not in message:
        return None  # a notification: never answered, whatever it holds
    asked, method, params = message["id"], message["method"], message.get("params", {})
    if type(asked) not in (str, int) or message.get("jsonrpc") != "2.0" or type(method) is not str:
        known = asked if type(asked) in (str, int) else None
        return _error(known, JsonRpcError(INVALID_REQUEST, "not a JSON-RPC 2.0 request"))
    try:
        if not isinstance(params, dict):
            raise JsonRpcError(INVALID_PARAMS, "params must be an object")
        handler = methods.get(method)
        if handler is None:
            raise JsonRpcError(METHOD_NOT_FOUND, "method not found")
        return {"jsonrpc": "2.0", "id": asked, "result": handler(params)}
    except JsonRpcError as error:
        return _error(asked, error)


def _message(line):
    """The JSON object on `line`, or the JsonRpcError it earns."""
    if line is None:
        return JsonRpcError(INVALID_REQUEST, f"a message is at most {LONGEST:,} bytes")
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return JsonRpcError(PARSE_ERROR, "not JSON")
    if not isinstance(message, dict):
        return JsonRpcError(INVALID_REQUEST, "a message is one JSON object; batches are not taken")
    return message


def _error(asked, error):
    return {"jsonrpc": "2.0", "id": asked, "error": {"code": error.code, "message": error.message}}


def lines(stream):
    """Each line of `stream`, or None for one longer than LONGEST, which is skipped unread."""
    while line := stream.readline(LONGEST + 1):
        if len(line) > LONGEST:
            while line and not line.endswith(b"\n"):
                line = stream.readline(LONGEST)
            yield None
        elif line.strip():
            yield line


def write(stream, reply):
    """Write `reply` as one line, and flush it."""
    stream.write(json.dumps(reply).encode() + b"\n")
    stream.flush()
