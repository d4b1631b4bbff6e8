"""json_values against the json package itself: whatever it reads or writes, it reads and
writes as json does, to the byte and to the exception, the C scanner's way or json's."""

import json
import math

import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from postbag import json_values

SCALARS = st.none() | st.booleans() | st.integers() | st.text() | st.floats()
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
# Text that is nearly JSON: json's own text of a value, with a few characters changed.
CHANGES = st.lists(st.tuples(st.integers(0, 200), st.sampled_from('"{}[],:\\ x0eE-.\ufeff\n')), max_size=3)
NEAR = st.tuples(VALUES.map(json.dumps), CHANGES)


def _changed(text, changes):
    for place, character in changes:
        at = place % (len(text) + 1)
        text = text[:at] + character + text[at + 1 :]
    return text


def _outcome(function, *args):
    """What `function` gives, or the type and words of what it raises."""
    try:
        value = function(*args)
    except (ValueError, RecursionError, TypeError) as error:
        return type(error), str(error)
    return "value", json.dumps(value, allow_nan=True)  # NaN != NaN; their text is equal


@settings(max_examples=examples(500))
@given(value=VALUES)
def test_it_writes_every_value_as_json_writes_it(value):
    assert json_values.dumps(value) == json.dumps(value)


@settings(max_examples=examples(500))
@given(text=NEAR.map(lambda pair: _changed(*pair)) | st.text(max_size=40))
def test_it_reads_any_text_as_json_reads_it(text):
    assert _outcome(json_values.loads, text) == _outcome(json.loads, text)
    data = text.encode("utf-8", "surrogatepass")
    assert _outcome(json_values.loads, data) == _outcome(json.loads, data)


@pytest.mark.parametrize(
    "data",
    [b"\xef\xbb\xbf{}", "{}".encode("utf-16"), "[1]".encode("utf-32-le"), b"\xff\xfe", b"\xc3(", "\ufeff{}", "[1] 2"],
    ids=["utf-8 mark", "utf-16", "utf-32", "a lone mark", "not utf-8", "a mark in text", "two values"],
)
def test_it_reads_encodings_and_marks_as_json_does(data):
    assert _outcome(json_values.loads, data) == _outcome(json.loads, data)


def test_a_value_of_another_type_is_left_to_json_and_its_error():
    assert _outcome(json_values.dumps, {1: 2}) == _outcome(json.dumps, {1: 2})
    assert _outcome(json_values.dumps, {"a": object()})[0] is TypeError
    assert json_values.dumps([math.inf, 1.5]) == "[Infinity, 1.5]"


def test_the_records_scanner_refuses_what_is_not_json():
    scan = json_values.scanner(constants=False)
    assert scan('{"n": 1} tail', 0) == ({"n": 1}, 8)
    for constant in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(ValueError, match=f"{constant} is not JSON"):
            scan(f'{{"n": {constant}}}', 0)
    with pytest.raises(StopIteration):
        scan("", 0)


def test_text_that_is_not_json_is_told_as_json_tells_it_where_nothing_imported_json():
    """Before Python 3.12 the C half cannot raise json's own error unless json was imported."""

    from helpers import SRC, run_on_the_tree

    probe = (
        "import sys\n"
        "from postbag import json_values, records\n"
        f"assert json_values.__file__.startswith({SRC!r}), json_values.__file__\n"
        'assert records.parse_record(\'{"n": 1, "at" 2}\', 0, 15, 1) is None\n'
        "try:\n"
        "    json_values.loads('{\"a\" 1}')\n"
        "except ValueError as error:\n"
        "    print(type(error).__name__, error)\n"
    )
    assert run_on_the_tree(probe) == "JSONDecodeError Expecting ':' delimiter: line 1 column 6 (char 5)\n"


# The accelerator is a private module: whatever becomes of it, json's own answers stand.

SAMPLES = ['{"a": [1, 2.5, "\\u00e9"], "b": null}', "[1] 2", '{"a" 1}', "NaN", "", '"\\ud800"', "1E400"]


def test_without_the_accelerator_the_json_package_answers_alike():
    """As on a Python built without _json, or a future one without it: taken away before
    json_values is imported, every answer is still json's, and records still parse."""

    from helpers import run_on_the_tree

    probe = (
        "import sys\n"
        "sys.modules['_json'] = None  # taken away: importing it fails\n"
        "import json\n"
        "from postbag import json_values, records\n"
        "assert json_values.make_scanner is None\n"
        f"for text in {SAMPLES!r}:\n"
        "    try:\n"
        "        mine = json_values.loads(text)\n"
        "    except ValueError as error:\n"
        "        mine = str(error)\n"
        "    try:\n"
        "        theirs = json.loads(text)\n"
        "    except ValueError as error:\n"
        "        theirs = str(error)\n"
        "    assert repr(mine) == repr(theirs), (text, mine, theirs)\n"
        "assert json_values.dumps({'a': ['\\u00e9', 1, None]}) == json.dumps({'a': ['\\u00e9', 1, None]})\n"
        'assert records.parse_record(\'{"n": 1, "kind": "close", "at": "2026-09-08T10:02:11+02:00"}\', 0, 61, 1)\n'
        "print('ok')\n"
    )
    assert run_on_the_tree(probe) == "ok\n"


@pytest.mark.parametrize(
    "accelerator",
    [
        lambda decoder: decoder.array_hook,  # asks the decoder for what the stand-in lacks
        lambda decoder: lambda text, at: ("not what json reads", at),  # reads otherwise
    ],
    ids=["asks for more", "reads otherwise"],
)
def test_an_accelerator_that_fails_in_any_way_leaves_the_json_package_to_read(monkeypatch, accelerator):
    monkeypatch.setattr(json_values, "make_scanner", accelerator)
    scan = json_values.scanner()  # the json package's, made through its public JSONDecoder
    assert scan('{"a": [1]} x', 0) == ({"a": [1]}, 10)
    assert json_values.scanner(constants=False)("[1]", 0) == ([1], 3)


def test_an_encoder_that_fails_leaves_the_json_package_to_write(monkeypatch):
    def broken(text):
        raise SystemError("a future accelerator's failure")

    monkeypatch.setattr(json_values, "encode_basestring_ascii", broken)
    assert json_values.dumps({"a": "\u00e9"}) == json.dumps({"a": "\u00e9"})
