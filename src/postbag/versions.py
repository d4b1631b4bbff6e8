"""A client's version, as its --version and its records say it, to compare."""

VERSION_MOST = 32  # characters of a version postbag compares: longer is no version


def numbers(version):
    """A version's numbers, to compare (2.1.332 is (2, 1, 332)); None for anything else."""
    if type(version) is not str or len(version) > VERSION_MOST:
        return None
    parts = version.split(".")
    return tuple(int(part) for part in parts) if all(part.isascii() and part.isdigit() for part in parts) else None
