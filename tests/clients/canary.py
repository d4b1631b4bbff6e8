"""The weekly canary: what npm has published of each client, beside what postbag claims
(each room's PROVEN), and the real-client tier on each newest build this machine can run
that postbag does not claim yet, each with the other client at its newest claimed.

Claude Code's Linux builds can run ahead of the package that wraps them (2.1.333 to 2.1.336
were published as @anthropic-ai/claude-code-linux-x64 and -linux-arm64 alone): so the
wrapper, every platform build and Codex are each asked, and this machine's own build is
the one the tier runs. `--dry-run` says what it would run and runs nothing.
"""

import json
import os
import subprocess
import sys

from helpers import ROOT

from clients.pins import PACKAGES, PAIRS, platform_build
from postbag.versions import numbers

# Claude Code's builds, one npm package a platform (the wrapper depends on each).
CLAUDE_BUILDS = ("linux-x64", "linux-arm64", "linux-x64-musl", "linux-arm64-musl", "darwin-x64", "darwin-arm64")


def published(package):
    """(the version npm calls latest for `package`, the day it was published), or (None, None)."""
    shown = subprocess.run(
        ["npm", "view", package, "dist-tags", "time", "--json"], capture_output=True, text=True, check=False
    )
    try:
        found = json.loads(shown.stdout)
    except ValueError:
        return None, None
    latest = found.get("dist-tags", {}).get("latest")
    return latest, (found.get("time", {}).get(latest) or "")[:10] or None


def newer(version, than):
    return numbers(version) is not None and numbers(version) > numbers(than)


def plan():
    """(the lines that say what npm has published and what postbag claims, the pairs to run
    the tier on, each with why)."""
    claimed = {peer: (PAIRS["oldest"][peer], PAIRS["newest"][peer]) for peer in PACKAGES}
    packages = [PACKAGES["claude"], *(f"{PACKAGES['claude']}-{build}" for build in CLAUDE_BUILDS), PACKAGES["codex"]]
    found = {package: published(package) for package in packages}
    width = max(map(len, packages))
    lines = ["published on npm:"]
    for package, (version, day) in found.items():
        lines.append(f"  {package:<{width}}  {version or 'not found'}  {day or ''}".rstrip())
    lines.append(
        f"claimed: Claude Code {claimed['claude'][0]} to {claimed['claude'][1]}, "
        f"Codex {claimed['codex'][0]} to {claimed['codex'][1]}"
    )
    own = platform_build()
    claude_newest = found.get(own, (None,))[0] if own else None
    codex_newest = found[PACKAGES["codex"]][0]
    pairs = []
    if claude_newest and newer(claude_newest, claimed["claude"][1]):
        why = f"Claude Code {claude_newest} ({own}, this machine's build) is not claimed"
        pairs.append((f"claude@{claude_newest},codex@{claimed['codex'][1]}", why))
    if codex_newest and newer(codex_newest, claimed["codex"][1]):
        why = f"Codex {codex_newest} is not claimed"
        pairs.append((f"claude@{claimed['claude'][1]},codex@{codex_newest}", why))
    builds = {package: version for package, (version, _) in found.items() if package.startswith(PACKAGES["claude"])}
    elsewhere = [
        f"{package.removeprefix(PACKAGES['claude'] + '-')} {version}"
        for package, version in builds.items()
        if package != own and version and newer(version, claimed["claude"][1])
    ]
    if elsewhere:
        lines.append(f"not claimed, and not this machine's to run: Claude Code {', '.join(elsewhere)}")
    if not pairs:
        lines.append("to run: nothing; each newest build this machine can run is claimed")
    lines += [f"to run: the tier on {pair}, as {why}" for pair, why in pairs]
    return lines, pairs


def run_tier(pair):
    """The tier on `pair`, installed first: (passed, the checks that failed or erred)."""
    installed = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "clients"), "install", pair], check=False)
    if installed.returncode:
        return False, [f"installing {pair} failed"]
    ran = subprocess.run(
        ["hatch", "test", "--", "tests/real", "-rfE", "-n", "4"],
        cwd=ROOT,
        env={**os.environ, "POSTBAG_CLIENTS": pair},
        capture_output=True,
        text=True,
        check=False,
    )
    sys.stdout.write(ran.stdout[-20000:])
    broke = [line for line in ran.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    return ran.returncode == 0, broke


def main(dry_run):
    lines, pairs = plan()
    broke = []
    if not dry_run:
        for pair, _ in pairs:
            passed, failed = run_tier(pair)
            lines.append(f"{pair}: the tier passes" if passed else f"{pair}: broke:")
            lines += [f"  {line}" for line in failed]
            broke += [] if passed else [pair]
    print("\n".join(lines))
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a") as file:
            file.write("## The canary\n\n```\n" + "\n".join(lines) + "\n```\n")
    if broke:
        print(f"::error title=The tier fails on {' and '.join(broke)}::the run's summary names each check")
    return 1 if broke else 0
