"""Making text inert: every character a terminal would act on is written as an escape.

Letters are written by agents and may hold anything; paths and values come from the
environment. Whatever postbag prints, on stdout, on stderr or in a tool's result, is
escaped here first, so nothing it shows can clear a screen, retitle a window, reorder
text or start a line of its own.
"""

# What str.splitlines() breaks a line at, as 1.0's `read` laid bodies out with it.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# The characters escaped, as ranges of code points: controls; the line and paragraph
# separators, then the bidirectional embeddings and overrides, and isolates, which reorder
# what a terminal draws; surrogates. Kept as ranges: the surrogates alone are 2,048 of
# them, which every command would otherwise count out as it starts.
_UNSAFE = ((0, 0x20), (0x7F, 0xA0), (0x2028, 0x202F), (0x2066, 0x206A), (0xD800, 0xE000))
_tables = {}  # built when first needed: one for one_line, one per indent for in_lines


def _escape(code):
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _table(indent=None):
    """The str.translate table that escapes every unsafe character; with an `indent`, it
    keeps tabs and turns each line break into a new line starting with that indent."""
    table = _tables.get(indent)
    if table is None:
        table = {code: _escape(code) for start, end in _UNSAFE for code in range(start, end)}
        if indent is not None:
            del table[ord("\t")]
            table.update({ord(c): "\n" + indent for c in LINE_BREAKS})
        _tables[indent] = table
    return table


def one_line(text):
    """`text` with every character a terminal would act on, newline and tab included,
    written as an escape: it can never start a line of its own."""
    if text.isprintable():  # C speed, and true of almost everything
        return text
    return text.translate(_table())


def has_unsafe(text):
    return one_line(text) != text


def in_lines(text, indent):
    """`text` escaped, but for its tabs and line breaks: each break starts a new line with
    `indent`. A break at the very end is the caller's to drop, as splitlines() would."""
    return text.translate(_table(indent))


# What a POSIX shell takes as part of a word, unquoted: shlex.quote's own set, which it
# finds with re, whose import costs a send more than the rest of its work.
_SHELL_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def shell_word(text):
    """`text` as one word for a POSIX shell, exactly as shlex.quote writes it."""
    if not text:
        return "''"
    if _SHELL_SAFE.issuperset(text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"
