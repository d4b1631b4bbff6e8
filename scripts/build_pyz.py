#!/usr/bin/env python3
"""Build dist/postbag.pyz, the one-file postbag, and its checksum, reproducibly.

Two builds of the same tree are byte-identical: entries are sorted, and every timestamp,
mode and creator field is fixed. Timestamps come from SOURCE_DATE_EPOCH, else the last
commit, else 1980-01-01 (the earliest time a zip can hold).

A zip holds no __pycache__, so Python would compile the sources on every run. Before
them the archive carries the package compiled by every Python from 3.10 to 3.15 that
the build finds (python3.X on PATH, or under pyenv), one entry for each, compiled/TAG
(TAG that Python's cache tag, cpython-311): its magic number, then a marshalled dict
of each module's name to (whether it is a package, its marshalled code), the same bytes
every time. The launcher and the entry point run the one made for the running Python;
any other Python compiles the sources as before. The build says which it found.

    python3 scripts/build_pyz.py [--out DIR]
"""

import argparse
import glob
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "src", "postbag")
sys.path.insert(0, os.path.join(ROOT, "src"))
from postbag.__main__ import COMPILED  # noqa: E402 (the folder of each Python's code: the entry point reads it too)

# The archive's first lines, which Python skips to find the zip after them. Run as a
# program, /bin/sh reads just these lines and starts python3 on the archive itself,
# isolated and without `site`: -E -s -S, and the current directory taken off sys.path,
# which is what -I does, in words a python3 that is Python 2 also takes, so that it
# reaches the entry point and is refused politely. No PYTHON* variable, user
# site-packages or current directory can change what runs, and start-up skips `site`
# and `runpy`, which `python3 postbag.pyz` pays for. The Python below finds the code
# compiled for it among the zip's first entries (in COMPILED), read at their offsets
# without zipimport, which would read the whole directory of the zip first, and runs
# the entry point from it, as runpy would run the archive's __main__.py, with the
# archive as sys.argv[0] and last on sys.path, where nothing of the standard library's
# is looked for in it. The entry point runs every module from the same code; a Python
# the archive holds none for goes through zipimport and compiles the sources. Every
# Python from 2.7 on must parse it.
LAUNCHER = b"""#!/bin/sh
command -v python3 >/dev/null || {
  echo "postbag needs Python 3.10 or later: there is no python3 on PATH" >&2
  exit 127
}
exec python3 -E -s -S -c '
import sys
if sys.path and sys.path[0] == "":
    del sys.path[0]
archive = sys.argv[1]
sys.argv[:2] = [archive]
sys.path.append(archive)
main = sys.modules["__main__"]
main.__file__ = archive + "/__main__.py"
magic = getattr(sys.modules.get("_frozen_importlib_external"), "MAGIC_NUMBER", None)
tag = getattr(getattr(sys, "implementation", None), "cache_tag", None)
__compiled__ = None
if magic and tag:
    import marshal
    try:
        with open(archive, "rb") as file:
            at = file.read(4096).find(b"PK\\x03\\x04")
            while at >= 0:
                file.seek(at)
                header = file.read(30)
                name = file.read(int.from_bytes(header[26:28], "little"))
                if header[:4] != b"PK\\x03\\x04" or header[8:10] != bytes(2) or not name.startswith(b"@COMPILED@"):
                    break
                at += 30 + len(name) + int.from_bytes(header[28:30], "little")
                size = int.from_bytes(header[18:22], "little")
                if name == b"@COMPILED@" + tag.encode():
                    file.seek(at)
                    data = file.read(size)
                    if data[:4] == magic:
                        __compiled__ = marshal.loads(data[4:])
                    break
                at += size
    except (OSError, ValueError, EOFError, TypeError):
        __compiled__ = None
if __compiled__ and "postbag.__main__" in __compiled__:
    code = marshal.loads(__compiled__["postbag.__main__"][1])
else:
    from zipimport import zipimporter
    main.__loader__ = zipimporter(archive)
    code = main.__loader__.get_code("__main__")
exec(code, vars(main))
' "$0" "$@"
""".replace(b"@COMPILED@", COMPILED.encode())
ZIP_EPOCH = 315532800  # 1980-01-01T00:00:00Z
UNIX = 3  # the zip "created by" system


VERSIONS = ("3.10", "3.11", "3.12", "3.13", "3.14", "3.15")
# Run by each interpreter: compile every source given into one file named by its cache tag,
# in the folder given first (see the docstring). Each argument after it is NAME=PATH, NAME
# the source's place in the archive (postbag/claude/inbox.py), which its code is named by.
# Compiled as -OO compiles, without docstrings and asserts: a quarter less code to load at
# every start, and nothing postbag does at run time reads a docstring or needs an assert.
_COMPILE = """\
import importlib.util, marshal, os, sys
modules = {}
for each in sorted(sys.argv[2:]):
    name, path = each.split("=", 1)
    with open(path, "rb") as file:
        code = compile(file.read(), name, "exec", dont_inherit=True, optimize=2)
    module = name[:-3].replace("/", ".")
    is_package = module.endswith(".__init__")
    modules[module.removesuffix(".__init__")] = (is_package, marshal.dumps(code))
with open(os.path.join(sys.argv[1], sys.implementation.cache_tag), "wb") as file:
    file.write(importlib.util.MAGIC_NUMBER + marshal.dumps(modules))
"""


def build(out_dir):
    """Write postbag.pyz, and SHA256SUMS with its digest, as a release carries it (so that
    the README's check works on a local build too), into `out_dir`; return (path, size,
    digest, the Python versions it carries compiled code for)."""
    pythons = interpreters()
    sources = sorted((name, _read(source)) for name, source in _sources())
    package = [(name, source) for name, source in _sources() if name.startswith("postbag/")]
    entries = _compiled(pythons.values(), package) + sources  # first, where the launcher looks
    archive = zip_bytes(entries, _timestamp())
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "postbag.pyz")
    _write(path, archive, 0o755)
    digest = hashlib.sha256(archive).hexdigest()
    _write(os.path.join(out_dir, "SHA256SUMS"), f"{digest}  postbag.pyz\n".encode(), 0o644)
    return path, len(archive), digest, list(pythons)


def ensure_built():
    """dist/postbag.pyz, built first when it is missing or older than any source or than
    this script, which writes its launcher; returns (path, whether it was built now)."""
    path = os.path.join(ROOT, "dist", "postbag.pyz")
    newest = max(os.path.getmtime(source) for source in [__file__, *(source for _, source in _sources())])
    if os.path.exists(path) and os.path.getmtime(path) >= newest:
        return path, False
    return build(os.path.dirname(path))[0], True


def zip_bytes(entries, timestamp):
    """The zipapp: the launcher, then each (name, bytes), in order, with fixed metadata: the
    sources deflated, the compiled code stored as it is, so that the launcher reads it
    where it lies and no command loads zlib to run (a third of a millisecond, and another
    to inflate what an agent's verb loads)."""
    date_time = time.gmtime(max(timestamp, ZIP_EPOCH))[:6]
    buffer = io.BytesIO()
    buffer.write(LAUNCHER)
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time)
            info.compress_type = zipfile.ZIP_STORED if name.startswith(COMPILED) else zipfile.ZIP_DEFLATED
            info.create_system = UNIX
            info.external_attr = 0o100644 << 16
            archive.writestr(info, data, compresslevel=9)
    return buffer.getvalue()


def _sources():
    """The package's .py files, its rooms' among them, and its __main__.py again at the root
    as the entry point."""
    yield "__main__.py", os.path.join(PACKAGE, "__main__.py")
    for folder, folders, names in os.walk(PACKAGE):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        place = os.path.relpath(folder, os.path.dirname(PACKAGE)).replace(os.sep, "/")
        for name in sorted(names):
            if name.endswith(".py"):
                yield f"{place}/{name}", os.path.join(folder, name)


def _read(path):
    with open(path, "rb") as file:
        return file.read()


def interpreters():
    """{version: path} of each supported Python this machine has, the running one included."""
    found = {"{}.{}".format(*sys.version_info[:2]): sys.executable}
    roots = []
    try:
        pyenv = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=True).stdout.strip()
        roots = [os.path.join(pyenv, "versions")]
    except (OSError, subprocess.CalledProcessError):
        pass
    for version in VERSIONS:
        candidates = [shutil.which(f"python{version}")]
        for root in roots:
            candidates += sorted(glob.glob(os.path.join(root, f"{version}.*", "bin", f"python{version}")))
        for candidate in filter(None, candidates):
            if version in found:
                break
            if subprocess.run([candidate, "-c", ""], capture_output=True, check=False).returncode == 0:
                found[version] = candidate
    return {version: found[version] for version in VERSIONS if version in found}


def _compiled(pythons, sources):
    """The (COMPILED + tag, bytes) entry of each of `pythons`, its code of every (name,
    path) of `sources`, in the order of their tags."""
    with tempfile.TemporaryDirectory() as out:
        for python in pythons:
            subprocess.run(
                [python, "-I", "-c", _COMPILE, out, *(f"{name}={path}" for name, path in sources)], check=True
            )
        return [(COMPILED + tag, _read(os.path.join(out, tag))) for tag in sorted(os.listdir(out))]


def _timestamp():
    if "SOURCE_DATE_EPOCH" in os.environ:
        return int(os.environ["SOURCE_DATE_EPOCH"])
    try:
        last_commit = subprocess.run(
            ["git", "-C", ROOT, "log", "-1", "--format=%ct"], capture_output=True, text=True, check=True
        ).stdout
        return int(last_commit)
    except (OSError, subprocess.CalledProcessError, ValueError):
        return ZIP_EPOCH


def _write(path, data, mode):
    """Replace `path` at once: a concurrent build or run never sees half a file."""
    fd, partial = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".postbag-")
    with os.fdopen(fd, "wb") as file:
        file.write(data)
    os.chmod(partial, mode)
    os.replace(partial, path)


def main():
    parser = argparse.ArgumentParser(description="Build postbag.pyz reproducibly.")
    parser.add_argument("--out", default=os.path.join(ROOT, "dist"), help="output directory (default: dist)")
    args = parser.parse_args()
    path, size, digest, versions = build(args.out)
    shown = os.path.relpath(path)
    print(f"{path if shown.startswith('..') else shown}  {size:,} bytes  sha256 {digest}")
    print(f"compiled for Python {', '.join(versions)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
