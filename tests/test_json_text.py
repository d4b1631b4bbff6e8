"""A JSON document read as Claude Code reads it, and edited as text, as a person edits it.
JSON.parse itself is the judge (node's, where node is installed; Python's json, which
agrees with it short of deep nesting and long numbers, everywhere): the parser takes
exactly what it takes, at any depth and with any number; adding the rule gives a file it
reads as the person's settings plus the rule, no longer than postbag reads back; taking
the rule out gives back every byte."""

import json
import shutil
import subprocess

import pytest
from helpers import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from postbag import json_text
from postbag.claude import settings as claude_settings
from postbag.refusal import Refusal

# JSON.parse beside the parser under test: each line it reads is {"text", "original"}; it
# answers whether JSON.parse takes `text`, and, given `original`, whether what it makes of
# `text` is what it makes of `original` with the rule added to the permissions.allow that
# counts. Compared without recursion, as JSON.parse reads, at any depth.
JUDGE = r"""
const rl = require("readline").createInterface({ input: process.stdin });
const same = (a, b) => {
  const pairs = [[a, b]];
  while (pairs.length) {
    const [x, y] = pairs.pop();
    if (typeof x !== typeof y || Array.isArray(x) !== Array.isArray(y) || (x === null) !== (y === null)) return false;
    if (x === null || typeof x !== "object") { if (!Object.is(x, y)) return false; continue; }
    const kx = Object.keys(x), ky = Object.keys(y);
    if (kx.length !== ky.length || kx.some((k, i) => k !== ky[i])) return false;
    for (const k of kx) pairs.push([x[k], y[k]]);
  }
  return true;
};
rl.on("line", (line) => {
  const { text, original, rule } = JSON.parse(line);
  let answer;
  try {
    const read = JSON.parse(text);
    answer = { takes: true };
    if (original !== undefined) {
      const expected = original === null ? {} : JSON.parse(original);
      if (!("permissions" in expected)) expected.permissions = {};
      if (!("allow" in expected.permissions)) expected.permissions.allow = [];
      expected.permissions.allow.push(rule);
      answer.same = same(read, expected);
    }
  } catch (error) {
    answer = { takes: false, why: String(error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""


class Judge:
    """node's JSON.parse, asked line by line; None where there is no node."""

    def __init__(self):
        self.process = subprocess.Popen(
            ["node", "-e", JUDGE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
        )

    def ask(self, text, original=...):
        question = {"text": text}
        if original is not ...:
            question.update(original=original, rule=claude_settings.RULE)
        self.process.stdin.write(json.dumps(question) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait()


@pytest.fixture(scope="module")
def judge():
    if shutil.which("node") is None:
        yield None
        return
    found = Judge()
    yield found
    found.close()


REFUSED = object()  # what python_reads gives for text JSON refuses


def python_reads(text):
    """What Python's json makes of `text`, as JSON.parse takes it (no NaN, numbers as their
    text): its value, or REFUSED; ... where it cannot tell (nesting too deep for its
    recursion)."""

    def refuse(constant):
        raise ValueError(constant)

    as_text = {"parse_int": lambda t: ("int", t), "parse_float": lambda t: ("float", t)}
    try:
        return json.loads(text, parse_constant=refuse, **as_text)
    except RecursionError:
        return ...
    except ValueError:
        return REFUSED


SPACE = st.sampled_from(["", " ", "  ", "\n", "\n  ", "\t", "\r\n    ", "\r", " \r\n"])
NUMBERS = st.sampled_from(["0", "-0", "1", "-12", "1E+2", "0.5e-10", "3.14", "1e400", "-1e-400", "9" * 5000, "2" * 40])
STRING_PARTS = st.sampled_from(
    ["a", "é", "☃", "𝄞", " ", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041", "\\ud800",
     "\\udfff", "\\u00e9", "mcp__postbag", "\x7f", "\u2028"]
)  # fmt: skip
STRINGS = st.lists(STRING_PARTS, max_size=5).map(lambda parts: '"' + "".join(parts) + '"')
SCALARS = st.one_of(NUMBERS, STRINGS, st.sampled_from(["true", "false", "null"]))
KEYS = st.sampled_from(['"a"', '"permissions"', '"allow"', '"deny"', '"x\\u0079"', '"permission\\u0073"', '""'])


@st.composite
def laid_out(draw, depth=0):
    """A JSON value as text, any layout, keys twice, escapes, long numbers."""
    if depth > 3 or draw(st.integers(0, 3)) == 0:
        return draw(SCALARS)
    if draw(st.booleans()):
        items = [draw(laid_out(depth + 1)) for _ in range(draw(st.integers(0, 3)))]
        inner = ",".join(f"{draw(SPACE)}{item}{draw(SPACE)}" for item in items)
        return "[" + (inner or draw(SPACE)) + "]"
    members = [(draw(KEYS), draw(laid_out(depth + 1))) for _ in range(draw(st.integers(0, 3)))]
    inner = ",".join(f"{draw(SPACE)}{key}{draw(SPACE)}:{draw(SPACE)}{value}{draw(SPACE)}" for key, value in members)
    return "{" + (inner or draw(SPACE)) + "}"


@st.composite
def settings_texts(draw):
    """A person's settings.json as text: an object, maybe permissions (maybe twice, maybe
    with allow, maybe twice), maybe nested deep, in any layout."""
    members = [(draw(KEYS), draw(laid_out())) for _ in range(draw(st.integers(0, 3)))]
    for _ in range(draw(st.integers(0, 2))):
        rules = draw(st.lists(st.sampled_from(['"Read"', '"Bash(ls)"', '"mcp__other"', '"Edit"']), max_size=3))
        allow = f"[{', '.join(rules)}]"
        inner = [(draw(KEYS), draw(laid_out(2))) for _ in range(draw(st.integers(0, 2)))]
        inner += [('"allow"', allow)] * draw(st.integers(0, 2))
        permissions = "{" + ",".join(f"{draw(SPACE)}{k}:{draw(SPACE)}{v}" for k, v in inner) + draw(SPACE) + "}"
        members.append(('"permissions"', permissions))
    deep = draw(st.sampled_from([0, 0, 0, 40, 1200]))
    if deep:
        members.append(('"deep"', "[" * deep + draw(SCALARS) + "]" * deep))
    order = draw(st.permutations(members))
    inner = ",".join(f"{draw(SPACE)}{key}{draw(SPACE)}:{draw(SPACE)}{value}" for key, value in order)
    return draw(SPACE) + "{" + inner + draw(SPACE) + "}" + draw(SPACE)


@st.composite
def maybe_broken(draw):
    """A JSON text, or one a byte or two away from one."""
    text = draw(laid_out())
    if not text or draw(st.booleans()):
        return text
    at = draw(st.integers(0, len(text) - 1))
    broken = draw(st.sampled_from(["", ",", "]", "}", ":", '"', "\\", "\x01", "01", "-", "NaN", "tru", "[", " x"]))
    return text[:at] + broken + text[at + draw(st.integers(0, 1)) :]


SETTINGS = settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(text=maybe_broken())
@example('{"a": 1, "a": 2}')
@example("[" * 5000 + "]" * 5000)
@example("[" + "9" * 5000 + "]")
@example('["\\ud800"]')
@example('{"a":[1,]}')
def test_the_parser_takes_exactly_what_json_parse_takes(judge, text):
    try:
        json_text.parse(text)
        took, why = True, None
    except json_text.NotJson as refused:
        took, why = False, str(refused)
    assert took or why.startswith("at line ")
    python = python_reads(text)
    if python is not ...:
        assert took == (python is not REFUSED), text
    if judge is not None:
        assert took == judge.ask(text)["takes"], text


@SETTINGS
@given(text=settings_texts(), bom=st.booleans())
@example('{"permissions": {}, "big": 1e400, "permissions": {"allow": ["Bash(ls)"]}}', False)
@example('{"a": 1, "permissions": {"allow": []}}', False)
@example("{}", True)
def test_adding_the_rule_gives_the_persons_settings_plus_the_rule(judge, text, bom):
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8", "surrogatepass")
    try:
        found, refused = claude_settings.SettingsFile(data), None
    except Refusal as refusal:  # JSON, but permissions or its allow of another shape: said so, nothing changed
        found, refused = None, str(refusal)
    if found is None:
        assert refused in (
            "permissions in claude's settings.json is not an object",
            "permissions.allow in claude's settings.json is not a list",
        )
        assert judge is None or judge.ask(text)["takes"]
        return
    made = claude_settings.with_rule(found)
    # No more than the rule, and what holds it, laid out as the person lays out their file.
    assert len(made) - len(data) < 200
    edited = made.decode("utf-8", "surrogatepass").removeprefix("\ufeff")
    python_before, python_after = python_reads(text), python_reads(edited)
    if python_before is not ... and python_after is not ...:
        assert python_after is not REFUSED
        assert _allow_of(python_after) == [*_allow_of(python_before), claude_settings.RULE]
    if judge is not None:
        told = judge.ask(edited, text)
        assert told == {"takes": True, "same": True}, (text, edited, told)
    after = claude_settings.SettingsFile(made)
    assert after.holds_the_rule() and after.allowed()


def _allow_of(value):
    """The allow list JSON.parse would count, of a value Python's json read with its numbers as text."""
    permissions = value.get("permissions", {}) if isinstance(value, dict) else {}
    allow = permissions.get("allow", []) if isinstance(permissions, dict) else []
    return allow if isinstance(allow, list) else []


def test_a_file_nested_deeper_than_pythons_recursion_and_with_long_numbers_is_edited_in_place():
    data = b'{"n": ' + b"9" * 5000 + b', "deep": ' + b"[" * 20000 + b"1e400" + b"]" * 20000 + b"}"
    made = claude_settings.with_rule(claude_settings.SettingsFile(data))
    assert made == data[:-1] + b', "permissions": {"allow": ["mcp__postbag"]}}'


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "at line 1 column 2, 'n' stands where JSON wants a key in quotes or the end of the object"),
        ('{\n  "a": 1,\n}', "at line 3 column 1, '}' stands where JSON wants a key in quotes"),
        ('{"a": NaN}', "at line 1 column 7, 'N' stands where JSON wants a value"),
        ('{"a": 1}\r\n\r\nx', "at line 3 column 1, 'x' stands where JSON wants nothing after the value"),
        ('{"a": "b', "at line 1 column 7, '\"' stands where JSON wants a value"),
        ("", "at line 1 column 1, its end stands where JSON wants a value"),
    ],
    ids=["a bare word", "a trailing comma", "NaN", "after the end", "a string not closed", "nothing"],
)
def test_a_file_that_is_not_json_is_refused_with_where_and_what(text, why):
    with pytest.raises(Refusal) as refused:
        claude_settings.SettingsFile(text.encode())
    assert str(refused.value) == f"claude's settings.json is not JSON ({why})"


def test_the_layout_is_the_persons_own_cr_endings_and_tabs_too():
    cases = {
        b'{\r\t"a": 1\r}': b'{\r\t"a": 1,\r\t"permissions": {\r\t\t"allow": [\r\t\t\t"mcp__postbag"\r\t\t]\r\t}\r}',
        b'{"a":1,"b":[]}': b'{"a":1,"b":[],"permissions":{"allow":["mcp__postbag"]}}',
        b'{"permissions": {"allow": ["Read"]}}\n': b'{"permissions": {"allow": ["Read", "mcp__postbag"]}}\n',
    }
    for before, after in cases.items():
        assert claude_settings.with_rule(claude_settings.SettingsFile(before)) == after


def test_a_file_at_the_size_postbag_reads_back_is_refused_where_the_rule_would_take_it_past():
    """Nothing setup writes is longer than postbag reads back: remove and doctor read it."""
    from postbag.vendor_files import LIMIT

    filler = '{"a": "' + "x" * (LIMIT - 20) + '"}'
    with pytest.raises(Refusal, match=r"would be longer than postbag reads back \(1,048,576 bytes\)"):
        claude_settings.with_rule(claude_settings.SettingsFile(filler.encode()))
