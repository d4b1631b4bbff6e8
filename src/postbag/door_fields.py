"""What a door field and a vendor's id may be: text a door can carry, and a UUID."""

_HEX = frozenset("0123456789abcdefABCDEF")


def is_door_field(value):
    """Whether a door can carry `value`: a NUL cannot travel in a socket path or an argument."""
    return value != "" and "\0" not in value and is_text(value)


def is_text(value):
    """Whether every string in `value` (a record, or a string) is valid Unicode text."""
    if type(value) is dict:
        return all(is_text(v) for v in value.values() if type(v) is str)
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


def is_uuid(text):
    """Whether `text` is a UUID in its usual form: how both vendors spell session and thread ids."""
    parts = text.split("-")
    return [len(part) for part in parts] == [8, 4, 4, 4, 12] and all(c in _HEX for c in "".join(parts))
