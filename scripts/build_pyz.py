#!/usr/bin/env python3
"""Build dist/postbag.pyz, the one-file postbag, and its checksum, reproducibly.

Two builds of the same tree are byte-identical: entries are sorted, and every timestamp,
mode and creator field is fixed. Timestamps come from SOURCE_DATE_EPOCH, else the last
commit, else 1980-01-01 (the earliest time a zip can hold).

A zip holds no __pycache__, so Python would compile the sources on every run. Before
them the archive carries the package compiled by every Python from 3.10 to 3.15 that
the build finds (python3.X on PATH, or under pyenv), one entry for each, compiled/TAG
(TAG that Python's cache tag, cpython-311), laid out as postbag/launch.py says, the same
bytes every time. The launcher and the entry point run the one made for the running
Python, where it passes its check (magic number and CRC-32: marshal must never be handed
bad bytes); any other Python compiles the sources. The build says which it found.

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
from postbag.launch import COMPILED  # noqa: E402 (the folder of each Python's code, as the launcher reads it)

# The archive's first lines, which Python skips to find the zip after them. Run as a
# program, /bin/sh reads just these lines and starts python3 on postbag/launch.py, which
# Python's own zipimport reads from the archive: isolated and without `site` (-E -s -S),
# in words a python3 that is Python 2 also takes, so that it reaches the entry point and
# is refused politely. No PYTHON* variable, user site-packages or current directory can
# change what runs, and start-up skips `site` and `runpy`, which `python3 postbag.pyz`
# pays for. Where the archive is too damaged for that file to be read and run, it says
# so in one line.
LAUNCHER = b"""#!/bin/sh
command -v python3 >/dev/null || {
  echo "postbag needs Python 3.10 or later: there is no python3 on PATH" >&2
  exit 127
}
exec python3 -E -s -S -c 'import sys, zipimport
try:
    exec(zipimport.zipimporter(sys.argv[1]).get_data("postbag/launch.py"))
except Exception as error:
    sys.exit("postbag: %s is damaged (%s), so it cannot run: the human downloads it again" % (sys.argv[1], error))
start()' "$0" "$@"
"""
# What the launcher reads through zipimport before any compiled code: stored, so that no
# command loads zlib to inflate it.
READ_FIRST = ("postbag/launch.py",)
ZIP_EPOCH = 315532800  # 1980-01-01T00:00:00Z
UNIX = 3  # the zip "created by" system


VERSIONS = ("3.10", "3.11", "3.12", "3.13", "3.14", "3.15")
# Run by each interpreter: compile every source given into one file named by its cache tag,
# in the folder given first, laid out as postbag/launch.py reads it (COMPILED). Each
# argument after the folder is NAME=PATH, NAME the source's place in the archive
# (postbag/claude/inbox.py), which its code is named by. The docstrings are left out (a
# quarter less code to load at every start, and nothing postbag does reads one), and only
# they: the code keeps its asserts, which -OO would strip as well.
_COMPILE = """\
import ast, binascii, importlib.util, marshal, os, sys

def without_docstrings(tree):
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            value = getattr(first, "value", None)
            if isinstance(first, ast.Expr) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                node.body = body[1:] or [ast.copy_location(ast.Pass(), first)]
    return tree

modules = {}
for each in sorted(sys.argv[2:]):
    name, path = each.split("=", 1)
    with open(path, "rb") as file:
        tree = without_docstrings(ast.parse(file.read(), name))
    code = compile(tree, name, "exec", dont_inherit=True)
    module = name[:-3].replace("/", ".")
    is_package = module.endswith(".__init__")
    modules[module.removesuffix(".__init__")] = (is_package, marshal.dumps(code))
payload = marshal.dumps(modules)
with open(os.path.join(sys.argv[1], sys.implementation.cache_tag), "wb") as file:
    file.write(importlib.util.MAGIC_NUMBER + binascii.crc32(payload).to_bytes(4, "little") + payload)
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
    sources deflated, but the compiled code and what the launcher reads first stored as
    they are, so that no command loads zlib to run (a third of a millisecond, and another
    to inflate what an agent's verb loads)."""
    date_time = time.gmtime(max(timestamp, ZIP_EPOCH))[:6]
    buffer = io.BytesIO()
    buffer.write(LAUNCHER)
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time)
            stored = name.startswith(COMPILED) or name in READ_FIRST
            info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
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
