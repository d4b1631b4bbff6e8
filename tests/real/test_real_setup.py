"""`postbag setup` and `postbag doctor` on the real clients, in a throwaway home: setup
registers the postbag.pyz people download through each client's own command, which then
shows it as its own; doctor names the one fix for each step missing, and says ok once
setup has run; --remove takes it all out again."""

import json
import os
import subprocess

import clients
import pytest
from fakes import path_with_python3, terminal_environment


@pytest.fixture
def person(pyz, namespace, tmp_path):
    """A person's terminal: a fresh home, postbag.pyz on PATH as `postbag`, and `claude` and
    `codex` on PATH, the pinned clients kept offline inside the namespace."""
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    path = path_with_python3(str(bin_dir))
    os.symlink(pyz, bin_dir / "postbag")
    codex_home = clients.CodexHome(str(home / ".codex"), namespace)
    codex_home.wrapper(str(bin_dir))
    clients.sessions.claude_wrapper(namespace, str(bin_dir))
    env = terminal_environment(HOME=str(home), PATH=path, **codex_home.env)
    return env, str(bin_dir / "postbag")


def run(env, *argv, cwd=None):
    return subprocess.run(list(argv), env=env, capture_output=True, text=True, timeout=120, check=False, cwd=cwd)


def trusting(home):
    """The person's home as a folder they trust, as one who ran claude there and accepted
    its dialog: from Claude Code 2.1.337, `claude mcp get` starts a server to show its state
    only in a trusted folder ("Not checked (folder not trusted; run `claude` here)")."""
    path = os.path.join(home, ".claude.json")
    with open(path) as file:
        config = json.load(file)
    config.setdefault("projects", {}).setdefault(home, {})["hasTrustDialogAccepted"] = True
    with open(path, "w") as file:
        json.dump(config, file)
    return home


def test_setup_registers_postbag_with_the_real_clients_and_doctor_says_what_each_step_needs(person):
    env, postbag = person
    claude, codex = clients.PAIR["claude"], clients.PAIR["codex"]
    before = run(env, "postbag", "doctor")
    assert before.returncode == 1
    lines = before.stdout.splitlines()
    assert f"ok    Claude Code: {claude}, within the versions postbag is proven on" in "\n".join(lines)
    assert f"ok    Codex: {codex}, within the versions postbag is proven on" in "\n".join(lines)
    assert "fix   Claude Code's registration of postbag: there is none: run postbag setup" in lines
    assert "fix   Codex's registration of postbag: there is none: run postbag setup" in lines
    assert "fix   the permission rule: Claude Code would ask before each of postbag's tools: run postbag setup" in lines

    set_up = run(env, "postbag", "setup")
    assert set_up.returncode == 0, set_up.stderr
    assert set_up.stdout.endswith(
        "setup made these 3 changes; start Claude Code and Codex again: each reads its MCP servers as it starts\n"
    )
    # Each client shows it as its own: Claude Code starts it and it connects; Codex names it.
    shown = run(env, "claude", "mcp", "get", "postbag", cwd=trusting(env["HOME"]))
    assert shown.returncode == 0 and f"Command: {postbag}" in shown.stdout and "Connected" in shown.stdout, shown
    got = json.loads(run(env, "codex", "mcp", "get", "postbag", "--json").stdout)
    assert (got["transport"]["command"], got["transport"]["args"]) == (postbag, ["mcp"])

    after = run(env, "postbag", "doctor")
    assert [line for line in after.stdout.splitlines() if line.startswith("fix")] == [] and after.returncode == 0
    assert "ok    Claude Code's registration of postbag: it starts this postbag, which answers" in after.stdout
    assert "ok    Codex's registration of postbag: it starts this postbag, which answers" in after.stdout
    assert run(env, "postbag", "setup").stdout == "setup finds nothing to change\n"

    removed = run(env, "postbag", "setup", "--remove")
    assert removed.returncode == 0, removed.stderr
    assert run(env, "claude", "mcp", "get", "postbag").returncode == 1
    assert run(env, "codex", "mcp", "get", "postbag", "--json").returncode == 1


def test_on_the_real_clients_a_persons_settings_come_back_byte_for_byte_and_a_later_ledger_is_one_change(
    person, tmp_path
):
    env, _ = person
    settings = os.path.join(env["HOME"], ".claude", "settings.json")
    os.makedirs(os.path.dirname(settings))
    # One line, as some keep it. (No "model": "opus": Claude Code 2.1.248 to 2.1.271 rewrite
    # such a file whenever one of their commands starts, the model made "opus[1m]", the
    # file laid out anew; that change is Claude Code's, and the kept copy holds the file.)
    mine = b'{"theme":"dark","permissions":{"allow":["Bash(git status)"]},"cleanupPeriodDays":30}'
    with open(settings, "wb") as file:
        file.write(mine)
    # Codex's config.toml as a person keeps it: a comment inside a table, readable by all.
    config = os.path.join(env["CODEX_HOME"], "config.toml")
    with open(config, "ab") as file:
        file.write(b'\n[mcp_servers.other]\n# my own server, kept offline\ncommand = "true"\n')
    os.chmod(config, 0o644)
    with open(config, "rb") as file:
        toml = file.read()
    set_up = run(env, "postbag", "setup")
    assert set_up.returncode == 0, set_up.stderr
    assert f"so setup keeps the file as it found it, in {config}.before-postbag" in set_up.stderr
    with open(config, "rb") as file:
        assert b"# my own server" not in file.read()  # what Codex's own command does to the person's file
    with open(settings, "rb") as file:
        assert file.read() == mine.replace(b'"Bash(git status)"]', b'"Bash(git status)","mcp__postbag"]')

    # The ledger named after setup: doctor says which, and both fixes; setup moves both registrations in one change.
    unnamed = {name: value for name, value in env.items() if name != "POSTBAG_LEDGER"}
    assert "fix" not in run(unnamed, "postbag", "doctor").stdout.split()
    shared = str(tmp_path / "shared" / "ledger.jsonl")
    named = {**env, "POSTBAG_LEDGER": shared}
    told = run(named, "postbag", "doctor")
    assert (
        "fix   Claude Code's registration of postbag: it starts this postbag on each session's own ledger (its "
        "repository's, or "
        f"the default), and this terminal names the ledger {shared}: to keep the clients' ledger, which setup gave "
        "them, unset POSTBAG_LEDGER in this terminal (and in your shell's startup file); or run postbag setup, which "
        "points it at this one"
    ) in told.stdout.splitlines(), told.stdout
    moved = run(named, "postbag", "setup")
    assert moved.returncode == 0, moved.stderr
    assert moved.stdout.count("points postbag's MCP server at the ledger this terminal names") == 2
    got = json.loads(run(env, "codex", "mcp", "get", "postbag", "--json").stdout)
    assert got["transport"]["env"] == {"POSTBAG_LEDGER": shared}
    assert f"POSTBAG_LEDGER={shared}" in run(env, "claude", "mcp", "get", "postbag").stdout
    after = run(named, "postbag", "doctor")
    assert after.returncode == 0, after.stdout

    removed = run(env, "postbag", "setup", "--remove")
    assert removed.returncode == 0, removed.stderr
    with open(settings, "rb") as file:
        assert file.read() == mine
    assert not os.path.exists(settings + ".before-postbag")
    with open(config, "rb") as file:
        assert file.read() == toml and os.stat(config).st_mode & 0o777 == 0o644
    assert not os.path.exists(config + ".before-postbag")
    assert run(env, "claude", "mcp", "get", "postbag").returncode == 1
    assert run(env, "codex", "mcp", "get", "postbag", "--json").returncode == 1


def claude_doctor(env):
    """What the real `claude doctor` prints, in a pseudo-terminal (it will not run without
    one), less the terminal's escapes: among it, each settings file it could not load."""
    import pty
    import re
    import select
    import time

    leader, follower = pty.openpty()
    child = subprocess.Popen(
        ["claude", "doctor"], env={**env, "TERM": "dumb"}, stdin=follower, stdout=follower, stderr=follower
    )
    os.close(follower)
    shown, deadline = b"", time.monotonic() + 60
    while time.monotonic() < deadline:
        if select.select([leader], [], [], 0.5)[0]:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end is gone
                break
            if not chunk:
                break
            shown += chunk
        elif child.poll() is not None:
            break
    child.kill()
    child.wait()
    os.close(leader)
    return re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", shown.decode(errors="replace"))


HOSTILE = {  # each a settings.json that Claude Code itself reads as valid, and what makes it hard
    "a key twice, and a number past a double": (
        b'{"permissions": {}, "big": 1e400, "permissions": {"allow": ["Bash(ls)"]}}'
    ),
    "nested past Python's recursion, an int past its digits": (
        b'{"deep": ' + b"[" * 20000 + b"1" + b"]" * 20000 + b', "n": ' + b"9" * 5000 + b', "s": "\\ud800"}'
    ),
    "a byte-order mark, CRLF": (
        b'\xef\xbb\xbf{\r\n  "theme": "dark",\r\n  "permissions": {\r\n    "deny": []\r\n  }\r\n}'
    ),
}


@pytest.mark.parametrize("shape", HOSTILE, ids=list(HOSTILE))
def test_every_file_setup_writes_the_real_claude_reads_as_valid_settings(person, shape):
    """2.1.336 calls a settings file it cannot read "Invalid or malformed JSON", and its deny
    rules and hooks stop applying: what setup writes, it reads; remove gives back every byte."""
    env, _ = person
    path = os.path.join(env["HOME"], ".claude", "settings.json")
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as file:
        file.write(HOSTILE[shape])
    # What Claude Code says of the file (2.1.336 warns of a value nested more than 64 deep,
    # which it ignores), before and after: setup makes it say nothing more.
    before = [line for line in claude_doctor(env).splitlines() if path in line]
    assert not [line for line in before if "malformed" in line], before
    set_up = run(env, "postbag", "setup")
    assert set_up.returncode == 0, set_up.stderr
    assert [line for line in claude_doctor(env).splitlines() if path in line] == before
    assert "permission rule: Claude Code runs postbag's tools without asking" in run(env, "postbag", "doctor").stdout
    assert run(env, "postbag", "setup", "--remove").returncode == 0
    with open(path, "rb") as file:
        assert file.read() == HOSTILE[shape]


def test_a_codex_config_that_is_not_toml_is_named_in_codex_s_own_words(person):
    env, _ = person
    config = os.path.join(env["CODEX_HOME"], "config.toml")
    with open(config, "a") as file:
        file.write("[mcp_servers.broken\n")
    refused = run(env, "postbag", "setup")
    told = "postbag: setup changed nothing: codex mcp get postbag --json failed (exit 1): "
    assert refused.returncode == 1 and told in refused.stderr
    assert "config.toml:" in refused.stderr and "unclosed table" in refused.stderr, refused.stderr
    assert refused.stderr.count("\n") == 1 and "backtrace" not in refused.stderr.lower()
