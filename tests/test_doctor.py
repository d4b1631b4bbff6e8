"""`postbag doctor`: a line for each thing a first exchange needs, ok or the one fix, and
notes; exit 1 while something needs a fix. The clients are fakes that keep their
configuration where the real ones do (tests/real/test_real_setup.py runs the real ones)."""

import json
import os
import re
import subprocess
import sys

import pytest
from fakes import FakeClaude
from helpers import AFRESH, TIMESTAMP


@pytest.fixture
def clients(postbag, tmp_path):
    claude = FakeClaude(str(tmp_path / "claude-bin"))
    return {"PATH": f"{claude.directory}{os.pathsep}{postbag.env['PATH']}"}


def doctor(postbag, *args, env, status=None):
    """What `postbag doctor ARGS` says, a line a check, after checking its exit status."""
    result = postbag.run("doctor", *args, env=env)
    assert result.stderr == "" and (status is None or result.returncode == status), (result.returncode, result.stderr)
    return result.stdout.splitlines()


def check(state, what, finding):
    """A line of doctor, as it says one: its state, what it looked at, and what it found.
    The tests check a line by its template in the wording and the facts it is given."""
    return f"{state:<5} {what}: {finding}"


def program(postbag):
    return " ".join(postbag.command if postbag.target == "pyz" else [postbag.command[0], "-m", "postbag"])


@pytest.mark.shipped
def test_on_a_fresh_home_doctor_names_each_fix_and_after_setup_says_ok(postbag, clients):
    from postbag import __version__

    lines = doctor(postbag, env=clients, status=1)
    python = f"{sys.version_info[0]}.{sys.version_info[1]}.{sys.version_info[2]}"
    started = f"{__version__}, which the clients start as {f'{program(postbag)} mcp'}"
    assert lines[:2] == [check("ok", "Python", python), check("ok", "postbag", started)]
    setup = "run postbag setup"
    assert lines[2:] == [
        check("ok", "Claude Code", "2.1.336, within the versions postbag is proven on (2.1.248 to 2.1.337)"),
        check("fix", "Claude Code's registration of postbag", f"there is none: {setup}"),
        check("fix", "the permission rule", f"Claude Code would ask before each of postbag's tools: {setup}"),
        check(
            "note",
            "letters from another session",
            "a session that prompts for permissions takes them; one started with --dangerously-skip-permissions "
            "holds each for your review, since postbag claims no permission mode: to let "
            "them in, set crossSessionInbound to accept in claude's settings.json",
        ),
        check("ok", "Codex", "0.171.0, within the versions postbag is proven on (0.153.0 to 0.171.0)"),
        check("fix", "Codex's registration of postbag", f"there is none: {setup}"),
        check(
            "note",
            "waking a thread nobody has loaded",
            "Codex's daemon is not running, so such a thread keeps its letters until it "
            "runs: start it with codex app-server daemon start",
        ),
        check(
            "ok",
            "the ledger",
            f"none yet at {postbag.ledger}, which POSTBAG_LEDGER names: the first join or "
            "open makes it, private to you",
        ),
    ]
    assert postbag.run("setup", env=clients).returncode == 0
    lines = doctor(postbag, env=clients, status=0)
    for client in ("Claude Code", "Codex"):
        assert check("ok", f"{client}'s registration of postbag", "it starts this postbag, which answers") in lines
    rule = check(
        "ok", "the permission rule", "Claude Code runs postbag's tools without asking (mcp__postbag is allowed)"
    )
    assert rule in lines
    assert not [line for line in lines if line.startswith("fix")]


def test_doctor_speaks_json_lines_for_scripts(postbag, clients):
    found = [json.loads(line) for line in doctor(postbag, "--json", env=clients, status=1)]
    said = "there is none: run postbag setup"
    assert {"check": "Codex's registration of postbag", "state": "fix", "said": said} in found
    assert all(set(each) == {"check", "state", "said"} for each in found)


@pytest.mark.process  # its stdout a pipe nobody reads
def test_doctor_into_a_pipe_nobody_reads_is_quiet_as_read_is(postbag, clients):
    reader, writer = os.pipe()
    os.close(reader)
    try:
        env = postbag.environment(None, clients)
        result = subprocess.run([*postbag.command, "doctor", "--json"], env=env, stdout=writer, stderr=subprocess.PIPE)
    finally:
        os.close(writer)
    assert (result.returncode, result.stderr) == (141, b"")


def test_a_client_not_installed_or_too_old_or_registering_another_postbag_is_named_with_its_fix(postbag, tmp_path):
    old = FakeClaude(str(tmp_path / "old-claude"), version="2.1.100")
    lines = doctor(postbag, env={"PATH": old.directory, "POSTBAG_CODEX": None}, status=1)
    assert (
        "fix   Claude Code: 2.1.100 is older than postbag works with (2.1.248 to 2.1.337): install a proven one with "
        "npm install -g @anthropic-ai/claude-code@2.1.332 (npm warns where Node is older than 22; Claude Code runs)"
    ) in lines
    assert "fix   Codex: not installed here (no codex on PATH): install it, then run postbag setup" in lines
    os.makedirs(postbag.env["HOME"], exist_ok=True)
    with open(os.path.join(postbag.env["HOME"], ".claude.json"), "w") as file:
        json.dump({"mcpServers": {"postbag": {"command": "/opt/old/postbag", "args": ["mcp"], "env": {}}}}, file)
    assert (  # the one fix, which setup would otherwise refuse for it: no loop of untrue words
        "fix   Claude Code's registration of postbag: it starts /opt/old/postbag mcp, not this postbag: take it out "
        "with "
        "claude mcp remove postbag -s user, then run postbag setup"
    ) in doctor(postbag, env={"PATH": old.directory})


def test_what_claude_lets_in_and_the_ledger_are_checked_and_each_joined_door_named(postbag, clients, inbox):
    claude_settings = os.path.join(postbag.env["HOME"], ".claude", "settings.json")
    os.makedirs(os.path.dirname(claude_settings))
    with open(claude_settings, "w") as file:
        json.dump({"crossSessionInbound": "refuse"}, file)
    postbag.ready()
    os.chmod(postbag.ledger, 0o644)
    lines = doctor(postbag, env=clients, status=1)
    assert (
        "fix   letters from another session: Claude Code refuses them (crossSessionInbound refuse): set "
        "crossSessionInbound to accept in claude's settings.json"
    ) in lines
    assert f"fix   the ledger: {postbag.ledger} can be read by others (mode 644): chmod 600 {postbag.ledger}" in lines
    os.chmod(postbag.ledger, 0o600)
    lines = doctor(postbag, env=clients)
    assert f"ok    the ledger: {postbag.ledger}, which POSTBAG_LEDGER names, yours and private, 3 records" in lines
    door = "note  claude's door: claude will not take a letter now: it refuses each, since its settings refuse "
    assert door in "\n".join(lines)
    codex_door = "note  codex's door: whether codex can take a letter now cannot be told"
    assert any(line.startswith(codex_door) for line in lines)
    with open(postbag.ledger, "a") as file:
        file.write("not a record\n")
    assert f"fix   the ledger: ledger line 4 is not a record ({postbag.ledger}){AFRESH}" in doctor(postbag, env=clients)
    # What stops open is named before a mode open mends itself.
    os.chmod(postbag.ledger, 0o644)
    assert f"fix   the ledger: ledger line 4 is not a record ({postbag.ledger}){AFRESH}" in doctor(postbag, env=clients)


def test_a_server_is_started_as_its_client_would_and_must_answer_as_postbag(postbag, tmp_path):
    from postbag.doctor import answers
    from postbag.registration import Registration

    here = postbag.place()
    assert answers(Registration([sys.executable, "-m", "postbag", "mcp"]), here) is None
    assert answers(Registration([str(tmp_path / "nowhere"), "mcp"]), here) == "No such file or directory"
    # Whether it ended before or after the question was written, the words are the same.
    assert answers(Registration([sys.executable, "-c", "pass"]), here) == "it ended without answering"
    assert answers(Registration([sys.executable, "-c", "print('ready')"]), here) == "it answered what is not JSON"
    other = 'import json; input(); print(json.dumps({"result": {"serverInfo": {"name": "another"}}}))'
    assert answers(Registration([sys.executable, "-c", other]), here) == "it answered as another server"


def test_a_server_that_writes_half_a_line_and_waits_does_not_hold_doctor_up(postbag, monkeypatch):
    import threading

    from postbag import doctor
    from postbag.registration import Registration

    monkeypatch.setattr(doctor, "ANSWER_WAIT", 0.5)
    stalls = [sys.executable, "-c", "import sys, time; sys.stdout.write('{'); sys.stdout.flush(); time.sleep(60)"]
    said = []
    asking = threading.Thread(target=lambda: said.append(doctor.answers(Registration(stalls), postbag.place())))
    asking.start()
    asking.join(20)  # a doctor that waited for the rest of the line would still be waiting
    assert said == ["no answer within 0.5 s"]


def test_a_client_newer_than_proven_or_whose_version_cannot_be_told_is_noted_not_refused(postbag, tmp_path):
    newer = FakeClaude(str(tmp_path / "newer"), version="2.2.0")
    lines = doctor(postbag, env={"PATH": newer.directory})
    assert (
        "note  Claude Code: 2.2.0 is newer than postbag is proven on (2.1.248 to 2.1.337): install a proven one with "
        "npm install -g @anthropic-ai/claude-code@2.1.332 (npm warns where Node is older than 22; Claude Code runs)"
    ) in lines
    unnamed = FakeClaude(str(tmp_path / "unnamed"), version="")  # says "(Claude Code)", and no version
    lines = doctor(postbag, env={"PATH": unnamed.directory})
    assert "note  Claude Code: its version cannot be told; postbag is proven on 2.1.248 to 2.1.337" in lines


def test_a_registration_or_settings_that_cannot_be_read_are_each_named_with_the_fix(postbag, clients):
    home = postbag.env["HOME"]
    os.makedirs(os.path.join(home, ".claude", "settings.json"))  # a folder where the file should be
    with open(os.path.join(home, ".claude.json"), "w") as file:
        file.write("{not json")
    lines = doctor(postbag, env={**clients, "FAKE_CLIENT_FAILS": "get"}, status=1)
    assert (
        "fix   Claude Code's registration of postbag: Claude Code's .claude.json cannot be read (it is not JSON at "
        "line 1 "
        "column 2): mend it, then "
        "run postbag setup"
    ) in lines
    assert (
        "fix   the permission rule: claude's settings.json cannot be read (it is not a regular file): mend it, then "
        "run postbag setup"
    ) in lines
    assert (
        "fix   Codex's registration of postbag: codex mcp get postbag --json failed (exit 1): Error: the "
        "configuration is broken: "
        "mend it, then run postbag setup"
    ) in lines


def test_sessions_that_start_bypassing_prompts_are_a_fix_for_letters_to_get_in(postbag, clients):
    settings = os.path.join(postbag.env["HOME"], ".claude", "settings.json")
    os.makedirs(os.path.dirname(settings))
    with open(settings, "w") as file:
        json.dump({"permissions": {"defaultMode": "bypassPermissions"}}, file)
    assert (
        "fix   letters from another session: sessions start bypassing permission prompts "
        "(permissions.defaultMode), and such a session holds postbag's letters for your review while "
        "crossSessionInbound is unset: set crossSessionInbound to accept in claude's settings.json"
    ) in doctor(postbag, env=clients, status=1)


def test_a_running_codex_daemon_is_ok_for_waking(postbag, clients, exchange):
    _, codex_files, _, _ = exchange
    codex_files.daemon()
    lines = doctor(postbag, env=clients)
    runs = "Codex's daemon runs, and takes a letter for such a thread at once"
    assert f"ok    waking a thread nobody has loaded: {runs}" in lines


def test_a_ledger_doctor_cannot_locate_or_look_at_is_named_with_why(postbag, clients, tmp_path):
    assert postbag.run("setup", env=clients).returncode == 0
    lines = doctor(postbag, env={**clients, "POSTBAG_LEDGER": "bag/ledger.jsonl"}, status=1)
    unknown = "whether it starts this postbag cannot be told until the ledger is mended"
    assert [line for line in lines if "MCP server" in line or "the ledger" in line] == [
        f"fix   Claude Code's registration of postbag: {unknown}",
        f"fix   Codex's registration of postbag: {unknown}",
        "fix   the ledger: POSTBAG_LEDGER is a relative path (bag/ledger.jsonl); give the ledger's absolute path, "
        "the same in both sessions and in your terminal",
    ]
    (tmp_path / "a-file").write_text("")
    beneath = str(tmp_path / "a-file" / "ledger.jsonl")
    lines = doctor(postbag, env={**clients, "POSTBAG_LEDGER": beneath}, status=1)
    assert f"fix   the ledger: {beneath} cannot be looked at (Not a directory)" in lines


@pytest.mark.shipped
def test_a_ledger_named_after_setup_is_told_as_such_with_both_ledgers_and_both_fixes(postbag, clients, tmp_path):
    assert postbag.run("setup", env={**clients, "POSTBAG_LEDGER": None}).returncode == 0
    lines = doctor(postbag, env={**clients, "POSTBAG_LEDGER": None})
    assert "ok    Claude Code's registration of postbag: it starts this postbag, which answers" in lines
    assert "ok    Codex's registration of postbag: it starts this postbag, which answers" in lines
    shared = str(tmp_path / "shared" / "ledger.jsonl")
    lines = doctor(postbag, env={**clients, "POSTBAG_LEDGER": shared}, status=1)
    each_own = "each session's own ledger (its repository's, or the default)"
    for client in ("Claude Code", "Codex"):
        assert (
            f"fix   {client}'s registration of postbag: it starts this postbag on {each_own}, and this terminal names "
            f"the ledger {shared}: to keep the clients' ledger, which setup gave them, unset POSTBAG_LEDGER in this "
            "terminal (and in your shell's startup file); or run postbag setup, which points it at this one"
        ) in lines
    assert postbag.run("setup", env={**clients, "POSTBAG_LEDGER": shared}).returncode == 0
    lines = doctor(postbag, env={**clients, "POSTBAG_LEDGER": shared}, status=0)
    assert "ok    Codex's registration of postbag: it starts this postbag, which answers" in lines
    # The person's choice, in a new terminal that lacks it: both ways out, and which keeps it.
    lines = doctor(postbag, env={**clients, "POSTBAG_LEDGER": None}, status=1)
    assert (
        f"fix   Codex's registration of postbag: it starts this postbag on the ledger {shared}, and this terminal "
        f"names {each_own}: "
        f"to keep the clients' ledger, which setup gave them, export POSTBAG_LEDGER={shared} in this terminal (or in "
        "your shell's startup file); or run postbag setup, which takes the ledger out of its registration"
    ) in lines


def damaged(postbag, path):
    """A ledger two good records long, then lines that are none, the last unfinished."""
    postbag.ok("join", "claude", inside="claude")
    postbag.ok("join", "codex", inside="codex")
    with open(path, "ab") as file:
        file.write(b"garbage one\ngarbage two\npartial")


def ledger_at(where, postbag, folder):
    """A ledger where a person's terminal may name one: its path."""
    named = {"a fresh home": os.path.join(folder, "fresh", "bag", "ledger.jsonl"), "in /proc": "/proc/x/ledger.jsonl"}
    if where in named:  # nothing there yet
        return named[where]
    if where == "beneath a file":
        with open(os.path.join(folder, "a-file"), "w"):
            return os.path.join(folder, "a-file", "ledger.jsonl")
    if where == "beneath a link to nothing":  # a folder on a drive not mounted now
        os.symlink(os.path.join(folder, "unmounted"), os.path.join(folder, "drive"))
        return os.path.join(folder, "drive", "bag", "ledger.jsonl")
    if where == "a folder in its place":
        os.makedirs(os.path.join(folder, "folder", "ledger.jsonl"))
        return os.path.join(folder, "folder", "ledger.jsonl")
    if where == "a link in its place":
        os.symlink("/dev/null", os.path.join(folder, "link.jsonl"))
        return os.path.join(folder, "link.jsonl")
    if where == "damaged":
        damaged(postbag, postbag.ledger)
    elif where == "its last record unfinished":  # a send killed mid-append: the next writer mends it
        postbag.ready()
        with open(postbag.ledger, "ab") as file:
            file.write(b'{"n": 4, "at": ')
    return postbag.ledger


LEDGERS = {  # where a person's terminal names a ledger, and whether open takes it
    "a fresh home": True,
    "beneath a file": False,
    "in /proc": False,
    "beneath a link to nothing": False,
    "a folder in its place": False,
    "a link in its place": False,
    "damaged": False,
    "its last record unfinished": True,
}


@pytest.mark.parametrize("where", LEDGERS, ids=list(LEDGERS))
def test_doctor_says_ok_to_a_ledger_only_where_open_takes_it(postbag, clients, tmp_path, where):
    taken, path = LEDGERS[where], ledger_at(where, postbag, str(tmp_path))
    env = {**clients, "POSTBAG_LEDGER": path}
    [line] = [line for line in doctor(postbag, env=env) if line.split(":")[0].endswith("the ledger")]
    opened = postbag.run("open", env=env)
    assert (not line.startswith("fix "), opened.returncode == 0) == (taken, taken), (line, opened.stderr)
    if not taken:
        assert not os.path.exists(os.path.join(str(tmp_path), "fresh"))


def test_a_damaged_ledger_names_its_first_bad_line_and_open_afresh_sets_it_aside_whole(postbag, clients):
    damaged(postbag, postbag.ledger)
    before = postbag.ledger_bytes()
    bad = f"ledger line 3 is not a record ({postbag.ledger})"
    assert f"fix   the ledger: {bad}{AFRESH}" in doctor(postbag, env=clients, status=1)
    assert postbag.refused("read", inside="claude") == bad  # in an agent's session, the agents' words
    assert postbag.refused("read") == bad + AFRESH  # in the person's terminal, the person's
    assert postbag.refused("open") == bad + AFRESH
    result = postbag.run("open", "4", "--afresh")
    [aside] = [name for name in os.listdir(os.path.dirname(postbag.ledger)) if ".damaged-" in name]
    aside = os.path.join(os.path.dirname(postbag.ledger), aside)
    assert (result.returncode, result.stdout) == (0, "exchange open: 4 letters\n")
    assert result.stderr.startswith(
        f"postbag: set the damaged ledger aside, whole and private, as {aside} (postbag read --ledger {aside} reads "
        "it)\n"
        f"postbag: created the ledger {postbag.ledger}\n"
        "postbag: neither agent has joined yet"
    )
    with open(aside, "rb") as file:
        assert file.read() == before
    assert os.stat(aside).st_mode & 0o777 == 0o600
    assert [record["kind"] for record in postbag.records()] == ["open"]
    assert postbag.refused("open", "--afresh") == (
        f"the ledger {postbag.ledger} is not damaged, so nothing was set aside: open it without --afresh"
    )


def test_doctor_names_this_directorys_ledger_and_lists_every_ledger_with_whose_it_is_and_how_to_read_it(
    postbag, clients, tmp_path
):
    from test_repository import new_repository

    del postbag.env["POSTBAG_LEDGER"]
    home = tmp_path / "home"
    postbag.ok("join", "claude", inside="claude")  # before: one ledger for the machine
    work, other = new_repository(tmp_path / "work" / "api"), new_repository(tmp_path / "other" / "api")
    postbag.ok("join", "codex", inside="codex", cwd=other)
    lines = postbag.run("doctor", env=clients, cwd=work).stdout.splitlines()
    [ledger] = [line for line in lines if line.startswith(("ok    the ledger:", "fix   the ledger:"))]
    inode = os.stat(os.path.join(work, ".git")).st_ino
    assert ledger == (
        f"ok    the ledger: none yet at {home}/.postbag/api-{inode}.jsonl, the repository {work}'s: the first join or "
        "open makes it, private to you"
    )
    default = home / ".postbag" / "ledger.jsonl"
    listed = [line for line in lines if line.startswith("note  a ledger:")]
    assert len(listed) == 2  # every ledger in ~/.postbag, in the order of their names
    program = r"\S+( -m postbag)?"
    other_ledger = f"{home}/.postbag/api-{os.stat(os.path.join(other, '.git')).st_ino}.jsonl"
    assert re.fullmatch(
        rf"note  a ledger: {re.escape(other_ledger)}: the repository at {re.escape(other)}; last written at "
        rf"{TIMESTAMP}; {program} read --ledger {re.escape(os.path.basename(other_ledger)[:-6])} reads it",
        listed[0],
    )
    assert re.fullmatch(
        rf"note  a ledger: {re.escape(str(default))}: the ledger outside repositories, and of every repository "
        rf"before each had its own; last written at {TIMESTAMP}; {program} read --ledger ledger reads it",
        listed[1],
    )
    outside = postbag.run("doctor", env=clients).stdout.splitlines()  # the terminal outside: the old one is its own
    assert f"ok    the ledger: {default}, yours and private, 1 record" in outside  # one, said so


def test_doctor_lists_a_ledger_that_names_no_repository_or_one_since_gone_or_replaced_and_one_it_cannot_read(
    postbag, clients, tmp_path
):
    from helpers import line
    from test_repository import new_repository

    folder = os.path.join(postbag.env["HOME"], ".postbag")
    os.makedirs(folder, mode=0o700)
    at = "2026-09-08T10:02:11+02:00"
    gone, there = str(tmp_path / "gone"), new_repository(tmp_path / "there")
    there_now = os.stat(os.path.join(there, ".git"))
    ledgers = {
        "old-1.jsonl": line(n=1, at=at, kind="open", limit=3),
        "gone-2.jsonl": line(n=1, at=at, kind="open", limit=3, repository={"path": f"{gone}/.git", "inode": 2}),
        "there-3.jsonl": line(
            n=1,
            at=at,
            kind="open",
            limit=3,
            repository={"path": f"{there}/.git", "device": there_now.st_dev, "inode": there_now.st_ino + 1},
        ),
    }
    for name, text in ledgers.items():
        with open(os.path.join(folder, name), "w") as file:
            file.write(text)
        os.chmod(os.path.join(folder, name), 0o600)
    os.mkdir(os.path.join(folder, "unreadable-4.jsonl"))
    listed = [line for line in doctor(postbag, env=clients) if line.startswith("note  a ledger:")]
    reads = f"{program(postbag)} read --ledger"
    whose = {
        "gone-2": f"the repository that was at {gone}, since moved or removed",
        "old-1": "it names no repository (a ledger from before ledgers named theirs)",
        "there-3": f"the repository that was at {there}, since moved or removed (another stands there now)",
    }
    assert listed[:3] == [
        f"note  a ledger: {folder}/{name}.jsonl: {words}; last written at {at}; {reads} {name} reads it"
        for name, words in whose.items()
    ]
    unreadable = f"{folder}/unreadable-4.jsonl"
    assert listed[3] == (
        f"note  a ledger: {unreadable} cannot be read (the ledger is not a regular file ({unreadable})); {reads} "
        "unreadable-4 shows what it can"
    )
