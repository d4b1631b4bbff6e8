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
import stat
import subprocess
import time

import hypothesis
import pytest
from fakes import MEASURING, FakeClaude, less, read_config_toml, write_config_toml
from helpers import examples
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
OLD_POSTBAG = {"command": "/opt/old/postbag", "args": ["mcp"], "env": {}}  # a registration of another postbag
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
    return env, os.path.join(home, ".claude.json"), os.path.join(home, ".codex", "config.toml")


def servers(path):
    """The MCP servers a fake client keeps: in .claude.json, or in config.toml as the fake codex writes it."""
    if path.endswith(".toml"):
        return read_config_toml(path)["mcpServers"]
    with open(path) as file:
        return json.load(file)["mcpServers"]


def register(path, entry):
    """`entry` as the MCP server postbag, where a fake client keeps it: in .claude.json, or in config.toml."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if path.endswith(".toml"):
        write_config_toml(path, {"lines": [], "mcpServers": {"postbag": entry}})
        return
    with open(path, "w") as file:
        json.dump({"mcpServers": {"postbag": entry}}, file)


def settings_path(postbag):
    return os.path.join(postbag.env["HOME"], ".claude", "settings.json")


def settings(postbag):
    with open(settings_path(postbag)) as file:
        return json.load(file)


def write_settings(postbag, data, mode=0o600):
    return a_file_of_the_persons(settings_path(postbag), data, mode)


def a_file_of_the_persons(path, data, mode):
    """The person's file at `path`: `data`, with `mode`, its folder made where there is none."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as file:
        file.write(data)
    os.chmod(path, mode)
    return path


def after_a_tick(folder):
    """Return once the clock that stamps files has moved past every change in `folder`, as it
    has by the time a person edits a file after setup: it moves a tick at a time (a few
    milliseconds on Linux before 6.13, a second where whole seconds are kept), and an edit
    within setup's tick bears setup's change time, which remove cannot see (docs/doors.md)."""
    names = [os.path.join(folder, name) for name in os.listdir(folder)]
    latest = max(os.stat(each, follow_symlinks=False).st_ctime_ns for each in [folder, *names])
    probe = os.path.join(folder, "clock-probe")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
        try:
            if os.stat(probe).st_ctime_ns > latest:
                return
        finally:
            os.unlink(probe)
        time.sleep(0.001)
    raise AssertionError(f"the file clock did not move past the changes in {folder} within 10 s")


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


def test_a_client_outside_the_proven_versions_is_named_with_the_command_that_installs_one(postbag, clients, tmp_path):
    """As npm install -g @anthropic-ai/claude-code installs on Node 20: an old version, which
    setup sets up all the same, saying so, with a command that, pasted, installs a proven one."""
    env, _, _ = clients
    old = FakeClaude(str(tmp_path / "old-claude"), version="2.1.197")
    result = postbag.run("setup", env={**env, "PATH": f"{old.directory}{os.pathsep}{env['PATH']}"})
    assert result.returncode == 0, result.stderr
    assert (
        "postbag: Claude Code: 2.1.197 is older than postbag works with (2.1.248 to 2.1.337): install a proven one "
        "with npm install -g @anthropic-ai/claude-code@2.1.332 (npm warns where Node is older than 22; Claude Code "
        "runs)\n"
    ) in result.stderr
    assert "Codex:" not in result.stderr  # the fake codex is 0.171.0, proven
    newer = FakeClaude(str(tmp_path / "newer-claude"), version="2.2.0")
    result = postbag.run("setup", "--dry-run", env={**env, "PATH": f"{newer.directory}{os.pathsep}{env['PATH']}"})
    assert "postbag: Claude Code: 2.2.0 is newer than postbag is proven on (2.1.248 to 2.1.337): install" in (
        result.stderr
    )


def test_each_install_command_names_a_proven_version():
    """The commands setup and doctor give install a version inside each room's PROVEN."""
    from postbag.claude import client as claude_client
    from postbag.claude.room import PROVEN as CLAUDE
    from postbag.codex import client as codex_client
    from postbag.codex.room import PROVEN as CODEX
    from postbag.versions import numbers

    for client, proven in ((claude_client, CLAUDE), (codex_client, CODEX)):
        version = client.INSTALLING.split("@")[-1].split()[0]
        assert numbers(proven[0]) <= numbers(version) <= numbers(proven[1]), client.INSTALLING
    assert CODEX[1] in codex_client.INSTALLING  # the newest: npm publishes every Codex build as its package


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
    path = settings_path(postbag)
    made = b"postbag made this folder, and settings.json in it, to hold the rule\n"
    assert read_bytes(path + ".before-postbag") == made
    result = postbag.run("setup", "--remove", env=env)
    assert (result.returncode, result.stdout) == (
        0,
        f"claude removes {path}, which setup made\n"
        "claude takes out postbag's MCP server: claude mcp remove postbag -s user\n"
        "codex  takes out postbag's MCP server: codex mcp remove postbag\n"
        f"setup made these 3 changes; {RESTART}\n",
    )
    assert servers(claude_config) == {} and servers(codex_config) == {}
    assert not os.path.exists(os.path.dirname(path))  # the folder setup made, gone with what it held
    assert set_up(postbag, "--remove", env=env) == "setup finds nothing to take out\n"


def test_where_only_the_file_was_missing_remove_takes_the_file_away_and_leaves_the_folder(postbag, clients):
    env, *_ = clients
    folder = os.path.join(postbag.env["HOME"], ".claude")
    os.makedirs(folder)
    set_up(postbag, env=env)
    assert read_bytes(settings_path(postbag) + ".before-postbag") == b""  # there was no file: nothing to keep
    set_up(postbag, "--remove", env=env)
    assert os.listdir(folder) == []


@pytest.mark.parametrize("when", ["later", "the same second, where the file system keeps whole seconds"])
def test_a_file_changed_since_setup_keeps_the_rule_and_the_copy_and_remove_says_why(
    postbag, clients, monkeypatch, when
):
    """remove uses only the copy setup made, while the file is as setup left it: once it has
    changed since, whose the rule is cannot be told (the person may have taken setup's out,
    then written their own), so the rule and the copy stay, and remove says so. A change
    the second setup left the file, which a file system of whole seconds leaves unstamped,
    is told by the file's bytes."""
    env, *_ = clients
    mine = b'{"a": 1, "permissions": {"allow": []}}'
    path = write_settings(postbag, mine)
    set_up(postbag, env=env)
    assert read_bytes(path) == b'{"a": 1, "permissions": {"allow": ["mcp__postbag"]}}'
    changed = b'{"a": 2, "permissions": {"allow": ["mcp__postbag"]}}'
    if when == "later":
        after_a_tick(os.path.dirname(path))  # so the file's ctime moves on, and the stamp tells it
    write_settings(postbag, changed)  # the person's own change since
    if when != "later":  # the copy's stamp still matches the file's ctime, as whole seconds would have it
        if not postbag.in_process:
            pytest.skip("the file system's clock is stood in for in this process only")
        from postbag import whole_file

        as_left = whole_file.copy_as_left
        stamped = lambda file: file + ".before-postbag" if file == path else as_left(file)  # noqa: E731
        monkeypatch.setattr(whole_file, "copy_as_left", stamped)
    removed = postbag.run("setup", "--remove", env=env)
    assert removed.returncode == 0, removed.stderr
    assert "settings.json" not in removed.stdout
    assert (
        f"postbag: {path}.before-postbag, a copy of claude's settings.json, stays: setup did not make it, or the file "
        "has changed since it did, so setup and remove never use it; compare the two, take from the copy what you "
        "want back, then delete it\n"
        f"postbag: {RULE} stays in permissions.allow of {path}: the file has changed since setup kept a copy, so "
        "remove cannot tell whether setup or you put the rule in; take it out yourself if it is setup's\n"
    ) in removed.stderr
    assert read_bytes(path) == changed and read_bytes(path + ".before-postbag") == mine


def test_a_file_setup_made_and_the_person_filled_keeps_what_they_put_in(postbag, clients):
    env, *_ = clients
    set_up(postbag, env=env)
    path = settings_path(postbag)
    assert os.path.exists(path + ".before-postbag")  # there was no file: the copy says so
    set_up(postbag, "--remove", env=env)  # untouched since: the file setup made goes
    assert not os.path.exists(path) and not os.path.exists(path + ".before-postbag")
    set_up(postbag, env=env)
    filled = b'{\n  "model": "opus",\n  "permissions": {\n    "allow": [\n      "mcp__postbag"\n    ]\n  }\n}\n'
    write_settings(postbag, filled)
    set_up(postbag, "--remove", env=env)
    assert read_bytes(path) == filled  # everything they put in, and the rule remove cannot tell is setup's


def test_a_rule_the_person_wrote_before_setup_stays_through_setup_and_remove(postbag, clients):
    env, *_ = clients
    for mine in (
        b'{"permissions": {"allow": ["mcp__postbag", "Read"]}}\n',
        b'{"permissions": {"allow": ["mcp__postbag", "mcp__postbag"]}}\n',
        b'{"permissions": {"allow": ["mcp__postbag__*"]}}',
    ):
        path = write_settings(postbag, mine)
        assert "claude lets" not in set_up(postbag, env=env)  # allowed already: setup changes nothing there
        assert not os.path.exists(path + ".before-postbag")
        assert "settings.json" not in set_up(postbag, "--remove", env=env)  # setup added no rule: none is taken out
        assert read_bytes(path) == mine


def test_a_key_twice_and_numbers_past_a_double_are_edited_in_place_and_given_back_byte_for_byte(postbag, clients):
    """JSON.parse takes the last of a key, and 1e400 is valid JSON it reads as Infinity:
    the edit goes where JSON.parse looks, and every number keeps the text it was written in."""
    env, *_ = clients
    twice = b'{"permissions": {}, "big": 1e400, "n": 123456789012345678901234567890, '
    twice += b'"permissions": {"allow": ["Bash(ls)"]}}'
    path = write_settings(postbag, twice)
    set_up(postbag, env=env)
    assert read_bytes(path) == twice.replace(b'"Bash(ls)"]', b'"Bash(ls)", "mcp__postbag"]')
    lines = postbag.run("doctor", env=env).stdout
    assert "ok    the permission rule: Claude Code runs postbag's tools without asking" in lines
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


def test_a_link_that_names_no_file_is_left_as_it_is_and_setup_says_what_it_needs(postbag, clients, tmp_path):
    env, claude_config, codex_config = clients
    os.makedirs(os.path.join(postbag.env["HOME"], ".claude"))
    link = settings_path(postbag)
    for target in (tmp_path / "missing" / "dir" / "settings.json", tmp_path / "settings.json"):
        os.symlink(target, link)
        assert postbag.refused("setup", env=env) == (
            f"setup changed nothing: claude's settings.json, {link}, is a link to {target}, which is not there: "
            f"create {target} (an empty object, {{}} is enough), or remove the link, then run postbag setup again"
        )
        assert os.readlink(link) == str(target) and not os.path.exists(target)
        assert not os.path.exists(claude_config) and not os.path.exists(codex_config)
        os.unlink(link)


@pytest.mark.parametrize("how", ["read-only", "hard-linked"])
def test_a_settings_file_the_person_made_read_only_or_gave_two_names_is_named_and_left_alone(postbag, clients, how):
    env, claude_config, _ = clients
    path = write_settings(postbag, b'{"model": "opus"}', mode=0o444 if how == "read-only" else 0o600)
    if how == "hard-linked":
        os.link(path, path + ".mine")
    said = postbag.refused("setup", env=env)
    if how == "read-only":
        assert said == (
            f"setup changed nothing: claude's settings.json, {path}, is read-only (mode 444): make it writable "
            f"(chmod u+w {path}), or add {RULE} to permissions.allow yourself"
        )
    else:
        assert said == (
            f"setup changed nothing: claude's settings.json, {path}, has 2 names (hard links), which a rewrite "
            f"would split: add {RULE} to permissions.allow yourself"
        )
        assert os.stat(path).st_ino == os.stat(path + ".mine").st_ino
    assert read_bytes(path) == b'{"model": "opus"}' and not os.path.exists(claude_config)


def test_a_copy_setup_did_not_make_stays_is_named_and_is_never_waited_on_or_used(postbag, clients):
    """A copy left where setup keeps its own, by an earlier install or anyone (a pipe among
    them, which an open to read would wait on for ever), is never written over, read or
    used: setup keeps its own copy beside it, and remove gives back only that one."""
    env, *_ = clients
    mine = b'{"model": "opus"}'
    path = write_settings(postbag, mine)
    after_a_tick(os.path.dirname(path))  # a copy made after the file, and before setup
    os.mkfifo(path + ".before-postbag")
    after_a_tick(os.path.dirname(path))
    said = postbag.run("setup", env=env)
    assert said.returncode == 0, said.stderr
    assert "kept as it was in settings.json.before-postbag-2\n" in said.stdout
    assert f"postbag: {path}.before-postbag, a copy of claude's settings.json, stays: setup did not make it" in (
        said.stderr
    )
    assert read_bytes(path + ".before-postbag-2") == mine
    removed = postbag.run("setup", "--remove", env=env)
    assert read_bytes(path) == mine and not os.path.exists(path + ".before-postbag-2")
    assert stat.S_ISFIFO(os.stat(path + ".before-postbag").st_mode)
    assert f"postbag: {path}.before-postbag, a copy of claude's settings.json, stays" in removed.stderr


def test_a_leftover_copy_beside_the_persons_own_rule_never_takes_the_rule_out(postbag, clients):
    """An earlier install left its copy; the person took setup's rule out and wrote their own
    since. setup has nothing to add; remove must not take their rule for setup's."""
    env, *_ = clients
    path = write_settings(postbag, b'{"permissions": {"allow": ["mcp__postbag"]}}')
    leftover = b'{"permissions": {"allow": []}}'
    after_a_tick(os.path.dirname(path))
    with open(path + ".before-postbag", "wb") as file:
        file.write(leftover)
    set_up(postbag, env=env)
    set_up(postbag, "--remove", env=env)
    assert read_bytes(path) == b'{"permissions": {"allow": ["mcp__postbag"]}}'
    assert read_bytes(path + ".before-postbag") == leftover


def test_part_files_a_killed_setup_left_are_cleaned_by_the_next_run(postbag, clients):
    env, *_ = clients
    path = write_settings(postbag, WRITTEN_BY_CLAUDE)
    folder = os.path.dirname(path)
    ended = subprocess.Popen(["true"])  # a pid whose process has ended: a writer killed
    ended.wait()
    left = [f".settings.json.{ended.pid}.0a1b2c3d.part", f".settings.json.before-postbag.{ended.pid}.00ff00ff.part"]
    alive = f".settings.json.{os.getpid()}.feedbeef.part"  # a writer that still runs: its file is its own
    # Not a name postbag gives a part file: someone else's.
    others = ["notes.part", f".notes.x{ended.pid}.0a1b2c3d.part", f".notes.{ended.pid}.0a1b.part"]
    others += [".notes.0.0a1b2c3d.part", ".notes.99999999999.0a1b2c3d.part"]  # no process's pid: 0, past any
    for name in [*left, alive, *others]:
        with open(os.path.join(folder, name), "w") as file:
            file.write("{")
    set_up(postbag, env=env)
    assert sorted(strays(folder)) == sorted([alive, *others])


@pytest.mark.process  # a signal of its own, and the process it ends
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_mid_setup_leaves_every_change_undone(postbag, clients, signal_name):
    import signal
    import time

    env, claude_config, codex_config = clients
    path = write_settings(postbag, WRITTEN_BY_CLAUDE)
    started = os.path.join(postbag.env["HOME"], "claude-add-started")
    holding = {**env, "FAKE_CLIENT_HOLDS": "add", "FAKE_CLIENT_STARTED": started}
    child = subprocess.Popen(
        [*postbag.command, "setup"],
        env=postbag.environment(None, holding),
        cwd=postbag.cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not os.path.exists(started) and time.monotonic() < deadline:  # the rule is in; claude mcp add runs
        time.sleep(0.01)
    assert read_bytes(path) == SHAPES["Claude Code's own"][1]
    child.send_signal(getattr(signal, signal_name))
    _, stderr = child.communicate(timeout=30)
    assert child.returncode == (130 if signal_name == "SIGINT" else -getattr(signal, signal_name)), stderr
    assert stderr == "postbag: setup was interrupted; nothing was changed\n"
    assert read_bytes(path) == WRITTEN_BY_CLAUDE and not os.path.exists(path + ".before-postbag")
    assert not os.path.exists(claude_config) or servers(claude_config) == {}
    assert not os.path.exists(codex_config)


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP"])
def test_a_signal_that_asks_the_process_to_end_undoes_what_setup_made_then_ends_it_as_the_signal_would(
    monkeypatch, signal_name
):
    """The same in this process, where coverage sees it (a process the signal ends keeps no
    record of what ran): the change under way and those before it are undone, the last
    first, setup says so, and the process ends as the signal would have ended it."""
    import io
    import signal
    import types

    from postbag import setup, signals
    from postbag.registration import Change

    number, done, ended = getattr(signal, signal_name), [], []
    monkeypatch.setattr(signals, "end_as", ended.append)  # else the end of this test's process

    def stopped_midway():
        done.append("second")
        os.kill(os.getpid(), number)

    changes = [
        Change("writes", lambda: done.append("first"), undo=lambda: done.append("first undone")),
        Change("registers", stopped_midway, undo=lambda: done.append("second undone")),
    ]
    here = types.SimpleNamespace(stderr=io.StringIO())
    with pytest.raises(signals.Stopped):
        setup._make_all(changes, here)
    assert done == ["first", "second", "second undone", "first undone"] and ended == [number]
    assert here.stderr.getvalue() == "postbag: setup was interrupted; nothing was changed\n"


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
    register(claude_config if where == "claude" else codex_config, OLD_POSTBAG)
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
            "{not json": "claude's settings.json is not JSON (at line 1 column 2, 'n' stands where JSON wants a key "
            "in quotes or the end of the object)",
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
        register(path, OLD_POSTBAG)
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
        "setup changed nothing: codex mcp get postbag --json failed (exit 1): Error: the configuration is broken"
    )
    os.makedirs(os.path.dirname(claude_config), exist_ok=True)
    with open(claude_config, "w") as file:
        file.write('{"numStartups": 3,\n "mcpServers": {not json')
    assert postbag.refused("setup", env=env) == (
        "setup changed nothing: Claude Code's .claude.json cannot be read (it is not JSON at line 2 column 17)"
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
    st.one_of(
        st.text(max_size=5),
        st.integers(),
        st.just({}),
        st.just({"allow": ["Read"]}),
        st.just({"allow": []}),
        st.just({"allow": [RULE, "Read"]}),  # a rule of the person's own
        st.just({"deny": []}),
    ),
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


def rules_of(data):
    """The rules of the allow list of a settings file, as JSON takes them: none where there is no file."""
    if not data:
        return []
    return json.loads(data.removeprefix(b"\xef\xbb\xbf")).get("permissions", {}).get("allow", [])


@hypothesis.settings(max_examples=examples(80), deadline=None)
@given(
    start=st.one_of(st.none(), st.tuples(PERSONS, LAYOUTS, st.booleans())),
    leftover=st.one_of(st.none(), st.tuples(PERSONS, LAYOUTS, st.booleans())),
    steps=st.lists(st.sampled_from(["setup", "remove"]) | st.tuples(PERSONS, LAYOUTS, st.booleans()), max_size=8),
)
def test_no_sequence_of_setups_removals_and_edits_loses_the_persons_file(tmp_path_factory, start, leftover, steps):
    """Each rule of the person's file, through whatever they and setup do to it in turn, a
    copy left by an earlier install beside it or not: every setting of theirs stays; setup
    adds one rule or none; remove takes out the one setup added, and gives the file back
    byte for byte, only where nothing changed the file since; a copy setup did not make in
    this install is never used, nor changed; nothing is left half written."""
    from postbag import whole_file
    from postbag.claude import permission
    from postbag.claude.settings import settings_at

    folder = tmp_path_factory.mktemp("claude") / ".claude"
    path = str(folder / "settings.json")
    kept = path + whole_file.KEPT
    left = None
    if leftover is not None:  # a copy an earlier install left: the person's from now on
        os.makedirs(folder, exist_ok=True)
        left = persons_file(leftover[0], leftover[1], leftover[2])
        with open(kept, "wb") as file:
            file.write(left)
        after_a_tick(str(folder))
    given_back = None  # what a remove gives back byte for byte: the file as setup found it, while untouched since
    for step in [*([start] if start else []), *steps]:
        if type(step) is tuple:  # the person writes their file, whatever it held
            value = {key: item for key, item in step[0].items() if key != "permissions" or type(item) is dict}
            os.makedirs(folder, exist_ok=True)
            after_a_tick(str(folder))
            with open(path, "wb") as file:
                file.write(persons_file(value, step[1], step[2]))
            given_back = None
            continue
        before = read_bytes(path)
        change = permission.change(path, removing=step == "remove")
        if change is not None:
            change.make()
        after = read_bytes(path)
        assert not os.path.isdir(folder) or strays(str(folder)) == []
        assert without_the_rule(after) == without_the_rule(before)  # every setting of the person's kept
        if step == "setup":
            assert settings_at(path).allowed()
            grown = len(rules_of(after)) - len(rules_of(before))
            assert grown == (0 if RULE in rules_of(before) else 1)
            if grown:
                given_back = b"" if before is None else before
        else:
            taken = len([r for r in rules_of(before) if r == RULE]) - len([r for r in rules_of(after) if r == RULE])
            # The one setup added, where nothing changed the file since; none of the person's.
            assert taken == (1 if given_back is not None else 0)
            if given_back is not None:
                assert (after or b"") == given_back
            assert whole_file.copy_as_left(path) is None
            given_back = None
        if left is not None:
            assert read_bytes(kept) == left  # the copy an earlier install left stays as it was
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    assert all(name == "settings.json" or name.startswith("settings.json.before-postbag") for name in names)


@pytest.mark.parametrize("where", ["its folder a file", "a folder itself"])
def test_a_settings_json_that_is_no_file_is_refused_in_words_by_setup_and_remove(tmp_path, where):
    from postbag.claude import permission
    from postbag.refusal import Refusal

    folder = tmp_path / ".claude"
    if where == "its folder a file":
        folder.write_bytes(b"mine")
        why = "Not a directory"
    else:
        (folder / "settings.json").mkdir(parents=True)
        why = "it is not a regular file"
    for removing in (False, True):
        with pytest.raises(Refusal) as refused:
            permission.change(str(folder / "settings.json"), removing=removing)
        assert str(refused.value) == f"claude's settings.json cannot be read ({why})"
    assert folder.is_dir() or folder.read_bytes() == b"mine"


def test_remove_leaves_the_folder_setup_made_where_claude_code_keeps_more_in_it_now(tmp_path):
    """setup made ~/.claude to hold the rule; Claude Code has kept its own files there since:
    remove takes away the file setup made, and leaves the folder with what it holds."""
    from postbag.claude import permission

    folder = tmp_path / ".claude"
    path = str(folder / "settings.json")
    permission.change(path, removing=False).make()
    (folder / "projects").mkdir()
    removing = permission.change(path, removing=True)
    assert removing.does == f"removes {path}, which setup made"
    removing.make()
    assert os.listdir(folder) == ["projects"]


def test_a_change_to_settings_json_undone_leaves_the_file_its_copy_and_its_folder_as_they_were(tmp_path):
    """A later step of setup that fails, or a signal, undoes setup's change: the folder it
    made goes with the file; and remove's, undone, leaves the file as setup left it, which a
    later remove still gives back byte for byte. A change the signal came before is none."""
    from postbag.claude import permission

    folder = tmp_path / ".claude"
    path = str(folder / "settings.json")
    setting_up = permission.change(path, removing=False)
    setting_up.undo()  # never made
    assert not folder.exists()
    setting_up.make()
    setting_up.undo()
    assert not folder.exists()

    mine = b'{"model": "opus"}'
    a_file_of_the_persons(path, mine, 0o600)
    permission.change(path, removing=False).make()
    made = read_bytes(path)
    removing = permission.change(path, removing=True)
    removing.make()
    removing.undo()
    assert (read_bytes(path), read_bytes(path + ".before-postbag")) == (made, mine)
    permission.change(path, removing=True).make()
    assert read_bytes(path) == mine and not os.path.exists(path + ".before-postbag")


def test_a_deny_or_ask_rule_of_the_persons_is_named_with_its_file_and_never_changed(postbag, clients):
    env, *_ = clients
    mine = b'{"permissions": {"deny": ["mcp__postbag"], "allow": ["Read"]}}'
    path = write_settings(postbag, mine)
    project = os.path.join(postbag.cwd, ".claude", "settings.local.json")
    os.makedirs(os.path.dirname(project))
    with open(project, "w") as file:
        json.dump({"permissions": {"ask": ["mcp__postbag__send"]}}, file)
    result = postbag.run("setup", env=env)
    assert result.returncode == 0, result.stderr
    # The rule goes in all the same, for the tools no deny names; what the deny and the ask do is said, not undone.
    assert f"claude adds {RULE} to permissions.allow in {path}, kept as it was in settings.json.before-postbag\n" in (
        result.stdout
    )
    assert "without asking" not in result.stdout
    said = result.stderr.splitlines()
    assert said[:2] == [
        f"postbag: Claude Code will not run postbag's tools: {RULE} stands in permissions.deny of {path}, and a deny "
        "wins over every allow (setup leaves that to you)",
        f"postbag: Claude Code asks before each call of postbag's send tool: {RULE}__send stands in permissions.ask "
        f"of {project}, and an ask wins over an allow (setup leaves that to you)",
    ]
    assert json.loads(read_bytes(path))["permissions"]["deny"] == [RULE]
    lines = postbag.run("doctor", env=env).stdout.splitlines()
    assert (
        f"fix   the permission rule: Claude Code will not run postbag's tools: {RULE} stands in permissions.deny of "
        f"{path}, and a deny wins over every allow: take it out there, if the agents are to write to each other"
    ) in lines
    write_settings(postbag, b'{"permissions": {"allow": ["mcp__postbag"]}}')
    lines = postbag.run("doctor", env=env).stdout.splitlines()
    assert (
        "note  the permission rule: Claude Code asks before each call of postbag's send tool: mcp__postbag__send "
        f"stands in permissions.ask of {project}, and an ask wins over an allow"
    ) in lines


def test_a_deny_rule_is_named_once_where_the_home_folder_is_the_project(postbag, clients):
    """Started in the home folder, a session's project settings.json is the person's own file."""
    env, *_ = clients
    path = write_settings(postbag, b'{"permissions": {"deny": ["mcp__postbag"]}}')
    result = postbag.run("setup", "--dry-run", env=env, cwd=postbag.env["HOME"])
    assert result.returncode == 0, result.stderr
    assert result.stderr.count(f"{RULE} stands in permissions.deny of {path}") == 1, result.stderr


# Codex's config.toml, which Codex's own command writes whole again: kept as found.

CONFIG_TOML = b'# my model\nmodel = "o3"\n\n[mcp_servers.other]\n# a server of mine\ncommand = "other"\n'
KEEPS = (
    "Codex's own command writes {path} whole again, so setup keeps the file as it found it, in {path}.before-postbag"
)


def codex_config_toml(postbag, data=CONFIG_TOML, mode=0o644):
    return a_file_of_the_persons(os.path.join(postbag.env["HOME"], ".codex", "config.toml"), data, mode)


def as_found(path):
    return read_bytes(path), stat.S_IMODE(os.stat(path).st_mode)


def test_codex_s_config_toml_comes_back_byte_for_byte_and_mode_for_mode(postbag, clients):
    env, *_ = clients
    path = codex_config_toml(postbag)
    result = postbag.run("setup", env=env)
    assert result.returncode == 0, result.stderr
    assert f"postbag: {KEEPS.format(path=path)}, for setup --remove to give back\n" in result.stderr
    assert as_found(path + ".before-postbag") == (CONFIG_TOML, 0o644)
    assert as_found(path) != (CONFIG_TOML, 0o644)  # the fake, as Codex does, dropped the comments and made it 600
    assert postbag.run("setup", env=env).stderr.count("before-postbag") == 0  # nothing to change, nothing said
    removed = postbag.run("setup", "--remove", env=env)
    assert removed.returncode == 0, removed.stderr
    assert (
        f"codex  takes out postbag's MCP server: gives back {path} as setup found it, from {path}.before-postbag\n"
    ) in removed.stdout
    assert as_found(path) == (CONFIG_TOML, 0o644) and not os.path.exists(path + ".before-postbag")


def test_a_config_toml_changed_since_setup_keeps_its_copy_and_remove_names_it(postbag, clients):
    env, *_ = clients
    path = codex_config_toml(postbag)
    set_up(postbag, env=env)
    after_a_tick(os.path.dirname(path))
    with open(path, "a") as file:
        file.write('approval_policy = "never"\n')  # the person's own change, after setup
    removed = postbag.run("setup", "--remove", env=env)
    assert removed.returncode == 0, removed.stderr
    assert "codex  takes out postbag's MCP server: codex mcp remove postbag\n" in removed.stdout
    assert (
        f"postbag: {path}.before-postbag, a copy of Codex's config.toml, stays: setup did not make it, or the file has "
        "changed since it did, so remove does not give it back; compare the two, take from the copy what you want "
        "back, then delete it\n"
    ) in removed.stderr
    assert b'approval_policy = "never"\n' in read_bytes(path) and b"[mcp_servers.postbag]" not in read_bytes(path)
    assert as_found(path + ".before-postbag") == (CONFIG_TOML, 0o644)
    # A later setup keeps the file as it is now, beside the copy it no longer trusts, which stays as it is.
    again = postbag.run("setup", env=env)
    assert (
        f"{KEEPS.format(path=path)}-2 ({path}.before-postbag, which setup did not make, stays as it is)"
    ) in again.stderr
    assert as_found(path + ".before-postbag") == (CONFIG_TOML, 0o644)


def test_a_later_setup_that_moves_the_ledger_still_gives_back_the_first_copy(postbag, clients, tmp_path):
    env, *_ = clients
    path = codex_config_toml(postbag)
    set_up(postbag, env=env)
    moved = postbag.run("setup", env={**env, "POSTBAG_LEDGER": str(tmp_path / "work.jsonl")})
    assert moved.returncode == 0 and "before-postbag" not in moved.stderr, moved.stderr  # the copy still describes it
    set_up(postbag, "--remove", env={**env, "POSTBAG_LEDGER": str(tmp_path / "work.jsonl")})
    assert as_found(path) == (CONFIG_TOML, 0o644) and not os.path.exists(path + ".before-postbag")


def test_a_setup_that_fails_after_codex_s_command_puts_config_toml_and_its_copy_back(postbag, clients, tmp_path):
    env, *_ = clients
    path = codex_config_toml(postbag)
    set_up(postbag, env=env)
    after_setup, copy = as_found(path), as_found(path + ".before-postbag")
    # Moving the ledger takes codex's registration out and adds it again; the add fails.
    moving = {**env, "POSTBAG_LEDGER": str(tmp_path / "work.jsonl"), "FAKE_CLIENT_FAILS": "codex add"}
    assert postbag.refused("setup", env=moving).endswith("Error: the configuration is broken; nothing was changed")
    assert (as_found(path), as_found(path + ".before-postbag")) == (after_setup, copy)
    set_up(postbag, "--remove", env=env)  # the copy still describes the file: remove gives it back
    assert as_found(path) == (CONFIG_TOML, 0o644)


def test_no_config_toml_gets_no_copy(postbag, clients):
    env, *_ = clients
    path = os.path.join(postbag.env["HOME"], ".codex", "config.toml")
    result = postbag.run("setup", env=env)
    assert "before-postbag" not in result.stderr and not os.path.exists(path + ".before-postbag")
    set_up(postbag, "--remove", env=env)
    assert not os.path.exists(path + ".before-postbag")


# What Codex 0.171.0 writes on stderr where its config.toml is not TOML (in a CODEX_HOME under /tmp).
CODEX_ON_A_BROKEN_CONFIG = """\
WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries under /tmp
Error: failed to load bootstrap configuration

Caused by:
    0: /home/you/.codex/config.toml:1:15: unclosed table, expected `]`
    1: TOML parse error at line 1, column 15
         |
       1 | [mcp_servers.x
         |               ^
       unclosed table, expected `]`


Stack backtrace:
   0: <unknown>
   1: <unknown>
"""


def test_a_clients_failure_is_told_in_its_own_words_on_one_line_without_its_warnings_and_backtrace():
    from postbag.registration import failed

    told = str(failed("codex mcp get postbag --json", 1, CODEX_ON_A_BROKEN_CONFIG))
    assert told.startswith(
        "codex mcp get postbag --json failed (exit 1): Error: failed to load bootstrap configuration / Caused by: / "
        "0: /home/you/.codex/config.toml:1:15: unclosed table, expected `]` / 1: TOML parse error"
    )
    assert "\n" not in told and "WARNING" not in told and "backtrace" not in told and len(told) < 300
    assert "  " not in told  # the caret's padding
    assert str(failed("claude mcp add", None, "")) == "claude mcp add failed (no answer within 60 s): it said nothing"


def test_a_settings_file_changed_between_removes_plan_and_its_change_is_left_as_changed(postbag, clients):
    """remove decides to give the file back as it plans; an edit that lands before the
    change is made stays, and the change refuses, so that setup undoes what it made."""
    from postbag.claude import permission
    from postbag.refusal import Refusal

    env, *_ = clients
    path = write_settings(postbag, WRITTEN_BY_CLAUDE)
    set_up(postbag, env=env)
    planned = permission.change(path, removing=True)
    edited = b'{"permissions": {"allow": ["mcp__postbag", "Edit"]}}'
    write_settings(postbag, edited)  # the person's edit, after the plan
    with pytest.raises(Refusal) as refused:
        planned.make()
    assert str(refused.value) == (
        f"claude's settings.json, {path}, changed after remove planned to give it back: run postbag setup --remove "
        "again"
    )
    assert read_bytes(path) == edited and read_bytes(path + ".before-postbag") == WRITTEN_BY_CLAUDE
