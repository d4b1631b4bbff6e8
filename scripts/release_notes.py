#!/usr/bin/env python3
"""Check a release tag against the package and print its CHANGELOG entry.

    python3 scripts/release_notes.py vX.Y.Z > NOTES.md

Exits 1 with a reason when the version in src/postbag/__init__.py is a development one
(X.Y.Z.devN, what main carries between releases), when the tag is not `v` + that version,
or when CHANGELOG.md has no non-empty `## [X.Y.Z]` entry or no `[X.Y.Z]: URL` link line.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def package_version():
    with open(os.path.join(ROOT, "src", "postbag", "__init__.py")) as file:
        return re.search(r'^__version__ = "([^"]+)"$', file.read(), re.MULTILINE).group(1)


def changelog_entry(version, changelog):
    """The text under `## [version]`, up to the next `## [` heading or link references."""
    heading = re.compile(rf"^## \[{re.escape(version)}\][^\n]*\n", re.MULTILINE)
    found = heading.search(changelog)
    if found is None:
        return ""
    rest = changelog[found.end() :]
    end = re.search(r"^(## \[|\[[^\]]+\]: )", rest, re.MULTILINE)
    return rest[: end.start() if end else len(rest)].strip()


def has_link(version, changelog):
    return re.search(rf"^\[{re.escape(version)}\]: \S+$", changelog, re.MULTILINE) is not None


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    tag, version = argv[0], package_version()
    if ".dev" in version:
        sys.exit(f"release_notes: the package version {version} is a development one; set the release's first")
    if tag != f"v{version}":
        sys.exit(f"release_notes: tag {tag} does not match the package version {version} (expected v{version})")
    with open(os.path.join(ROOT, "CHANGELOG.md")) as file:
        changelog = file.read()
    notes = changelog_entry(version, changelog)
    if not notes:
        sys.exit(f"release_notes: CHANGELOG.md has no entry for {version}")
    if not has_link(version, changelog):
        sys.exit(f"release_notes: CHANGELOG.md has no link line [{version}]: for its entry")
    print(notes)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
