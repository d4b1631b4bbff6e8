"""scripts/release_notes.py: a release tag must match the version, its CHANGELOG entry and its link."""

import os
import shutil
import subprocess
import sys

import pytest
from helpers import ROOT

VERSION_FILE = '"""postbag."""\n\n__version__ = "{}"\n'
CHANGELOG = "# Changelog\n\n## [Unreleased]\n\n## [2.0.0] - 2027-01-01\n\n### Added\n- close.\n\n{links}"
LINKS = "[Unreleased]: https://example.invalid/compare\n[2.0.0]: https://example.invalid/v2.0.0\n"


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(os.path.join(ROOT, "scripts", "release_notes.py"), tmp_path / "scripts")
    (tmp_path / "src" / "postbag").mkdir(parents=True)
    (tmp_path / "src" / "postbag" / "__init__.py").write_text(VERSION_FILE.format("2.0.0"))
    return tmp_path


def notes(tree, tag, links=LINKS):
    (tree / "CHANGELOG.md").write_text(CHANGELOG.format(links=links))
    script = str(tree / "scripts" / "release_notes.py")
    return subprocess.run([sys.executable, script, tag], capture_output=True, text=True, check=False)


def test_a_complete_release_prints_its_entry(tree):
    result = notes(tree, "v2.0.0")
    assert (result.returncode, result.stdout) == (0, "### Added\n- close.\n")


def test_a_tag_that_is_not_the_version_is_refused(tree):
    result = notes(tree, "v2.0.1")
    assert (result.returncode, result.stderr) == (
        1,
        "release_notes: tag v2.0.1 does not match the package version 2.0.0 (expected v2.0.0)\n",
    )


def test_a_release_without_its_link_line_is_refused(tree):
    result = notes(tree, "v2.0.0", links="[Unreleased]: https://example.invalid/compare\n")
    assert (result.returncode, result.stderr) == (
        1,
        "release_notes: CHANGELOG.md has no link line [2.0.0]: for its entry\n",
    )


def test_a_development_version_is_no_release(tree):
    (tree / "src" / "postbag" / "__init__.py").write_text(VERSION_FILE.format("2.1.0.dev0"))
    result = notes(tree, "v2.1.0.dev0")
    assert (result.returncode, result.stderr) == (
        1,
        "release_notes: the package version 2.1.0.dev0 is a development one; set the release's first\n",
    )


def test_the_tree_itself_is_a_release_named_in_the_changelog_or_a_development_build_with_news():
    from postbag import __version__

    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "release_notes.py"), f"v{__version__}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if ".dev" in __version__:  # main between releases: what it carries is under Unreleased
        with open(os.path.join(ROOT, "CHANGELOG.md")) as file:
            unreleased = file.read().split("## [Unreleased]", 1)[1].split("\n## [", 1)[0]
        assert result.returncode == 1 and unreleased.strip()
    else:
        assert result.returncode == 0, result.stderr
