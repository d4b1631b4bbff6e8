"""A JSON document edited as text, as a person edits it by hand: a value added at the end
of an array or an object, or taken out of one, every other byte left as it was (the
person's indentation, key order, spacing, line endings and final newline).

An added value copies the layout around it: the separator the last two items have (or
the space before the only one), the spacing after a key's colon, and the indentation of
its lines, so that taking it out again removes exactly the text adding it put in. Every
edit is checked by parsing its result: where the document's shape leaves an edit in
place unsafe (a key that appears twice in one object, of which JSON takes the last),
`edited` raises Unsafe, and the caller writes the whole document instead.
"""

import json

_SPACE = " \t\r\n"
_SCALAR = json.JSONDecoder()


class Unsafe(ValueError):
    """The document's shape does not allow the edit in place."""


class Node:
    """A value in the text: `kind` ("object", "array" or "value"), where it starts and ends;
    a member of an object also where its key starts and ends, and `key`, the key; a
    container its `items`, each a Node."""

    __slots__ = ("end", "items", "key", "key_end", "key_start", "kind", "start")

    def __init__(self, kind, start):
        self.kind, self.start, self.end, self.items = kind, start, None, []
        self.key = self.key_start = self.key_end = None

    @property
    def first(self):
        """Where the text of this item starts: its key's quote, in an object."""
        return self.start if self.key_start is None else self.key_start


def parse(text):
    """The Node of the JSON value that is the whole of `text`; ValueError for anything else."""
    node, at = _value(text, _skip(text, 0))
    if _skip(text, at) != len(text):
        raise ValueError("text after the value")
    return node


def _skip(text, at):
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at


def _value(text, at):
    """The Node of the value that starts at `at`, and where it ends."""
    if at >= len(text):
        raise ValueError("a value is missing")
    opening = text[at]
    if opening not in "[{":
        node = Node("value", at)
        _, node.end = _SCALAR.raw_decode(text, at)
        return node, node.end
    node = Node("object" if opening == "{" else "array", at)
    closing = "}" if opening == "{" else "]"
    at = _skip(text, at + 1)
    while text[at : at + 1] != closing:
        if node.items:
            if text[at : at + 1] != ",":
                raise ValueError("items without a comma between them")
            at = _skip(text, at + 1)
        key = key_start = key_end = None
        if node.kind == "object":
            if text[at : at + 1] != '"':
                raise ValueError("an object's key is not a string")
            key_start = at
            key, key_end = json.decoder.scanstring(text, at + 1)
            at = _skip(text, key_end)
            if text[at : at + 1] != ":":
                raise ValueError("a key without a colon")
            at = _skip(text, at + 1)
        item, at = _value(text, at)
        item.key, item.key_start, item.key_end = key, key_start, key_end
        node.items.append(item)
        at = _skip(text, at)
    node.end = at + 1
    return node, node.end


def member(node, key):
    """The value of `key` in the object `node`, or None; Unsafe where the key appears twice."""
    found = [item for item in node.items if item.key == key]
    if len(found) > 1:
        raise Unsafe(f"{key} appears more than once")
    return found[0] if found else None


def indent_of(text, at):
    """The spaces and tabs that start the line holding `at`."""
    start = end = text.rfind("\n", 0, at) + 1
    while end < at and text[end] in " \t":
        end += 1
    return text[start:end]


class Layout:
    """How a document is laid out, read from its text: its line ending, `unit`, the
    indentation one level adds (None: it is written on one line), and the separators
    after a key and between the items of a container written on one line."""

    def __init__(self, text, root):
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.unit = self.colon = self.comma = None
        self._read(text, root)
        if self.unit is None and "\n" in text[root.start : root.end]:
            self.unit = "  "
        self.colon = self.colon or ": "
        self.comma = self.comma or ", "

    def _read(self, text, node):
        if not node.items:
            return
        first, outer = node.items[0], indent_of(text, node.start)
        if _on_lines(text, node) and self.unit is None:
            inner = indent_of(text, first.first)
            if inner.startswith(outer) and len(inner) > len(outer):
                self.unit = inner[len(outer) :]
        if first.key_end is not None and self.colon is None:
            self.colon = text[first.key_end : first.start]
        if len(node.items) > 1 and not _on_lines(text, node) and self.comma is None:
            self.comma = text[first.end : node.items[1].first]
        for item in node.items:
            self._read(text, item)

    def render(self, value, indent):
        """`value` as JSON in this layout: on lines, those after the first at `indent`; or
        on one line, where `indent` is None or the document is written on one."""
        if self.unit is None or indent is None:
            return json.dumps(value, separators=(self.comma, self.colon))
        shown = json.dumps(value, indent=self.unit, separators=(",", self.colon))
        return shown.replace("\n", self.newline + indent)


def _on_lines(text, node):
    """Whether the container `node` puts its first item on a line of its own."""
    until = node.items[0].first if node.items else node.end - 1
    return "\n" in text[node.start + 1 : until]


def appended(text, node, key, value, layout):
    """`text` with `value` added at the end of the container `node` (under `key`, in an
    object): after the last item, joined as the last two are (or as the space before the
    only one says), or, in an empty container, just after its bracket."""
    if node.items:
        at, first = node.items[-1].end, node.items[0]
        if len(node.items) > 1:
            lead = text[node.items[-2].end : node.items[-1].first]
        elif _on_lines(text, node):
            lead = "," + text[node.start + 1 : first.first]
        else:
            lead = layout.comma
        indent = indent_of(text, first.first) if _on_lines(text, node) else None
    else:
        at, indent = node.start + 1, indent_of(text, node.start) + (layout.unit or "")
        lead = layout.newline + indent if _on_lines(text, node) and layout.unit is not None else ""
        indent = indent if lead else None
    shown = layout.render(value, indent)
    if key is not None:
        shown = json.dumps(key) + layout.colon + shown
    return text[:at] + lead + shown + text[at:]


def without(text, node, index):
    """`text` without item `index` of the container `node` and what joined it to the one
    before (or, for the first, to the bracket): what `appended` put in, where it put it."""
    item = node.items[index]
    if index > 0:
        return text[: node.items[index - 1].end] + text[item.end :]
    if len(node.items) > 1:
        return text[: item.first] + text[node.items[1].first :]
    return text[: node.start + 1] + text[item.end :]


def edited(text, change, expected):
    """The text `change(text, root, layout)` makes of the document `text`, checked: it must
    parse as `expected`; Unsafe where the document does not allow the change in place."""
    try:
        root = parse(text)
    except (ValueError, RecursionError):
        raise Unsafe("the document cannot be read in place") from None
    if root.kind != "object":
        raise Unsafe("the document is not an object")
    result = change(text, root, Layout(text, root))
    try:
        same = json.loads(result) == expected
    except (ValueError, RecursionError):
        same = False
    if not same:
        raise Unsafe("an edit in place would change more than it should")
    return result
