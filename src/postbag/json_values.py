"""JSON values read and written by the C half of the standard library's json (its accelerator, `_json`),
without the json package itself, which imports re, whose cost is more than all the rest an agent's verb does.
What comes out is json's own, to the byte and to the exception: every case these functions do not take
themselves (no accelerator, or one that lacks these names, raises, or reads the proof below otherwise; a value
of another type; text that is not JSON) is handed to the json package, imported then.
tests/test_json_values.py holds them to it, with the accelerator and without it.
"""

try:  # a private module, behind the public json package
    from _json import encode_basestring_ascii, make_scanner
except Exception:  # a Python without the accelerator, or with another one
    encode_basestring_ascii = make_scanner = None

_SPACE = " \t\n\r"  # what json allows around a value
# What a scanner raises where the text holds no JSON value: StopIteration where none starts, ValueError
# (json's JSONDecodeError) where one breaks off; and before Python 3.12, SystemError in its place, for the C
# half finds json's error type only where the json package was imported, and it was not.
NOT_JSON = (StopIteration, ValueError, SystemError)
# Every kind of value, and what json reads of it: an accelerator's scanner that reads it otherwise is not used.
_PROOF = '[1, -2.5e3, "a\\u00e9\\n", {"b": null, "c": [true, false]}, 1E400]'
_PROVEN = ([1, -2500.0, "a\u00e9\n", {"b": None, "c": [True, False]}, float("inf")], len(_PROOF))


def refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


class _Decoding:
    """What the C scanner reads of a decoder: json.JSONDecoder's defaults."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int

    def __init__(self, constants):
        self.parse_constant = float if constants else refuse_constant


def scanner(*, constants=True):
    """json's scanner: given a text and where to start, it returns the value there and where it ends, or raises
    one of NOT_JSON where no value is there whole. Unless `constants`, NaN, Infinity and -Infinity raise ValueError."""
    if make_scanner is not None:
        try:
            scan = make_scanner(_Decoding(constants))  # the accelerator's, over a stand-in for json's decoder
            if scan(_PROOF, 0) == _PROVEN:
                return scan
        except Exception:  # noqa: S110 - any failure of the private module's: the public one serves
            pass
    import json.scanner

    return json.scanner.make_scanner(json.JSONDecoder(parse_constant=None if constants else refuse_constant))


_scan = scanner()


def loads(data):
    """json.loads(data), for text or bytes: the value, or json's own ValueError."""
    if isinstance(data, (bytes, bytearray)):
        if data[:3] == b"\xef\xbb\xbf" or data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:4]:
            return _json_package().loads(data)  # a byte-order mark, or UTF-16 or 32: json tells which
        data = data.decode("utf-8", "surrogatepass")
    start = len(data) - len(data.lstrip(_SPACE))
    try:
        value, end = _scan(data, start)
    except NOT_JSON:
        return _json_package().loads(data)  # not JSON: json says why, in its words
    if end != len(data) and data[end:].strip(_SPACE):
        return _json_package().loads(data)
    return value


def dumps(value):
    """json.dumps(value): ASCII, with its separators ", " and ": "."""
    if encode_basestring_ascii is not None:
        try:
            return "".join(_pieces(value))
        except Exception:  # noqa: S110 - a value of its own (_Unusual), too deep, or the accelerator failed
            pass
    return _json_package().dumps(value)  # its own answer, or its own error


class _Unusual(Exception):
    """A value of a type json writes in a way of its own, or cannot: json is to write it."""


def _pieces(value):
    kind = type(value)
    if kind is str:
        yield encode_basestring_ascii(value)
    elif value is None:
        yield "null"
    elif value is True or value is False:
        yield "true" if value else "false"
    elif kind is int:
        yield int.__repr__(value)
    elif kind is dict:
        yield "{"
        for at, (key, item) in enumerate(value.items()):
            if type(key) is not str:
                raise _Unusual
            yield (", " if at else "") + encode_basestring_ascii(key) + ": "
            yield from _pieces(item)
        yield "}"
    elif kind is list or kind is tuple:
        yield "["
        for at, item in enumerate(value):
            if at:
                yield ", "
            yield from _pieces(item)
        yield "]"
    else:  # floats, whose NaN and infinities json spells its own way, and all the rest
        raise _Unusual


def _json_package():
    import json

    return json
