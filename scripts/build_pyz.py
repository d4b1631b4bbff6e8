#!/usr/bin/env python3
"""Build dist/postbag.pyz, the one-file postbag, and its checksum, reproducibly.

Two builds of the same tree are byte-identical: entries are sorted, and every timestamp,
mode and creator field is fixed. Timestamps come from SOURCE_DATE_EPOCH, else the last
commit, else 1980-01-01 (the earliest time a zip can hold).

    python3 scripts/build_pyz.py [--out DIR]
"""

import argparse
import hashlib
import io
import os
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "src", "postbag")
SHEBANG = b"#!/usr/bin/env python3\n"
ZIP_EPOCH = 315532800  # 1980-01-01T00:00:00Z
UNIX = 3  # the zip "created by" system


def build(out_dir):
    """Write postbag.pyz and postbag.pyz.sha256 into `out_dir`; return (path, size, digest)."""
    archive = zip_bytes(sorted(_sources()), _timestamp())
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "postbag.pyz")
    _write(path, archive, 0o755)
    digest = hashlib.sha256(archive).hexdigest()
    _write(path + ".sha256", f"{digest}  postbag.pyz\n".encode(), 0o644)
    return path, len(archive), digest


def ensure_built():
    """dist/postbag.pyz, built first when it is missing or older than any source; returns
    (path, whether it was built now)."""
    path = os.path.join(ROOT, "dist", "postbag.pyz")
    newest = max(os.path.getmtime(source) for _, source in _sources())
    if os.path.exists(path) and os.path.getmtime(path) >= newest:
        return path, False
    return build(os.path.dirname(path))[0], True


def zip_bytes(entries, timestamp):
    """The zipapp: shebang, then each (name, source file) deflated with fixed metadata."""
    date_time = time.gmtime(max(timestamp, ZIP_EPOCH))[:6]
    buffer = io.BytesIO()
    buffer.write(SHEBANG)
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, source in entries:
            info = zipfile.ZipInfo(name, date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = UNIX
            info.external_attr = 0o100644 << 16
            with open(source, "rb") as file:
                archive.writestr(info, file.read(), compresslevel=9)
    return buffer.getvalue()


def _sources():
    """The package's .py files, and its __main__.py again at the root as the entry point."""
    yield "__main__.py", os.path.join(PACKAGE, "__main__.py")
    for name in os.listdir(PACKAGE):
        if name.endswith(".py"):
            yield f"postbag/{name}", os.path.join(PACKAGE, name)


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
    path, size, digest = build(args.out)
    shown = os.path.relpath(path)
    print(f"{path if shown.startswith('..') else shown}  {size:,} bytes  sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
