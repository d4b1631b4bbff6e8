"""Making text inert: every character a terminal would act on is written as an escape.

Letters are written by agents and may hold anything; paths and values come from the environment. Whatever
postbag prints, on stdout, on stderr or in a tool's result, is escaped here first, so nothing it shows can
clear a screen, retitle a window, reorder text or start a line of its own.
"""

# What str.splitlines() breaks a line at, as 1.0's `read` laid bodies out with it.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# The characters escaped, as ranges of code points: controls; the line and paragraph separators, then the
# bidirectional embeddings, overrides and isolates, which reorder what a terminal draws; surrogates. Kept as
# ranges: the surrogates alone are 2,048, which every command would otherwise count out as it starts.
_UNSAFE = ((0, 0x20), (0x7F, 0xA0), (0x2028, 0x202F), (0x2066, 0x206A), (0xD800, 0xE000))
_tables = {}  # built when first needed: one for one_line, one per indent for in_lines


def _escape(code):
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _table(indent=None):
    """The str.translate table of one_line, or with an `indent`, of in_lines."""
    table = _tables.get(indent)
    if table is None:
        table = {code: _escape(code) for start, end in _UNSAFE for code in range(start, end)}
        if indent is not None:
            del table[ord("\t")]
            table.update({ord(c): "\n" + indent for c in LINE_BREAKS})
        _tables[indent] = table
    return table


def one_line(text):
    """`text` with every character a terminal would act on, newline and tab included, written as an escape."""
    if text.isprintable():  # C speed, and true of almost everything
        return text
    return text.translate(_table())


def as_text(path):
    """`path` as text any JSON reader takes: each byte that is not UTF-8, which Python holds
    as a lone surrogate, written as \\xNN, and any other lone surrogate as \\uNNNN."""
    try:
        path.encode()
    except UnicodeEncodeError:
        return "".join(_text_of(c) for c in path)
    return path


def _text_of(character):
    code = ord(character)
    if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return f"\\u{code:04x}"
    return character


# Characters of one word a line shows, at most: a longer one, a path most often, loses its middle, so that
# no file a vendor names, however long, fills the screen or an agent's context.
WORD_SHOWN = 200


def shown(text):
    """`text` as a line postbag says: on one line, each word longer than WORD_SHOWN cut short in its middle."""
    text = one_line(text)
    if len(text) <= WORD_SHOWN:
        return text
    return " ".join(_cut(word) if len(word) > WORD_SHOWN else word for word in text.split(" "))


def _cut(word):
    half = WORD_SHOWN // 2
    return f"{word[:half]}…{word[-(half - 1) :]}"


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


def masked(text, secrets):
    """`text` with every one of `secrets` (a door's fields) written as HIDDEN, as a CI log hides secrets."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, HIDDEN)
    return text


# Credentials a client's own words may hold, as a person would spot one: each becomes HIDDEN, its name kept.
HIDDEN = "<hidden>"
_CREDENTIALS = (
    (r"\bsk-[A-Za-z0-9_-]{6,}", HIDDEN),
    (r"(?i)\b(bearer)(\s+)[A-Za-z0-9._~+/=-]+", rf"\1\2{HIDDEN}"),
    (r"(?i)\b(\w*(?:token|key|secret|password)\w*)(\s*[=:]\s*)(\"[^\"]*\"|'[^']*'|[^\s,;&]+)", rf"\1\2{HIDDEN}"),
    (r"\b[0-9a-fA-F]{32,}\b", HIDDEN),
)
_BASE64_RUN = r"[A-Za-z0-9+/_=-]{40,}"


def without_credentials(text):
    """`text`, a client's own words, with every credential in it written as HIDDEN."""
    import re  # only where a client's words are shown: a refusal, a failed command

    for pattern, hidden in _CREDENTIALS:
        text = re.sub(pattern, hidden, text)
    return re.sub(_BASE64_RUN, _hidden_if_mixed, text)


def _hidden_if_mixed(found):
    """A base64 run, hidden where it mixes digits with both cases, as a key does and a path or word seldom does."""
    run = found.group()
    kinds = (str.isdigit, str.isupper, str.islower)
    return HIDDEN if all(any(kind(c) for c in run) for kind in kinds) else run
