"""`postbag setup`: this postbag registered with each client installed, through the
client's own command (fakes here that keep what they are told where the real ones do;
tests/real/test_real_setup.py runs the real ones), and Claude's permission rule put in
the person's settings.json as a person would, every other byte as it was; nothing else
changed, nothing half-written, all of it undone where a step fails, and all of it taken
out again by --remove, the person's file given back byte for byte."""

import json
import os
import resource
import shutil
import subprocess

import hypothesis
import pytest
from fakes import MEASURING, FakeClaude, less
from hypothesis import given
from hypothesis import strategies as st

RULE = "mcp__postbag"
RESTART = "start Claude Code and Codex again: each reads its MCP servers as it starts"
BYPASS_NOTE = (
    "postbag: Claude Code and letters from another session: a session that prompts for permissions takes them; one "
    "started with --dangerously-skip-permissions holds each for your review, since postbag claims no permission "
    "mode: to let them in, set crossSessionInbound to accept in claude's settings.json (setup leaves that to you)\n"
)
DAEMON_NOTE = (
    "postbag: Codex's daemon is not running, so a thread nobody has loaded keeps its letters until it runs: start it "
    "with codex app-server daemon start (setup starts no daemon)\n"
)
# A person's settings as Claude Code writes them (two spaces an indent, a final newline).
WRITTEN_BY_CLAUDE = (
    b'{\n  "model": "opus",\n  "permissions": {\n    "allow": [\n      "Bash(git status)"\n    ]\n  }\n}\n'
)
# Each shape of a person's settings.json, and what setup makes of it: the rule added where
# a person would add it, every other byte as it was.
SHAPES = {
    "Claude Code's own": (
        WRITTEN_BY_CLAUDE,
        b'{\n  "model": "opus",\n  "permissions": {\n    "allow": [\n      "Bash(git status)",\n'
        b'      "mcp__postbag"\n    ]\n  }\n}\n',
    ),
    "one line, no spaces": (
        b'{"theme":"dark","permissions":{"allow":["Read"],"deny":[]}}',
        b'{"theme":"dark","permissions":{"allow":["Read","mcp__postbag"],"deny":[]}}',
    ),
    "no permissions yet, tabs": (
        b'{\n\t"theme": "dark"\n}\n',
        b'{\n\t"theme": "dark",\n\t"permissions": {\n\t\t"allow": [\n\t\t\t"mcp__postbag"\n\t\t]\n\t}\n}\n',
    ),
    "an empty allow, CRLF": (
        b'{\r\n    "permissions": {\r\n        "allow": []\r\n    }\r\n}',
        b'{\r\n    "permissions": {\r\n        "allow": ["mcp__postbag"]\r\n    }\r\n}',
    ),
    "permissions without allow": (
        b'{"permissions": {"deny": ["Read(.env)"]}}\n',
        b'{"permissions": {"deny": ["Read(.env)"], "allow": ["mcp__postbag"]}}\n',
    ),
    "nothing but braces": (b"{}", b'{"permissions": {"allow": ["mcp__postbag"]}}'),
    "a byte-order mark": (
        b'\xef\xbb\xbf{"hooks": {}, "permissions": {"allow": ["Edit"]}}',
        b'\xef\xbb\xbf{"hooks": {}, "permissions": {"allow": ["Edit", "mcp__postbag"]}}',
    ),
}


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


def settings_path(postbag):
    return os.path.join(postbag.env["HOME"], ".claude", "settings.json")


def settings(postbag):
    with open(settings_path(postbag)) as file:
        return json.load(file)


def write_settings(postbag, data, mode=0o600):
    path = settings_path(postbag)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as file:
        file.write(data)
    os.chmod(path, mode)
    return path


def read_bytes(path):
    try:
        with open(path, "rb") as file:
            return file.read()
    except FileNotFoundError:
        return None


def set_up(postbag, *args, env):
    """`postbag setup ARGS`, which must do what it says: its stdout (its notes are news, on stderr)."""
    result = postbag.run("setup", *args, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def program(postbag):
    """This postbag as the clients are to start it: by its absolute path, or its Python's."""
    return postbag.command if postbag.target == "pyz" else [postbag.command[0], "-m", "postbag"]


def strays(folder):
    """What a write left in `folder` beside the files it meant to write: its part files."""
    return [name for name in os.listdir(folder) if name.endswith(".part")]


@pytest.mark.shipped
def test_setup_registers_this_postbag_with_each_client_and_lets_claude_run_its_tools(postbag, clients):
    env, claude_config, codex_config = clients
    result = postbag.run("setup", env=env)
    started = [*program(postbag), "mcp"]
    shown = " ".join(started)
    path = settings_path(postbag)
    assert (result.returncode, result.stdout) == (
        0,
        f"claude lets postbag's tools run without asking: writes {path}, with {RULE} in permissions.allow\n"
        f"claude registers postbag's MCP server: claude mcp add --transport stdio --scope user postbag -- {shown}\n"
        f"codex  registers postbag's MCP server: codex mcp add postbag -- {shown}\n"
        f"setup made these 3 changes; {RESTART}\n",
    )
    assert result.stderr == BYPASS_NOTE + DAEMON_NOTE
    entry = {"type": "stdio", "command": started[0], "args": started[1:], "env": {}}
    assert servers(claude_config) == {"postbag": entry} and servers(codex_config) == {"postbag": entry}
    assert read_bytes(path) == b'{\n  "permissions": {\n    "allow": [\n      "mcp__postbag"\n    ]\n  }\n}\n'
    assert os.stat(path).st_mode & 0o777 == 0o600
    again = postbag.run("setup", env=env)
    assert (again.returncode, again.stdout) == (0, "setup finds nothing to change\n")


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_setup_adds_the_rule_as_a_person_would_and_remove_gives_the_file_back_byte_for_byte(postbag, clients, shape):
    env, *_ = clients
    before, after = SHAPES[shape]
    path = write_settings(postbag, before, 0o640)
    assert f"adds {RULE} to permissions.allow in {path}, kept as it was in settings.json.before-postbag" in (
        set_up(postbag, env=env)
    )
    assert read_bytes(path) == after
    assert read_bytes(path + ".before-postbag") == before
    assert os.stat(path).st_mode & 0o777 == os.stat(path + ".before-postbag").st_mode & 0o777 == 0o640
    removed = set_up(postbag, "--remove", env=env)
    assert f"gives back {path} as it was before setup, from settings.json.before-postbag" in removed
    assert read_bytes(path) == before and os.stat(path).st_mode & 0o777 == 0o640
    assert not os.path.exists(path + ".before-postbag")
    assert strays(os.path.dirname(path)) == []


def test_a_home_without_settings_is_left_without_them_by_remove(postbag, clients):
    env, claude_config, codex_config = clients
    set_up(postbag, env=env)
    result = postbag.run("setup", "--remove", env=env)
    path = settings_path(postbag)
    assert (result.returncode, result.stdout) == (
        0,
        f"claude removes {path}, which setup made\n"
        "claude takes out postbag's MCP server: claude mcp remove postbag -s user\n"
        "codex  takes out postbag's MCP server: codex mcp remove postbag\n"
        f"setup made these 3 changes; {RESTART}\n",
    )
    assert servers(claude_config) == {} and servers(codex_config) == {}
    assert os.listdir(os.path.dirname(path)) == []
    assert set_up(postbag, "--remove", env=env) == "setup finds nothing to take out\n"


def test_what_the_person_changed_since_setup_stays_and_the_kept_copy_is_never_overwritten(postbag, clients):
    env, *_ = clients
    path = write_settings(postbag, WRITTEN_BY_CLAUDE)
    set_up(postbag, env=env)
    edited = read_bytes(path).replace(b'"model": "opus"', b'"model": "sonnet"')  # the person's own change since
    write_settings(postbag, edited)
    removed = set_up(postbag, "--remove", env=env)
    assert f"takes out {RULE} from permissions.allow in {path}\n" in removed  # a copy is kept already: no other
    assert read_bytes(path) == WRITTEN_BY_CLAUDE.replace(b'"model": "opus"', b'"model": "sonnet"')
    assert read_bytes(path + ".before-postbag") == WRITTEN_BY_CLAUDE
    for args in ((), ("--remove",), (), ()):  # setup again, and again: the copy is the person's first file still
        set_up(postbag, *args, env=env)
        assert read_bytes(path + ".before-postbag") == WRITTEN_BY_CLAUDE
    assert settings(postbag)["model"] == "sonnet" and RULE in settings(postbag)["permissions"]["allow"]


def test_a_rule_the_person_wrote_is_kept_in_a_copy_before_remove_takes_it_out(postbag, clients):
    env, *_ = clients
    mine = b'{"permissions": {"allow": ["mcp__postbag", "Read"]}}\n'
    path = write_settings(postbag, mine)
    assert "claude lets" not in set_up(postbag, env=env)  # allowed already: setup changes nothing there
    assert not os.path.exists(path + ".before-postbag")
    removed = set_up(postbag, "--remove", env=env)
    assert f"takes out {RULE} from permissions.allow in {path}, kept as it was in settings.json.before-postbag" in (
        removed
    )
    assert read_bytes(path) == b'{"permissions": {"allow": ["Read"]}}\n'
    assert read_bytes(path + ".before-postbag") == mine
    set_up(postbag, env=env)
    set_up(postbag, "--remove", env=env)  # the rule is setup's to take out, wherever it stood: the copy keeps it
    assert read_bytes(path) == b'{"permissions": {"allow": ["Read"]}}\n'
    assert read_bytes(path + ".before-postbag") == mine


def test_a_file_of_a_shape_no_edit_in_place_can_keep_is_written_whole_and_given_back_whole(postbag, clients):
    env, *_ = clients
    twice = b'{"permissions": {"allow": ["Read"]}, "permissions": {"allow": ["Edit"]}}'  # JSON takes the last
    path = write_settings(postbag, twice)
    set_up(postbag, env=env)
    whole = b'{\n  "permissions": {\n    "allow": [\n      "Edit",\n      "mcp__postbag"\n    ]\n  }\n}\n'
    assert read_bytes(path) == whole
    set_up(postbag, "--remove", env=env)
    assert read_bytes(path) == twice


def test_a_settings_file_that_is_a_link_is_written_through_to_the_file_it_names(postbag, clients, tmp_path):
    env, *_ = clients
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}')
    os.makedirs(os.path.join(postbag.env["HOME"], ".claude"))
    link = settings_path(postbag)
    os.symlink(dotfiles, link)
    set_up(postbag, env=env)
    assert os.path.islink(link)
    assert dotfiles.read_bytes() == b'{"model": "opus", "permissions": {"allow": ["mcp__postbag"]}}'
    assert read_bytes(link + ".before-postbag") == b'{"model": "opus"}'  # beside the name the person knows
    set_up(postbag, "--remove", env=env)
    assert os.path.islink(link) and dotfiles.read_bytes() == b'{"model": "opus"}'


def test_a_dry_run_says_each_change_and_makes_none(postbag, clients):
    env, claude_config, codex_config = clients
    result = postbag.run("setup", "--dry-run", env=env)
    assert result.returncode == 0 and result.stdout.endswith(
        "setup would make these 3 changes (--dry-run: nothing was changed)\n"
    )
    assert result.stdout.count("registers postbag's MCP server") == 2
    assert not os.path.exists(claude_config) and not os.path.exists(codex_config)
    assert not os.path.exists(os.path.join(postbag.env["HOME"], ".claude"))


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


@pytest.mark.shipped
def test_a_ledger_named_after_setup_is_one_change_that_setup_makes_and_remove_undoes(postbag, clients, tmp_path):
    env, claude_config, codex_config = clients
    set_up(postbag, env=env)
    assert servers(claude_config)["postbag"]["env"] == servers(codex_config)["postbag"]["env"] == {}
    # Named, even as the default written out, a ledger is a choice over each repository's own.
    shared = os.path.join(postbag.env["HOME"], ".postbag", "ledger.jsonl")
    named = {**env, "POSTBAG_LEDGER": shared}
    shown = " ".join([*program(postbag), "mcp"])
    moves = [
        f"claude points postbag's MCP server at the ledger this terminal names, {shared}: claude mcp remove postbag "
        f"-s user, then claude mcp add --transport stdio --scope user postbag -e POSTBAG_LEDGER={shared} -- {shown}",
        f"codex  points postbag's MCP server at the ledger this terminal names, {shared}: codex mcp remove postbag, "
        f"then codex mcp add postbag --env POSTBAG_LEDGER={shared} -- {shown}",
    ]
    assert set_up(postbag, "--dry-run", env=named).splitlines()[:2] == moves
    assert servers(claude_config)["postbag"]["env"] == {}
    assert set_up(postbag, env=named).splitlines()[:2] == moves
    assert (
        servers(claude_config)["postbag"]["env"]
        == servers(codex_config)["postbag"]["env"]
        == {"POSTBAG_LEDGER": shared}
    )
    assert set_up(postbag, env=named) == "setup finds nothing to change\n"
    # From a terminal that names none, the registration is moved back: each session finds its own.
    each_own = "each session's own ledger (its repository's, or the default)"
    back = set_up(postbag, env=env).splitlines()
    assert back[0].startswith(
        f"claude lets postbag's MCP server find {each_own}, where it named {shared}: claude mcp remove postbag -s user"
    )
    assert servers(claude_config)["postbag"]["env"] == servers(codex_config)["postbag"]["env"] == {}
    set_up(postbag, env=named)
    removed = set_up(postbag, "--remove", env=env)  # from a terminal that names none: it is this postbag
    assert "claude takes out postbag's MCP server" in removed and "codex  takes out postbag's MCP server" in removed
    assert servers(claude_config) == servers(codex_config) == {}


def test_a_client_that_is_not_installed_is_left_alone_and_the_other_is_set_up(postbag, clients, tmp_path):
    env, claude_config, codex_config = clients
    result = postbag.run("setup", env={"PATH": postbag.env["PATH"], "POSTBAG_CODEX": None})
    assert result.returncode == 1
    assert result.stderr == (  # to the person, who runs setup: what to do, and no agent's stop
        "postbag: Claude Code is not installed here (no claude on PATH); Codex is not installed here (no codex on "
        "PATH): install them, then run postbag setup again\n"
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
    assert not os.path.exists(settings_path(postbag))


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"permissions": {"allow": "mcp__postbag"}}'])
def test_a_settings_file_setup_cannot_read_safely_changes_nothing(postbag, clients, text):
    env, claude_config, codex_config = clients
    path = write_settings(postbag, text.encode())
    reason = postbag.refused("setup", env=env)
    assert reason.startswith("setup changed nothing: ")
    assert reason.endswith(
        {
            "{not json": "claude's settings.json cannot be read (it is not JSON)",
            "[1, 2]": "claude's settings.json is not an object of settings",
        }.get(text, "permissions.allow in claude's settings.json is not a list")
    )
    assert read_bytes(path) == text.encode()
    assert not os.path.exists(claude_config) and not os.path.exists(codex_config)


def test_a_clients_own_command_that_fails_undoes_what_came_before_it(postbag, clients):
    env, claude_config, _ = clients
    path = write_settings(postbag, WRITTEN_BY_CLAUDE)
    reason = postbag.refused("setup", env={**env, "FAKE_CLIENT_FAILS": "add"})
    assert reason == (
        "claude mcp add --transport stdio --scope user postbag -- "
        f"{' '.join(program(postbag))} mcp failed (exit 1): Error: the configuration is broken; nothing was changed"
    )
    assert read_bytes(path) == WRITTEN_BY_CLAUDE and not os.path.exists(path + ".before-postbag")
    assert not os.path.exists(claude_config)


def test_setup_is_the_humans_verb(postbag, clients):
    env, *_ = clients
    assert postbag.refused("setup", inside="claude", env=env) == (
        "setup is the human's verb (this shell has CLAUDE_CODE_MESSAGING_SOCKET, CLAUDE_CODE_MESSAGING_TOKEN and "
        "CLAUDE_CODE_SESSION_ID, which mark an agent's session)"
    )


def test_setup_says_what_would_stop_letters_and_changes_no_such_setting(postbag, clients):
    env, *_ = clients
    write_settings(postbag, json.dumps({"crossSessionInbound": "refuse"}).encode())
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
    assert not os.path.exists(settings_path(postbag))


# The person's file under a failing disk: the old bytes or the whole new file, never part.


@pytest.mark.process  # a limit of its own process
def test_past_the_file_size_limit_setup_changes_nothing_and_says_so(postbag, clients):
    env, claude_config, codex_config = clients
    compact = json.dumps({"env": {f"NAME_{n}": "x" * 40 for n in range(900)}}, separators=(",", ":")).encode()
    path = write_settings(postbag, compact)
    limit = len(compact)  # the file as it is fits; setup's, longer by the rule, does not

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = subprocess.run(
        [*postbag.command, "setup"],
        env=less(postbag.environment(None, env), *MEASURING),  # coverage's own file would meet the limit too
        capture_output=True,
        text=True,
        preexec_fn=limited,
        check=False,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"postbag: cannot write {path} (File too large); nothing was changed\n"
    assert read_bytes(path) == compact and not os.path.exists(path + ".before-postbag")
    assert strays(os.path.dirname(path)) == []
    assert not os.path.exists(claude_config) and not os.path.exists(codex_config)


@pytest.mark.process  # a mount namespace of its own
@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="a full disk is a small tmpfs, which only root can mount (with unshare, in a namespace of its own)",
)
def test_on_a_full_disk_setup_changes_nothing_and_says_so(postbag, clients, tmp_path):
    env, claude_config, _ = clients
    folder = os.path.dirname(write_settings(postbag, WRITTEN_BY_CLAUDE))
    shutil.copy(os.path.join(folder, "settings.json"), tmp_path / "settings.json")
    # The person's .claude on a disk of 64 KiB, filled to the last byte, in a mount namespace
    # of this command's own: the machine's mounts are never touched.
    mount, cp, dd, ls = (shutil.which(tool) for tool in ("mount", "cp", "dd", "ls"))
    script = (
        f'{mount} -t tmpfs -o size=64k tmpfs "{folder}" && {cp} -p "{tmp_path}/settings.json" "{folder}/" && '
        f'({dd} if=/dev/zero of="{folder}/filler" bs=1k 2>/dev/null; true) && "$@"; '
        f'status=$?; {cp} -p "{folder}"/settings.json* "{tmp_path}/after" 2>/dev/null; {ls} -a "{folder}" > '
        f'"{tmp_path}/listed"; exit $status'
    )
    os.makedirs(tmp_path / "after")
    result = subprocess.run(
        [shutil.which("unshare"), "--mount", "sh", "-c", script, "sh", *postbag.command, "setup"],
        env=postbag.environment(None, env),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("postbag: cannot write ") and result.stderr.endswith(
        " (No space left on device); nothing was changed\n"
    )
    assert os.listdir(tmp_path / "after") == ["settings.json"]
    assert (tmp_path / "after" / "settings.json").read_bytes() == WRITTEN_BY_CLAUDE
    assert sorted((tmp_path / "listed").read_text().split()) == [".", "..", "filler", "settings.json"]
    assert not os.path.exists(claude_config)


def test_a_kill_at_any_step_leaves_the_old_file_or_the_whole_new_one(postbag, clients):
    env, *_ = clients
    made = SHAPES["Claude Code's own"][1]
    step, outcomes = 0, set()
    while True:
        step += 1
        path = write_settings(postbag, WRITTEN_BY_CLAUDE)
        result = postbag.with_faults(f"kill-at={step}").run("setup", env=env)
        assert result.returncode in (0, -9) and step < 100, (step, result.stderr)  # killed, or done
        found, kept = read_bytes(path), read_bytes(path + ".before-postbag")
        assert found in (WRITTEN_BY_CLAUDE, made), step
        assert kept in (None, WRITTEN_BY_CLAUDE), step  # never part of it, and never postbag's own file
        outcomes.add((result.returncode, found == made))
        for name in strays(os.path.dirname(path)):
            os.unlink(os.path.join(os.path.dirname(path), name))
        if os.path.exists(path + ".before-postbag"):
            os.unlink(path + ".before-postbag")
        shutil.rmtree(os.path.join(postbag.env["HOME"], ".codex"), ignore_errors=True)
        if os.path.exists(os.path.join(postbag.env["HOME"], ".claude.json")):
            os.unlink(os.path.join(postbag.env["HOME"], ".claude.json"))
        if result.returncode == 0:  # no step was left to kill it at
            break
    assert step > 10 and outcomes == {(-9, False), (-9, True), (0, True)}


def test_a_disk_that_takes_part_of_each_write_still_gets_the_whole_file(postbag, clients):
    env, *_ = clients
    path = write_settings(postbag, WRITTEN_BY_CLAUDE)
    result = postbag.with_faults("file-short-write").run("setup", env=env)
    assert result.returncode == 0, result.stderr
    assert read_bytes(path) == SHAPES["Claude Code's own"][1]
    assert read_bytes(path + ".before-postbag") == WRITTEN_BY_CLAUDE


# The same, for every sequence of setups, removals and a person's own edits: the logic
# beneath the command line, in this process.

LAYOUTS = st.sampled_from(
    [(None, (", ", ": ")), (None, (",", ":")), (2, (",", ": ")), (4, (",", ": ")), ("\t", (",", ": "))]
)
PERSONS = st.dictionaries(
    st.sampled_from(["model", "theme", "hooks", "env", "permissions"]),
    st.one_of(st.text(max_size=5), st.integers(), st.just({}), st.just({"allow": ["Read"]}), st.just({"deny": []})),
    max_size=4,
)


def persons_file(value, layout, newline):
    """`value` as a person, or their editor, lays a settings file out."""
    indent, separators = layout
    return (json.dumps(value, indent=indent, separators=separators) + ("\n" if newline else "")).encode()


def without_the_rule(data):
    """What a settings file says, the rule aside (and the containers setup makes for it)."""
    if data is None:
        return {}
    value = json.loads(data.removeprefix(b"\xef\xbb\xbf"))
    permissions = value.get("permissions", {})
    permissions["allow"] = [rule for rule in permissions.get("allow", []) if rule != RULE]
    if not permissions["allow"]:
        del permissions["allow"]
    if not permissions:
        value.pop("permissions", None)
    return value


def empty_at_the_end(data, copy):
    """The one case the file alone cannot tell from setup's own: the person's empty
    permissions (or allow) last of its object, where setup would have made it, and no
    copy kept of the file as setup found it (the person changed it since an earlier setup)."""
    if data is None or data == copy:
        return False
    value = json.loads(data.removeprefix(b"\xef\xbb\xbf"))
    permissions = value.get("permissions")
    return (permissions == {} and list(value)[-1] == "permissions") or (
        permissions is not None and (permissions.get("allow") == [] and list(permissions)[-1] == "allow")
    )


def holds_the_rule(data):
    return data is not None and RULE in json.loads(data.removeprefix(b"\xef\xbb\xbf")).get("permissions", {}).get(
        "allow", []
    )


@hypothesis.settings(max_examples=80, deadline=None)
@given(
    start=st.one_of(st.none(), st.tuples(PERSONS, LAYOUTS, st.booleans())),
    steps=st.lists(st.sampled_from(["setup", "remove"]) | st.tuples(PERSONS, LAYOUTS, st.booleans()), max_size=8),
)
def test_no_sequence_of_setups_removals_and_edits_loses_the_persons_file(tmp_path_factory, start, steps):
    from postbag.claude import permission

    folder = tmp_path_factory.mktemp("claude")
    path = str(folder / "settings.json")
    kept = path + permission.KEPT
    prior = found_by_setup = None
    for step in [*([start] if start else []), *steps]:
        if type(step) is tuple:  # the person writes their file, whatever it held
            value = {key: item for key, item in step[0].items() if key != "permissions" or type(item) is dict}
            with open(path, "wb") as file:
                file.write(persons_file(value, step[1], step[2]))
            prior = "edit"
            continue
        before, copy = read_bytes(path), read_bytes(kept)
        change = permission.change(path, removing=step == "remove")
        if change is not None:
            change.make()
        after = read_bytes(path)
        assert strays(str(folder)) == []
        assert without_the_rule(after) == without_the_rule(before)  # every setting of the person's kept
        if step == "setup":
            assert permission.settings_at(path).allowed()
            found_by_setup = before
        else:
            assert not holds_the_rule(after)
            if prior == "setup" and not holds_the_rule(found_by_setup) and not empty_at_the_end(found_by_setup, copy):
                assert after == found_by_setup  # given back byte for byte, or absent where it was absent
        if copy is not None:  # a kept copy is never overwritten: it stays, or is given back whole
            assert read_bytes(kept) == copy or (read_bytes(kept) is None and after == copy)
        prior = step
    assert sorted(os.listdir(folder)) in ([], ["settings.json"], ["settings.json", "settings.json.before-postbag"])
