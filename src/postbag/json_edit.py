"""A JSON document edited as text, as a person edits it by hand: a value added at the end of an array or an object,
every other byte left as it was (indentation, key order, spacing, line endings, numbers as written, escapes, and
final newline). It is read first by json_text.py.

An added value copies the layout around it: the separator the last two items have (or the space before the only
one), the spacing after a key's colon, and the indentation of its lines. Its time is linear in the text.
"""

import json

from postbag.json_text import LINE_BREAK

LAYOUT_LOOKS = 64  # containers the layout is read from, at most: enough, and linear in the text


def indent_of(text, at):
    """The spaces and tabs that start the line holding `at`."""
    line = text[max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1 : at]
    return line[: len(line) - len(line.lstrip(" \t"))]


class Layout:
    """How a document is laid out: its line ending, `unit`, the indentation one level adds (None: it is written on
    one line), and the separators after a key and between the items of a container written on one line. It is read
    from the first LAYOUT_LOOKS containers, the top first: a document lays itself out alike."""

    def __init__(self, text, root):
        found = LINE_BREAK.search(text)
        self.newline = found.group() if found else "\n"
        self.unit = self.colon = self.comma = None
        containers, looked = [root], 0
        while looked < min(len(containers), LAYOUT_LOOKS):
            node, looked = containers[looked], looked + 1
            self._read(text, node)
            containers += [item for item in node.items if item.items]
        if self.unit is None and LINE_BREAK.search(text, root.start, root.end):
            self.unit = "  "
        self.colon, self.comma = self.colon or ": ", self.comma or ", "

    def _read(self, text, node):
        if not node.items:
            return
        first = node.items[0]
        if _on_lines(text, node) and self.unit is None:
            outer, inner = indent_of(text, node.start), indent_of(text, first.first)
            if inner.startswith(outer) and len(inner) > len(outer):
                self.unit = inner[len(outer) :]
        between = text[first.key_end : first.start] if first.key_end is not None else None
        if between is not None and self.colon is None and not LINE_BREAK.search(between):
            self.colon = between  # a colon on a line of its own is too odd to copy
        if len(node.items) > 1 and not _on_lines(text, node) and self.comma is None:
            self.comma = text[first.end : node.items[1].first]

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
    return LINE_BREAK.search(text, node.start + 1, until) is not None


def appended(text, node, key, value, layout):
    """`text` with `value` added at the end of the container `node` (under `key`, in an object), joined as the
    module's docstring says; in an empty container, just after its bracket."""
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
