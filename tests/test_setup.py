"""`postbag setup`: this postbag registered with each client installed, through the
client's own command (fakes here that keep what they are told where the real ones do;
tests/real/test_real_setup.py runs the real ones), and Claude's permission rule written
whole or not at all; nothing else changed, nothing half-written, and all of it taken out
again by --remove."""

import json
import os

import pytest
from fakes import FakeClaude

RULE = "mcp__postbag"
RESTART = "start Claude Code and Codex again: each reads its MCP servers as it starts"
BYPASS_NOTE = (
    "postbag: Claude Code and letters from another session: a session that prompts for permissions takes them; one "
    "started with --dangerously-skip-permissions holds each for your review, since postbag claims no permission "
    "mode: to let them in, set crossSessionInbound to accept in claude's settings.json (setup leaves that to you)\n"
)
DAEMON_NOTE = (
    "postbag: Codex's daemon is not running: such a thread's letters wait until codex app-server daemon start "
    "(setup starts no daemon)\n"
)


@pytest.fixture
def clients(postbag, tmp_path):
    """A fake claude on the terminal's PATH beside the fake codex POSTBAG_CODEX names: the
    environment setup runs in, and where each keeps what it is told."""
    claude = FakeClaude(str(tmp_path / "claude-bin"))
    home = postbag.env["HOME"]
    # The default ledger, which a person's terminal names by naming none.
    env = {"PATH": f"{claude.directory}{os.pathsep}{postbag.env['PATH']}", "POSTBAG_LEDGER": None}
    return env, os.path.join(home, ".claude.json"), os.path.join(home, ".codex", "mcp.json")


def servers(path):
    with open(path) as file:
        return json.load(file)["mcpServers"]


def settings(postbag):
    with open(os.path.join(postbag.env["HOME"], ".claude", "settings.json")) as file:
        return json.load(file)


def set_up(postbag, *args, env):
    """`postbag setup ARGS`, which must do what it says: its stdout (its notes are news, on stderr)."""
    result = postbag.run("setup", *args, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def program(postbag):
    """This postbag as the clients are to start it: by its absolute path, or its Python's."""
    return postbag.command if postbag.target == "pyz" else [postbag.command[0], "-m", "postbag"]


@pytest.mark.shipped
def test_setup_registers_this_postbag_with_each_client_and_lets_claude_run_its_tools(postbag, clients):
    env, claude_config, codex_config = clients
    result = postbag.run("setup", env=env)
    started = [*program(postbag), "mcp"]
    shown = " ".join(started)
    settings_path = os.path.join(postbag.env["HOME"], ".claude", "settings.json")
    assert (result.returncode, result.stdout) == (
        0,
        f"claude registers postbag's MCP server: claude mcp add --transport stdio --scope user postbag -- {shown}\n"
        f"claude lets postbag's tools run without asking: adds {RULE} to permissions.allow in {settings_path}\n"
        f"codex  registers postbag's MCP server: codex mcp add postbag -- {shown}\n"
        f"setup made these 3 changes; {RESTART}\n",
    )
    assert result.stderr == BYPASS_NOTE + DAEMON_NOTE
    entry = {"type": "stdio", "command": started[0], "args": started[1:], "env": {}}
    assert servers(claude_config) == {"postbag": entry} and servers(codex_config) == {"postbag": entry}
    assert settings(postbag) == {"permissions": {"allow": [RULE]}}
    again = postbag.run("setup", env=env)
    assert (again.returncode, again.stdout) == (0, "setup finds nothing to change\n")


def test_the_persons_settings_are_kept_whole_and_the_file_as_it_was_beside_them(postbag, clients):
    env, *_ = clients
    path = os.path.join(postbag.env["HOME"], ".claude", "settings.json")
    os.makedirs(os.path.dirname(path))
    mine = {"model": "opus", "permissions": {"allow": ["Bash(git status)"], "deny": ["Read(.env)"]}, "hooks": {}}
    before = json.dumps(mine, indent=4).encode()
    with open(path, "wb") as file:
        file.write(before)
    os.chmod(path, 0o640)
    set_up(postbag, env=env)
    assert settings(postbag) == {**mine, "permissions": {"allow": ["Bash(git status)", RULE], "deny": ["Read(.env)"]}}
    with open(path + ".before-postbag", "rb") as file:
        assert file.read() == before
    assert os.stat(path).st_mode & 0o777 == 0o640
    set_up(postbag, "--remove", env=env)
    assert settings(postbag) == mine


def test_a_settings_file_that_is_a_link_is_written_through_to_the_file_it_names(postbag, clients, tmp_path):
    env, *_ = clients
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}')
    os.makedirs(os.path.join(postbag.env["HOME"], ".claude"))
    link = os.path.join(postbag.env["HOME"], ".claude", "settings.json")
    os.symlink(dotfiles, link)
    set_up(postbag, env=env)
    assert os.path.islink(link)
    assert json.loads(dotfiles.read_text()) == {"model": "opus", "permissions": {"allow": [RULE]}}


def test_a_dry_run_says_each_change_and_makes_none(postbag, clients):
    env, claude_config, codex_config = clients
    result = postbag.run("setup", "--dry-run", env=env)
    assert result.returncode == 0 and result.stdout.endswith(
        "setup would make these 3 changes (--dry-run: nothing was changed)\n"
    )
    assert result.stdout.count("registers postbag's MCP server") == 2
    assert not os.path.exists(claude_config) and not os.path.exists(codex_config)
    assert not os.path.exists(os.path.join(postbag.env["HOME"], ".claude"))


def test_remove_takes_out_exactly_what_setup_put_in(postbag, clients):
    env, claude_config, codex_config = clients
    set_up(postbag, env=env)
    result = postbag.run("setup", "--remove", env=env)
    assert result.returncode == 0 and result.stdout.endswith(
        "setup made these 3 changes; start Claude Code and Codex again: each reads its MCP servers as it starts\n"
    )
    assert "claude takes out postbag's MCP server: claude mcp remove postbag -s user\n" in result.stdout
    assert servers(claude_config) == {} and servers(codex_config) == {}
    assert settings(postbag) == {"permissions": {"allow": []}}
    assert set_up(postbag, "--remove", env=env) == "setup finds nothing to take out\n"


def test_the_ledger_the_terminal_names_goes_with_the_registration(postbag, clients, tmp_path):
    env, claude_config, codex_config = clients
    ledger = str(tmp_path / "shared" / "ledger.jsonl")
    result = postbag.run("setup", env={**env, "POSTBAG_LEDGER": ledger})
    assert f"claude mcp add --transport stdio --scope user postbag -e POSTBAG_LEDGER={ledger} -- " in result.stdout
    assert f"codex mcp add postbag --env POSTBAG_LEDGER={ledger} -- " in result.stdout
    assert (
        servers(claude_config)["postbag"]["env"]
        == servers(codex_config)["postbag"]["env"]
        == {"POSTBAG_LEDGER": ledger}
    )


def test_a_client_that_is_not_installed_is_left_alone_and_the_other_is_set_up(postbag, clients, tmp_path):
    env, claude_config, codex_config = clients
    result = postbag.run("setup", env={"PATH": str(tmp_path / "empty"), "POSTBAG_CODEX": None})
    assert result.returncode == 1
    assert result.stderr == (
        "postbag: Claude Code is not installed here (no claude on PATH); Codex is not installed here (no codex on "
        "PATH): install them, then run postbag setup again; stop and ask the human\n"
    )
    result = postbag.run("setup", env={"PATH": env["PATH"], "POSTBAG_CODEX": None})
    assert result.returncode == 0 and "codex" not in result.stdout.lower()
    assert result.stdout.endswith("; start Claude Code again: it reads its MCP servers as it starts\n")
    assert "postbag: Codex is not installed here (no codex on PATH): setup leaves it alone\n" in result.stderr
    assert servers(claude_config)["postbag"] and not os.path.exists(codex_config)


@pytest.mark.parametrize("where", ["claude", "codex"])
def test_a_registration_of_postbag_that_starts_another_program_changes_nothing_anywhere(postbag, clients, where):
    env, claude_config, codex_config = clients
    path = claude_config if where == "claude" else codex_config
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as file:
        json.dump({"mcpServers": {"postbag": {"command": "/opt/old/postbag", "args": ["mcp"], "env": {}}}}, file)
    client, remove = {
        "claude": ("Claude Code", "claude mcp remove postbag -s user"),
        "codex": ("Codex", "codex mcp remove postbag"),
    }[where]
    assert postbag.refused("setup", env=env) == (
        f"setup changed nothing: {client}'s MCP server postbag starts /opt/old/postbag mcp, not this postbag: take it "
        f"out with {remove}, or run setup from the postbag it starts"
    )
    other = codex_config if where == "claude" else claude_config
    assert not os.path.exists(other)
    assert not os.path.exists(os.path.join(postbag.env["HOME"], ".claude", "settings.json"))


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"permissions": {"allow": "mcp__postbag"}}'])
def test_a_settings_file_setup_cannot_read_safely_changes_nothing(postbag, clients, text):
    env, claude_config, codex_config = clients
    path = os.path.join(postbag.env["HOME"], ".claude", "settings.json")
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as file:
        file.write(text)
    reason = postbag.refused("setup", env=env)
    assert reason.startswith("setup changed nothing: ")
    assert reason.endswith(
        {
            "{not json": "claude's settings.json cannot be read (it is not JSON)",
            "[1, 2]": "claude's settings.json is not an object of settings",
        }.get(text, "permissions.allow in claude's settings.json is not a list")
    )
    with open(path) as file:
        assert file.read() == text
    assert not os.path.exists(claude_config) and not os.path.exists(codex_config)


def test_a_clients_own_command_that_fails_is_said_with_what_was_made_before_it(postbag, clients):
    env, *_ = clients
    reason = postbag.refused("setup", env={**env, "FAKE_CLIENT_FAILS": "add"})
    assert reason == (
        "claude mcp add --transport stdio --scope user postbag -- "
        f"{' '.join(program(postbag))} mcp failed (exit 1): Error: the configuration is broken; nothing was changed"
    )


def test_setup_is_the_humans_verb(postbag, clients):
    env, *_ = clients
    assert postbag.refused("setup", inside="claude", env=env) == (
        "setup is the human's verb (this shell has CLAUDE_CODE_MESSAGING_SOCKET, CLAUDE_CODE_MESSAGING_TOKEN and "
        "CLAUDE_CODE_SESSION_ID, which mark an agent's session)"
    )


def test_setup_says_what_would_stop_letters_and_changes_no_such_setting(postbag, clients):
    env, *_ = clients
    path = os.path.join(postbag.env["HOME"], ".claude", "settings.json")
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as file:
        json.dump({"crossSessionInbound": "refuse"}, file)
    result = postbag.run("setup", env=env)
    assert (
        "postbag: Claude Code and letters from another session: Claude Code refuses them (crossSessionInbound "
        "refuse): set crossSessionInbound to accept in claude's settings.json (setup leaves that to you)\n"
    ) in result.stderr
    assert settings(postbag)["crossSessionInbound"] == "refuse"


def test_remove_leaves_a_registration_of_another_postbag_and_says_so(postbag, clients):
    env, claude_config, codex_config = clients
    for path in (claude_config, codex_config):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as file:
            json.dump({"mcpServers": {"postbag": {"command": "/opt/old/postbag", "args": ["mcp"], "env": {}}}}, file)
    result = postbag.run("setup", "--remove", env=env)
    assert result.returncode == 0 and result.stdout == "setup finds nothing to take out\n"
    assert result.stderr == (
        "postbag: Claude Code's MCP server postbag starts /opt/old/postbag mcp, not this postbag: left\n"
        "postbag: Codex's MCP server postbag starts /opt/old/postbag mcp, not this postbag: left\n"
    )
    assert servers(claude_config)["postbag"]["command"] == servers(codex_config)["postbag"]["command"]


def test_a_registration_setup_cannot_read_changes_nothing_anywhere(postbag, clients):
    env, claude_config, codex_config = clients
    assert postbag.refused("setup", env={**env, "FAKE_CLIENT_FAILS": "get"}) == (
        "setup changed nothing: codex mcp get postbag --json failed (exit 1)"
    )
    os.makedirs(os.path.dirname(claude_config), exist_ok=True)
    with open(claude_config, "w") as file:
        file.write("{not json")
    assert postbag.refused("setup", env=env) == (
        "setup changed nothing: Claude Code's .claude.json cannot be read (it is not JSON)"
    )
    assert not os.path.exists(codex_config)
    assert not os.path.exists(os.path.join(postbag.env["HOME"], ".claude", "settings.json"))
