"""The real Claude Code and Codex CLIs, pinned in pairs, and installed from npm into
.cache/clients, one folder per package version so that pairs can sit side by side.

    python3 tests/clients install              # the newest pair: what .ci/run installs first
    python3 tests/clients install oldest       # the oldest versions postbag claims
    python3 tests/clients install oldest-whole # the oldest that run every journey
    POSTBAG_CLIENTS=oldest hatch test -- tests/real        # the tier on that pair
    POSTBAG_CLIENTS=claude@2.1.332,codex@0.171.0 ...       # on any other pair

POSTBAG_CLIENTS names the pair the tier runs (`newest` when unset). The pairs are the
ends of the ranges postbag claims (PROVEN in src/postbag/claude/room.py and codex/room.py): move one
only after the tier has passed on the new version (CONTRIBUTING.md says how). The readers of the vendors' records
(receipts) and the stand-in models depend on the formats these versions write and send.
"""

import glob
import json
import os
import platform
import shutil
import subprocess
import sys

from helpers import ROOT

from postbag.claude.room import HOLDS_SINCE, MOVES_SINCE
from postbag.codex.wake import WAKES_SINCE
from postbag.vendors import all_rooms
from postbag.versions import numbers

CACHE = os.path.join(ROOT, ".cache", "clients")
PACKAGES = {"codex": "@openai/codex", "claude": "@anthropic-ai/claude-code"}
# The pairs are the rooms' PROVEN ranges, one fact in one place: what the tier proves is
# what an unknown receipt calls proven.
PAIRS = {
    "newest": {peer: room.PROVEN[1] for peer, room in all_rooms().items()},
    "oldest": {peer: room.PROVEN[0] for peer, room in all_rooms().items()},
    # The oldest pair on which no journey skips: where waking, holding, and going on in a
    # moved folder begin.
    "oldest-whole": {"codex": WAKES_SINCE, "claude": max(HOLDS_SINCE, MOVES_SINCE, key=numbers)},
}
# The official TypeScript MCP SDK, a second reference client of `postbag mcp` (test_mcp.py).
SDK = ("@modelcontextprotocol/sdk", "1.32.2")
CHOOSER = "POSTBAG_CLIENTS"


def pair_of(words):
    """The versions a pair's name or a `claude@V,codex@V` list names, by peer; SystemExit,
    saying what is accepted, for anything else."""
    if words in PAIRS:
        return dict(PAIRS[words])
    versions = dict(part.strip().partition("@")[::2] for part in words.split(","))
    if sorted(versions) != sorted(PACKAGES) or not all(versions.values()):
        raise SystemExit(
            f"{CHOOSER}={words!r} names no pair: give {' or '.join(PAIRS)}, or claude@VERSION,codex@VERSION"
        )
    return versions


PAIR = pair_of(os.environ.get(CHOOSER) or "newest")
PINS = {peer: (PACKAGES[peer], PAIR[peer]) for peer in PACKAGES}


def install(pair=PINS):
    """npm-install a pair of clients and the SDK into .cache/clients, unless they are there
    already. A Claude Code its vendor has published only as this machine's own build (its
    Linux builds run ahead of the package that wraps them) is installed from that build,
    and said so."""
    for name, version in [*pair.values(), SDK]:
        if installed_version(name, version) == version:
            continue
        if shutil.which("npm") is None:
            raise SystemExit("npm is not installed")
        package = name
        if name == PACKAGES["claude"] and not published(name, version):
            package = _platform_only(name, version)
        prefix = _prefix(name, version)
        os.makedirs(prefix, exist_ok=True)
        npm = ["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error"]
        subprocess.run([*npm, f"{package}@{version}"], check=True)


def _platform_only(name, version):
    """The package of this machine's build of Claude Code `version`, which its vendor has
    published as that build alone, said so; SystemExit where it has not."""
    build = platform_build()
    if build is None or not published(build, version):
        raise SystemExit(f"{name}@{version} is published neither whole nor as this machine's build")
    platform_name = build.removeprefix(f"{name}-")
    print(f"{name}@{version} is not published, only its {platform_name} build: installing {build}@{version}")
    return build


def published(package, version):
    """Whether npm's registry holds `package` at `version`."""
    shown = subprocess.run(["npm", "view", f"{package}@{version}", "version"], capture_output=True, text=True)
    return shown.returncode == 0 and version in shown.stdout.split()


def platform_build(system=sys.platform, machine=None, musl=None):
    """The npm package of Claude Code's native build for this machine (the one the wrapper
    package installs beside itself), or None where it has none."""
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        (machine or platform.machine()).lower()
    )
    if machine is None or system not in ("linux", "darwin"):
        return None
    if musl is None:
        musl = system == "linux" and bool(glob.glob("/lib/ld-musl-*.so.1"))
    return f"{PACKAGES['claude']}-{system}-{machine}" + ("-musl" if musl else "")


def latest():
    """The pair npm calls latest now, as POSTBAG_CLIENTS spells it: the canary's pair."""
    found = {
        peer: subprocess.run(
            ["npm", "view", package, "version"], capture_output=True, text=True, check=True
        ).stdout.strip()
        for peer, package in PACKAGES.items()
    }
    return ",".join(f"{peer}@{version}" for peer, version in sorted(found.items()))


def _prefix(name, version):
    return os.path.join(CACHE, f"{name.rpartition('/')[2]}-{version}")


def _package_folder(name, version):
    return os.path.join(_prefix(name, version), "node_modules", *name.split("/"))


def installed_version(package, version=None):
    """The version of an npm package (a peer names its client's) installed in .cache/clients
    for `version` (the pair's, else the SDK's pin), or None."""
    if package in PINS:
        package, version = PINS[package]
    version = version or dict([*PINS.values(), SDK]).get(package)
    folders = [_package_folder(package, version)]
    if package == PACKAGES["claude"]:  # or installed as this machine's build alone
        folders += glob.glob(os.path.join(_prefix(package, version), "node_modules", "@anthropic-ai", "claude-code-*"))
    for folder in folders:
        try:
            with open(os.path.join(folder, "package.json")) as file:
                return json.load(file)["version"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def missing():
    """Why the real-client tier cannot run here, every reason in one line, or None when it can."""
    reasons = [f"{tool} is not installed" for tool in ("node", "npm") if shutil.which(tool) is None]
    absent = [f"{name}@{version}" for name, version in PINS.values() if installed_version(name) != version]
    if absent:
        verb = "is" if len(absent) == 1 else "are"
        how = "python3 tests/clients install" + ("" if PAIRS["newest"] == PAIR else f" {_spelled(PAIR)}")
        reasons.append(f"{' and '.join(absent)} {verb} not installed ({how}, with npm)")
    if sys.platform != "linux" or os.geteuid() != 0 or shutil.which("nsenter") is None:
        reasons.append("there is no network namespace to keep the clients local (it needs Linux, root and nsenter)")
    return "; ".join(reasons) or None


def _spelled(pair):
    named = [name for name, versions in PAIRS.items() if versions == pair]
    return named[0] if named else ",".join(f"{peer}@{version}" for peer, version in sorted(pair.items()))


def too_old(versions, needs):
    """Why this pair cannot run a journey that needs `needs` (in words), from the `versions`
    it needs by peer ({"codex": "0.166.0"}), or None where it can."""
    older = [
        f"{peer} {version} or later (this pair has {PAIR[peer]})"
        for peer, version in sorted(versions.items())
        if numbers(PAIR[peer]) < numbers(version)
    ]
    return f"{needs} needs {' and '.join(older)}" if older else None


def sdk_directory():
    """The pinned TypeScript SDK, with node to run it; or None, with why, when either is missing."""
    if shutil.which("node") is None:
        return None, "node is not installed"
    if installed_version(*SDK) != SDK[1]:
        return None, f"{SDK[0]}@{SDK[1]} is not installed: run python3 tests/clients install"
    return _package_folder(*SDK), None


def codex_binary():
    return os.path.join(_prefix(*PINS["codex"]), "node_modules", ".bin", "codex")


def claude_binary():
    """The native binary: npm skips the wrapper's postinstall on Node older than 22."""
    prefix = _prefix(*PINS["claude"])
    found = glob.glob(os.path.join(prefix, "node_modules", "@anthropic-ai", "claude-code-*", "claude"))
    return found[0] if found else os.path.join(prefix, "node_modules", ".bin", "claude")
