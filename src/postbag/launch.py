# How postbag.pyz starts when it runs as a program. Its first lines, a shell script that scripts/build_pyz.py
# writes, start python3 isolated (-E -s -S), read this file from the archive with Python's own zipimport, run
# it, and call start(). Run so, it is compiled by exec, as the program given with -c is, without the start-up
# cost of the compile builtin (which builds the ast module's types first). Every Python from 2.7 on must
# parse this file, so that an old one reaches the entry point's polite refusal.
import sys

# The archive's folder of the code each Python compiled, one entry each, named by its cache tag (cpython-311):
# the magic number of the Python that compiled it, the CRC-32 of what follows (4 bytes, little-endian), then a
# marshalled dict of each module's name to (whether it is a package, its marshalled code).
COMPILED = "compiled/"
OLDEST = (3, 10)  # what the archive carries code for, and what the entry point runs on


def start():
    """Run the entry point as the archive's __main__.py, with the archive as sys.argv[0] and last on sys.path,
    so that no standard module is looked for in it: from the code compiled for this Python where it passes its
    check, else from the sources. The check guards marshal, which bad bytes can crash; what guards a download
    is SHA256SUMS and the attestation."""
    import zipimport

    archive = sys.argv.pop(1)
    sys.argv[0] = archive
    if sys.path and sys.path[0] == "":
        del sys.path[0]
    sys.path.append(archive)
    loader = zipimport.zipimporter(archive)
    main = sys.modules["__main__"]
    main.__file__ = archive + "/__main__.py"
    main.__loader__ = loader
    compiled = compiled_code(loader) if sys.version_info >= OLDEST else None
    if compiled and "postbag.__main__" in compiled:
        import marshal

        main.__compiled__ = compiled
        code = marshal.loads(compiled["postbag.__main__"][1])  # noqa: S302 (checked, as compiled_code says)
    else:
        code = loader.get_code("__main__")
    exec(code, vars(main))


def compiled_code(loader):
    """The code the archive `loader` reads carries for this Python, {module: (is_package, marshalled code)}; None
    where it carries none, or what it carries fails its check (then the sources run)."""
    try:
        data = loader.get_data(COMPILED + sys.implementation.cache_tag)
    except (OSError, ImportError):  # none for this Python; or a damaged header, which 3.10's zipimport raises
        return None
    import binascii
    import marshal

    if data[:4] != magic_number() or binascii.crc32(data[8:]) != int.from_bytes(data[4:8], "little"):
        return None
    return marshal.loads(data[8:])  # noqa: S302 (the archive's own bytes, checked, trusted as far as its sources)


def magic_number(modules=sys.modules):
    """This Python's magic number, which begins the code it compiles, from the import system's own module,
    which holds it already: importlib.util, which names it, costs a start 5 ms, and serves where that fails."""
    try:
        found = modules["_frozen_importlib_external"].MAGIC_NUMBER
        if type(found) is bytes and len(found) == 4:
            return found
    except (KeyError, AttributeError):
        pass
    import importlib.util

    return importlib.util.MAGIC_NUMBER
