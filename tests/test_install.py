"""README's Install, run as a new user runs it: each command of its shell blocks, in the
order written, in a fresh home, with npm's packages of both clients stood in for by fakes
that answer their configuration commands as the clients do; the downloaded postbag.pyz is
the built one, beside its SHA256SUMS."""

import json
import os
import shutil
import subprocess
import sys

import pytest
from fakes import CLIENT_COMMANDS, FAKE_CLAUDE, FAKE_CODEX, path_with_python3
from helpers import ROOT

# A fake npm: `npm install -g PACKAGE@VERSION` puts the package under the global root, with
# a client that answers its configuration commands; a wrapper package links its program
# into the global bin folder, a platform build of Claude Code links none (as npm does);
# `npm root -g` names the global root.
FAKE_NPM = """\
#!{python} -S
import json, os, sys
prefix = os.environ["FAKE_NPM_PREFIX"]
root = os.path.join(prefix, "lib", "node_modules")
if sys.argv[1:] == ["root", "-g"]:
    print(root)
    sys.exit(0)
if sys.argv[1:3] != ["install", "-g"] or len(sys.argv) != 4:
    sys.exit("fake npm: only install -g PACKAGE@VERSION and root -g")
name, _, version = sys.argv[3].rpartition("@")
programs = json.loads(os.environ["FAKE_NPM_PROGRAMS"])
folder = os.path.join(root, name)
os.makedirs(folder, exist_ok=True)
with open(os.path.join(folder, "client_commands.py"), "w") as file:
    file.write(os.environ["FAKE_NPM_COMMANDS"])
program, script, linked = programs[name]
path = os.path.join(folder, program)
with open(path, "w") as file:
    file.write(script.replace("VERSION", version))
os.chmod(path, 0o755)
if linked:
    os.makedirs(os.path.join(prefix, "bin"), exist_ok=True)
    os.symlink(path, os.path.join(prefix, "bin", program))
"""


def install_blocks():
    """The shell blocks of README's Install, each its list of lines, in order."""
    with open(os.path.join(ROOT, "README.md")) as file:
        install = file.read().split("## Install\n", 1)[1].split("\n## ", 1)[0]
    return [block.split("```", 1)[0].splitlines() for block in install.split("```sh\n")[1:]]


@pytest.mark.parametrize("build", [False, True], ids=["the package", "Linux's own build"])
def test_readmes_install_runs_in_the_order_written_in_a_fresh_home(pyz, tmp_path, build):
    clients, linux_build, postbag = install_blocks()
    if build:  # "on Linux, in place of the last line"
        clients = [*clients[:-1], *linux_build]
    home = tmp_path / "home"
    downloads = home / "Downloads"
    downloads.mkdir(parents=True)
    for name in ("postbag.pyz", "SHA256SUMS"):
        shutil.copy(os.path.join(os.path.dirname(pyz), name), downloads)
    prefix, tools = tmp_path / "npm-global", tmp_path / "tools"
    python_bin = path_with_python3(str(tmp_path / "python-bin"))  # the python3 the downloaded file starts
    _tool(tools, "npm", FAKE_NPM.format(python=sys.executable))
    _tool(tools, "gh", "#!/bin/sh\nexit 0\n")  # the attestation's check: GitHub's, offline here
    if shutil.which("sha256sum") is None:  # macOS: README's comment gives shasum
        _tool(tools, "sha256sum", '#!/bin/sh\nexec shasum -a 256 "$@"\n')
    claude = FAKE_CLAUDE.format(python=sys.executable, version="VERSION")
    programs = {
        "@openai/codex": ["codex", FAKE_CODEX.format(python=sys.executable), True],
        "@anthropic-ai/claude-code": ["claude", claude, True],
        "@anthropic-ai/claude-code-linux-x64": ["claude", claude, False],
    }
    env = {
        "HOME": str(home),
        "PATH": os.pathsep.join([str(prefix / "bin"), str(home / ".local" / "bin"), str(tools), python_bin]),
        "FAKE_NPM_PREFIX": str(prefix),
        "FAKE_NPM_PROGRAMS": json.dumps(programs),
        "FAKE_NPM_COMMANDS": CLIENT_COMMANDS,
    }
    script = "\n".join(["set -eu", "cd ~", *clients, *postbag])
    done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "postbag.pyz: OK" in done.stdout
    assert done.stdout.endswith(
        "setup made these 3 changes; start Claude Code and Codex again: each reads its MCP servers as it starts\n"
    )
    assert os.access(home / ".local" / "bin" / "postbag", os.X_OK)


def _tool(folder, name, text):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path, "w") as file:
        file.write(text)
    os.chmod(path, 0o755)
