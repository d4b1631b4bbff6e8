"""The real Claude Code and Codex CLIs, pinned, and installed from npm into .cache/clients.

    python3 tests/clients install      # what .ci/run and the README's prerequisites run

The versions below are the ones the real-client tier proved. Move a pin only after the
tier has passed on the new version: the readers of the vendors' records (receipts) and
the stand-in models depend on the formats these versions write and send.
"""

import glob
import json
import os
import shutil
import subprocess
import sys

from helpers import ROOT

CACHE = os.path.join(ROOT, ".cache", "clients")
PINS = {"codex": ("@openai/codex", "0.169.0"), "claude": ("@anthropic-ai/claude-code", "2.1.328")}
# The official TypeScript MCP SDK, a second reference client of `postbag mcp` (test_mcp.py).
SDK = ("@modelcontextprotocol/sdk", "1.32.2")


def install():
    """npm-install the pinned clients and the SDK into .cache/clients, unless they are there already."""
    wanted = [*PINS.values(), SDK]
    if all(installed_version(name) == version for name, version in wanted):
        return
    if shutil.which("npm") is None:
        raise SystemExit("npm is not installed")
    packages = [f"{name}@{version}" for name, version in wanted]
    os.makedirs(CACHE, exist_ok=True)
    subprocess.run(
        ["npm", "install", "--prefix", CACHE, "--no-audit", "--no-fund", "--loglevel=error", *packages], check=True
    )


def installed_version(package):
    """The version of an npm package (a peer names its client's) in .cache/clients, or None."""
    package = PINS[package][0] if package in PINS else package
    package = os.path.join(CACHE, "node_modules", *package.split("/"), "package.json")
    try:
        with open(package) as file:
            return json.load(file)["version"]
    except (OSError, ValueError, KeyError):
        return None


def missing():
    """Why the real-client tier cannot run here, every reason in one line, or None when it can."""
    reasons = [f"{tool} is not installed" for tool in ("node", "npm") if shutil.which(tool) is None]
    absent = [f"{name}@{version}" for name, version in PINS.values() if installed_version(name) != version]
    if absent:
        verb = "is" if len(absent) == 1 else "are"
        reasons.append(f"{' and '.join(absent)} {verb} not installed (python3 tests/clients install, with npm)")
    if sys.platform != "linux" or os.geteuid() != 0 or shutil.which("nsenter") is None:
        reasons.append("there is no network namespace to keep the clients local (it needs Linux, root and nsenter)")
    return "; ".join(reasons) or None


def sdk_directory():
    """The pinned TypeScript SDK, with node to run it; or None, with why, when either is missing."""
    if shutil.which("node") is None:
        return None, "node is not installed"
    if installed_version(SDK[0]) != SDK[1]:
        return None, f"{SDK[0]}@{SDK[1]} is not installed: run python3 tests/clients install"
    return os.path.join(CACHE, "node_modules", *SDK[0].split("/")), None


def codex_binary():
    return os.path.join(CACHE, "node_modules", ".bin", "codex")


def claude_binary():
    """The native binary: npm skips the wrapper's postinstall on Node older than 22."""
    found = glob.glob(os.path.join(CACHE, "node_modules", "@anthropic-ai", "claude-code-*", "claude"))
    return found[0] if found else os.path.join(CACHE, "node_modules", ".bin", "claude")
