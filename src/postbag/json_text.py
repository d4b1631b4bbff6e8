"""A JSON document read as JSON.parse reads it, keeping where each part stands, for json_edit.py to edit it.

The parser takes what JSON.parse takes (Claude Code reads its settings so): any depth, on a stack of its own, not
Python's; any number, whose text it checks and never converts; every escape, lone surrogates among them; of a key
that stands twice in one object, the last. Only for the root and the few containers an edit looks into does it keep
where each item starts and ends, and each member's key; every other value it checks and passes over, with json's
own scanner where it can. Its time is linear in the text.
"""

import json
import json.scanner
import re

from postbag.json_values import refuse_constant

# One token, after any space: a bracket, a comma or a colon, a string (no control
# character, known escapes only), a number as JSON writes one, or a literal.
_TOKEN = re.compile(
    r"[ \t\r\n]*(?:(?P<open>[\[{])|(?P<close>[\]}])|(?P<comma>,)|(?P<colon>:)"
    r'|(?P<string>"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*")'
    r"|(?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<literal>true|false|null))"
)
LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SPACES = re.compile(r"[ \t\r\n]*")
# What an open container waits for next.
_VALUE, _KEY, _COLON, _NEXT = "a value", "a key in quotes", "a colon", "a comma"


class NotJson(ValueError):
    """Text that JSON.parse would refuse; its words say where (line and column) and what."""


class Node:
    """A value in the text: `kind` ("object", "array" or "value"), where it starts and ends; a member of an
    object also where its key starts and ends, and `key`; a kept container its `items`, each a Node."""

    __slots__ = ("end", "items", "key", "key_end", "key_start", "kind", "start")

    def __init__(self, kind, start):
        self.kind, self.start, self.end, self.items = kind, start, None, []
        self.key = self.key_start = self.key_end = None

    @property
    def first(self):
        """Where the text of this item starts: its key's quote, in an object."""
        return self.start if self.key_start is None else self.key_start


class _Open:
    """A container the parser is inside: its `node`, what it `wants` next, whether it `may
    close` now, and the span of the key whose value comes next."""

    __slots__ = ("kept", "key", "may_close", "node", "wants")

    def __init__(self, node, kept):
        self.node, self.kept, self.key, self.may_close = node, kept, None, True
        self.wants = _KEY if node.kind == "object" else _VALUE


def parse(text, within=()):
    """The Node of the JSON value that is the whole of `text`; NotJson for anything else. The root keeps its
    items; so do its members whose key is one of `within`, and their members (permissions, and its allow list)."""
    node, end = _walk(text, 0, within)
    rest = _skip(text, end)
    if rest != len(text):
        raise _not_json(text, rest, "nothing after the value")
    return node


def _walk(text, at, within, fast=True):
    """The Node of the value that starts at `at` (after any space), and where it ends. Kept containers are read
    token by token; any other value is passed over by json's scanner where `fast`, else token by token too, which
    tells where and why what is not JSON is not."""
    stack = []
    while True:
        top = stack[-1] if stack else None
        if fast and (top is None or top.wants == _VALUE) and _passes_over(text, at, stack, within):
            node, at = _passed_over(text, _skip(text, at), within)
            if top is not None and top.key is not None:
                node.key_start, node.key_end = top.key
                top.key = None
        else:
            found = _TOKEN.match(text, at)
            if found is None:
                raise _not_json(text, _skip(text, at), stack)
            kind = found.lastgroup
            start, at = found.start(kind), found.end()
            wants = top.wants if top else _VALUE
            if kind == "close":
                closer = "}" if top is not None and top.node.kind == "object" else "]"
                if top is None or not top.may_close or text[start] != closer:
                    raise _not_json(text, start, stack)
                node = stack.pop().node
                node.end = at
            elif wants != _VALUE or kind in ("comma", "colon"):
                _went_on(text, stack, kind, (start, at))
                continue
            else:
                node = Node("value" if kind != "open" else ("object" if text[start] == "{" else "array"), start)
                if top is not None and top.key is not None:
                    node.key_start, node.key_end = top.key
                    top.key = None
                if kind == "open":
                    stack.append(_Open(node, fast))
                    continue
                node.end = at
        if not stack:
            return node, at
        _ended(text, stack, node)


def _passes_over(text, at, stack, within):
    """Whether what starts after `at` is a value to pass over whole: not a container that keeps its items (parse
    says which), and not what ends a container or is no value."""
    at = _skip(text, at)
    if at >= len(text) or text[at] in "]},:":
        return False  # the token loop tells what it is
    if text[at] not in "[{":
        return True
    if len(stack) == 0:
        return False
    if len(stack) == 1:
        key = stack[0].key
        return not (stack[0].node.kind == "object" and key is not None and string_at(text, key[0]) in within)
    return not (len(stack) == 2 and stack[1].kept)


# json's scanner, reading JSON as JSON.parse does: numbers kept as their text (so that no
# length is too long for an int), NaN and the infinities refused.
_SCAN = json.scanner.make_scanner(json.JSONDecoder(parse_int=str, parse_float=str, parse_constant=refuse_constant))


def _passed_over(text, start, within):
    """The Node of the value at `start`, no container kept, and where it ends."""
    try:
        _, end = _SCAN(text, start)
    except (StopIteration, ValueError, RecursionError):
        # Not JSON, or deeper than the scanner's recursion goes: token by token, which
        # finds its end at any depth, or says where it breaks, and why.
        return _walk(text, start, within, fast=False)
    node = Node("object" if text[start] == "{" else "array" if text[start] == "[" else "value", start)
    node.end = end
    return node, end


def _went_on(text, stack, kind, span):
    """Take the token of `kind` at `span`, no value, where the top container waits for a key, a colon or a comma."""
    top = stack[-1] if stack else None
    wants = top.wants if top else _VALUE
    if wants == _KEY and kind == "string":
        top.key, top.wants, top.may_close = span, _COLON, False
    elif wants == _COLON and kind == "colon":
        top.wants = _VALUE
    elif wants == _NEXT and kind == "comma":
        top.wants, top.may_close = (_KEY if top.node.kind == "object" else _VALUE), False
    else:
        raise _not_json(text, span[0], stack)


def _ended(text, stack, node):
    """`node` has ended inside the container on top of `stack`: kept there, key decoded, where that keeps items."""
    top = stack[-1]
    top.wants, top.may_close = _NEXT, True
    if top.kept:
        if node.key_start is not None:
            node.key = string_at(text, node.key_start)
        top.node.items.append(node)


def string_at(text, start):
    """The string whose opening quote is at `start` in `text`, decoded; a lone surrogate kept, as JSON.parse does."""
    return json.decoder.scanstring(text, start + 1)[0]


def _skip(text, at):
    """Where the first character after any space from `at` is."""
    return _SPACES.match(text, at).end()


def _not_json(text, at, stack):
    """NotJson at `at`, by line and column: what stands there, and what `stack` (open containers, or words) wanted."""
    if isinstance(stack, str):
        wanted = stack
    elif not stack:
        wanted = _VALUE
    else:
        top = stack[-1]
        wanted = top.wants
        if top.may_close:
            wanted += f" or the end of the {top.node.kind}"
    line = len(LINE_BREAK.findall(text, 0, at)) + 1
    column = at - max(text.rfind("\n", 0, at), text.rfind("\r", 0, at))
    there = "its end" if at >= len(text) else repr(text[at])
    return NotJson(f"at line {line} column {column}, {there} stands where JSON wants {wanted}")


def leading_member(text, key):
    """The value of `key` at the top level of the JSON object that `text` begins, where it stands before `text`
    ends or breaks and is no container: a string, true, false, null, or a whole number Python converts (else None);
    None where it stands nowhere so. Read token by token: `text` may be the head of a message too long to read whole."""
    at, depth, wants, name = 0, 0, "open", None
    while found := _TOKEN.match(text, at):
        kind = found.lastgroup
        start, at = found.start(kind), found.end()
        if depth > 1 or (depth == 1 and wants == "skip"):  # inside a value of another member
            depth += {"open": 1, "close": -1}.get(kind, 0)
            wants = "next" if depth == 1 else wants
        elif wants == "open":
            if kind != "open" or text[start] != "{":
                return None
            depth, wants = 1, "key"
        elif wants == "key" and kind == "string":
            name, wants = string_at(text, start), "colon"
        elif wants == "colon" and kind == "colon":
            wants = "value"
        elif wants == "value" and kind == "open":
            depth, wants = 2, "skip"
        elif wants == "value" and kind in ("string", "number", "literal"):
            if name == key:
                try:
                    return json.loads(text[start:at], parse_float=lambda _: None)
                except ValueError:  # an integer longer than Python converts from text: no id it can echo
                    return None
            wants = "next"
        elif wants == "next" and kind == "comma":
            wants = "key"
        else:
            return None
    return None


def member(node, key):
    """The value of `key` in the object `node`: the last, where it stands twice, as JSON.parse takes it; or None."""
    return next((item for item in reversed(node.items) if item.key == key), None)


def strings(text, node):
    """The strings among the items of the array `node`, decoded."""
    return [string_at(text, item.start) for item in node.items if text[item.start] == '"']
