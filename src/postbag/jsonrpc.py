"""JSON-RPC 2.0 as the MCP server speaks it: one message a line on a byte stream, each request answered in turn,
or, where the session takes them, a batch of them answered as one. One error type, JsonRpcError, carries its code;
answer() turns it into the error reply, in this one place.
"""

import json

# The longest message read whole: a letter at its size cap, as escaped as JSON can make it, with room to spare. A
# longer line is skipped, and answered as an invalid request, with its id where its first HEAD_MOST bytes hold one.
LONGEST = 1 << 20
HEAD_MOST = 64 << 10
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


class JsonRpcError(Exception):
    """A request that gets an error reply: `code` (one of the codes above) and `message`."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


class TooLong:
    """A line longer than LONGEST, of which only its `head` (HEAD_MOST bytes) was read."""

    __slots__ = ("head",)

    def __init__(self, head):
        self.head = head


def answer(line, methods, *, batches=False):
    """The reply to one line from the client (a TooLong, where it was too long to read whole), or None for a
    notification or a reply. `methods` maps a method's name to what answers its params with a result, or raises
    JsonRpcError. With `batches`, a line may hold a batch, an array of messages, answered by an array of replies."""
    if isinstance(line, TooLong):
        too_long = JsonRpcError(INVALID_REQUEST, f"a message is at most {LONGEST:,} bytes")
        return _error(_id_at_the_start(line.head), too_long)
    try:
        message = _message(line, batches)
    except JsonRpcError as error:
        return _error(None, error)
    if isinstance(message, list):
        if not message:
            return _error(None, JsonRpcError(INVALID_REQUEST, "a batch holds at least one message"))
        replies = [reply for each in message if (reply := _one(each, methods)) is not None]
        return replies or None
    return _one(message, methods)


def _one(message, methods):
    """The reply to one `message` of a line or a batch, or None for a notification or a reply."""
    if not isinstance(message, dict):
        return _error(None, JsonRpcError(INVALID_REQUEST, "a message is one JSON object"))
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


def _message(line, batches):
    """The JSON object on `line` (or, with `batches`, an array of them); else raises the JsonRpcError it earns."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        raise JsonRpcError(PARSE_ERROR, "not JSON") from None
    if isinstance(message, list) and batches:
        return message
    if not isinstance(message, dict):
        raise JsonRpcError(
            INVALID_REQUEST,
            f"a message is one JSON object{'' if batches else '; batches are not taken under this protocol version'}",
        )
    return message


def _id_at_the_start(head):
    """The id, a string or a whole number, at the top of the message whose first bytes are `head`; else None."""
    from postbag.json_text import leading_member  # only for a message too long to read

    found = leading_member(head.decode("utf-8", "replace"), "id")
    return found if type(found) in (str, int) else None


def _error(asked, error):
    return {"jsonrpc": "2.0", "id": asked, "error": {"code": error.code, "message": error.message}}


def lines(stream):
    """Each line of `stream`, or a TooLong for one longer than LONGEST, skipped unread but for its head."""
    while line := stream.readline(LONGEST + 1):
        if len(line) > LONGEST:
            head = line[:HEAD_MOST]
            while line and not line.endswith(b"\n"):
                line = stream.readline(LONGEST)
            yield TooLong(head)
        elif line.strip():
            yield line


def write_message(stream, reply):
    """Write `reply` as one line, and flush it."""
    stream.write(json.dumps(reply).encode() + b"\n")
    stream.flush()
