"""A bag that knows whose it is: a repository's ledger names its repository, by its common
directory's device and inode, and every verb holds it to that; a letter goes only to the
session joined for its side, working in the ledger's repository; the ledgers' folder is
private, and out of git; a client's own words never show a door field or a credential;
and the person can find and read every ledger."""

import json
import os
import re

import pytest
from helpers import STOP, TIMESTAMP, line
from test_repository import a_worktree, git, new_repository
from written import Claude

THREAD = "019aa8a2-7f52-7d93-9c41-5b1a4f0c6e21"  # a second codex thread


def _unnamed(postbag):
    """The runner with no POSTBAG_LEDGER: each directory finds its own ledger."""
    del postbag.env["POSTBAG_LEDGER"]
    return postbag


def _folder(postbag):
    return os.path.join(postbag.env["HOME"], ".postbag")


def _ledger_of(postbag, repository):
    """The path of `repository`'s ledger, by its common directory's inode."""
    inode = os.stat(os.path.join(repository, ".git")).st_ino
    [found] = [name for name in os.listdir(_folder(postbag)) if name.endswith(f"-{inode}.jsonl")]
    return os.path.join(_folder(postbag), found)


def _records(path):
    with open(path) as file:
        return [json.loads(each) for each in file]


@pytest.mark.shipped
def test_a_repository_moved_while_its_sessions_run_keeps_its_ledger_and_names_no_gone_folder(postbag, tmp_path):
    _unnamed(postbag)
    api = new_repository(tmp_path / "work" / "api")
    postbag.joined(api)
    postbag.open("4", cwd=api)
    moved = str(tmp_path / "work" / "moved")
    os.rename(api, moved)
    sent = postbag.run("send", "codex", "after the move", inside="claude", cwd=moved)
    assert (sent.returncode, sent.stdout) == (0, "letter 4 delivered to codex, 3 left\n"), sent.stderr
    assert postbag.run("read", cwd=moved).stderr == f"postbag: read the ledger of the repository {moved}\n"
    [ledger] = [name for name in os.listdir(_folder(postbag)) if name.endswith(".jsonl")]
    assert ledger.startswith("api-")  # named as it was made, found by its inode
    opened = postbag.run("open", "3", cwd=str(tmp_path))  # a terminal outside: the joins are named, not the gone folder
    assert api + " " not in opened.stderr and f"{api}:" not in opened.stderr
    assert re.search(r"agents joined another ledger \(.*\) from a folder since moved or removed: \S+", opened.stderr)


@pytest.mark.shipped
def test_a_clone_made_anew_at_the_old_path_is_a_new_repository_whose_sessions_join_first(postbag, tmp_path):
    _unnamed(postbag)
    api = new_repository(tmp_path / "api")
    postbag.joined(api)
    postbag.open("4", cwd=api)
    old = str(tmp_path / "api-old")
    os.rename(api, old)
    git("clone", "-q", old, api, cwd=str(tmp_path))
    assert postbag.refused("send", "codex", "for the new clone", inside="claude", cwd=api) == (
        f"no exchange is open in the ledger of the repository {api} (the human runs postbag open there)"
    )
    opened = postbag.run("open", "2", cwd=api)  # the old clone's joins are named, not its folder: another is there now
    assert re.search(r"agents joined another ledger \(.*\) from a folder since moved or removed: ", opened.stderr)
    assert f"cd {api} " not in opened.stderr
    assert postbag.refused("send", "codex", "for the new clone", inside="claude", cwd=api) == (
        f"codex has not joined (the ledger of the repository {api})"
    )
    # The old clone's pair goes on with its own ledger and budget, which the new one spent none of.
    kept_on = postbag.ok("send", "codex", "still here", inside="claude", cwd=old)
    assert kept_on.startswith("letter 4 delivered to codex, 3")
    assert len({_ledger_of(postbag, api), _ledger_of(postbag, old)}) == 2


def test_a_ledger_that_holds_another_repositorys_records_is_refused_naming_both_and_the_fix(postbag, tmp_path):
    """Ledger files swapped, or one copied to another's name: every verb refuses, in words
    that name both repositories; the history stays readable, and open --afresh starts anew."""
    _unnamed(postbag)
    first, second = new_repository(tmp_path / "one" / "api"), new_repository(tmp_path / "two" / "api")
    for where in (first, second):
        postbag.ok("join", "codex", inside="codex", cwd=where)
    mine, theirs = _ledger_of(postbag, first), _ledger_of(postbag, second)
    os.rename(mine, mine + ".swap")
    os.rename(theirs, mine)
    os.rename(mine + ".swap", theirs)
    why = (
        f"the ledger {mine} holds another repository's records: they name the repository at {second} (inode "
        f"{os.stat(os.path.join(second, '.git')).st_ino}), not this one at {first} (inode "
        f"{os.stat(os.path.join(first, '.git')).st_ino}); it stays readable with postbag read --ledger {mine}"
    )
    fix = "postbag open --afresh sets it aside, whole, and starts this repository's own, which both agents then join"
    assert postbag.refused("send", "claude", "hi", inside="codex", cwd=first) == why
    assert postbag.refused("read", cwd=first) == f"{why}: {fix}"
    assert postbag.refused("open", cwd=first) == f"{why}: {fix}"
    assert "codex" in postbag.ok("read", "--ledger", mine)  # the history, read where the person names it
    opened = postbag.run("open", "2", "--afresh", cwd=first)
    assert opened.returncode == 0, opened.stderr
    aside = f"postbag: set the ledger of another repository aside, whole and private, as {mine}."
    assert opened.stderr.startswith(aside)


@pytest.mark.shipped
def test_a_ledgers_folder_others_can_write_to_or_own_is_refused_with_the_fix(postbag, tmp_path):
    _unnamed(postbag)
    folder = _folder(postbag)
    os.makedirs(folder)
    os.chmod(folder, 0o777)
    why = f"{folder} can be written by others (mode 777), so a ledger in it could be swapped for another"
    assert postbag.refused("join", "codex", inside="codex") == why
    assert postbag.refused("open") == f"{why}: chmod 700 {folder}"
    doctor = postbag.run("doctor").stdout
    assert f"fix   the ledger: {why}: chmod 700 {folder}\n" in doctor
    assert "private" not in doctor
    os.chmod(folder, 0o700)
    assert postbag.ok("join", "codex", inside="codex") == "codex joined\n"


def test_a_ledgers_folder_that_is_a_file_or_stands_beneath_one_is_refused_with_the_fix(postbag):
    _unnamed(postbag)
    home, folder = postbag.env["HOME"], _folder(postbag)
    os.makedirs(home)
    with open(folder, "w"):
        pass
    not_a_folder = f"{folder} is not a folder, and postbag keeps its ledgers in it"
    assert postbag.refused("read") == f"{not_a_folder}: move it out of the way"
    os.unlink(folder)
    os.rmdir(home)
    with open(home, "w"):  # HOME names a file
        pass
    assert postbag.refused("open") == f"cannot look at {folder} (Not a directory)"


@pytest.mark.process  # a working directory of its own, removed under it
def test_a_command_run_in_a_directory_since_removed_says_where_to_run_it_again(postbag, tmp_path):
    """Which repository's ledger a shell whose directory was removed meant cannot be told:
    the command says so, to the person in their words, to an agent in its own. (Coverage
    cannot measure a process without a working directory: in an agent's session, the
    command runs in this one, given none.)"""
    import io
    import subprocess
    import sys

    from postbag.cli import main

    _unnamed(postbag)
    gone = tmp_path / "gone"
    gone.mkdir()
    removes_it = "import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); os.execv(sys.argv[2], sys.argv[2:])"
    in_it = [sys.executable, "-S", "-c", removes_it, str(gone), *postbag.command, "read"]
    result = subprocess.run(in_it, env=postbag.environment(), capture_output=True, text=True, check=False)
    why = "the directory this runs in is gone, so the repository whose ledger it uses cannot be told"
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        f"postbag: {why}: run it again from the repository's folder\n",
    )
    postbag.cwd = None
    stderr = io.StringIO()
    assert main(["read"], here=postbag.place("claude", streams=(None, io.StringIO(), stderr))) == 1
    assert stderr.getvalue() == f"postbag: {why}{STOP}"


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a folder to another user")
def test_a_ledgers_folder_of_another_users_is_refused(postbag, tmp_path):
    _unnamed(postbag)
    os.makedirs(_folder(postbag), mode=0o700)
    os.chown(_folder(postbag), 4242, 4242)
    assert postbag.refused("read") == (
        f"{_folder(postbag)} belongs to another user (uid 4242), so the ledgers in it are not yours: move it out of "
        "the way, and postbag makes it again, yours and private"
    )


@pytest.mark.shipped
def test_a_home_kept_in_git_never_takes_a_ledger_in_and_doctor_names_one_that_is_tracked(postbag, tmp_path):
    _unnamed(postbag)
    home = postbag.env["HOME"]
    os.makedirs(home)
    git("init", "-q", cwd=home)
    postbag.ok("join", "codex", inside="codex", cwd=str(tmp_path))
    with open(os.path.join(_folder(postbag), ".gitignore"), "rb") as file:
        assert file.read() == b"*\n"
    git("add", "-A", cwd=home)
    assert git("status", "--porcelain", cwd=home) == ""  # nothing of ~/.postbag staged
    git("add", "-f", ".postbag/ledger.jsonl", cwd=home)  # forced in, as a person may have before
    assert (
        f"fix   the ledgers' folder: git tracks ledgers in {_folder(postbag)}, which hold a live session token: git -C "
        f"{_folder(postbag)} rm --cached ledger.jsonl, then commit that (its .gitignore keeps new ones out)\n"
    ) in postbag.run("doctor").stdout


@pytest.mark.shipped
def test_a_relative_home_is_refused_and_leaves_no_folder_behind(postbag, tmp_path):
    _unnamed(postbag)
    before = sorted(os.listdir(tmp_path))
    for args, inside in [(("join", "codex"), "codex"), (("open",), None), (("read",), None)]:
        assert postbag.refused(*args, inside=inside, env={"HOME": "home"}, cwd=str(tmp_path)).startswith(
            "HOME is a relative path (home), and postbag keeps its ledgers in it: set HOME to your home folder's "
            "absolute path"
        )
    assert sorted(os.listdir(tmp_path)) == before


@pytest.mark.shipped
def test_a_second_codex_that_takes_the_door_leaves_the_first_unable_to_spend_the_budget(postbag, tmp_path):
    main, worktree = a_worktree(postbag, tmp_path)  # test_repository.py has what the join says
    postbag.joined(main)
    postbag.open("4", cwd=main)
    second = {"CODEX_THREAD_ID": THREAD}
    assert postbag.run("join", "codex", inside="codex", env=second, cwd=worktree).stdout == "codex joined\n"
    refused = postbag.refused("send", "claude", "from the first", inside="codex", cwd=main)
    assert re.fullmatch(
        rf"this codex session is not the one joined for codex in the ledger of the repository {re.escape(main)}: the "
        rf"codex session that joined at {TIMESTAMP} from {re.escape(worktree)} is, and letters to codex reach it; to "
        r"take the door, this session joins \(postbag join codex, or the join tool\), and letters to codex then come "
        r"here",
        refused,
    )
    assert [record["kind"] for record in _records(_ledger_of(postbag, main))].count("letter") == 0
    assert postbag.ok("send", "claude", "from the second", inside="codex", env=second, cwd=worktree).startswith(
        "letter 5 delivered to claude, 3 left"
    )


def test_after_an_upgrade_the_old_ledgers_joins_get_no_letter_from_outside_their_repository(postbag, inbox, tmp_path):
    """The default ledger still holds the open exchange and joins of before ledgers were per
    repository: a session outside any repository that joins it and writes reaches none of
    the sessions that joined it from inside a repository."""
    _unnamed(postbag)
    api = new_repository(tmp_path / "work" / "api")
    default = os.path.join(_folder(postbag), "ledger.jsonl")
    old_join = {"n": 1, "at": "2026-12-01T10:00:00+01:00", "kind": "join", "peer": "claude", **inbox.door()}
    os.makedirs(_folder(postbag), mode=0o700)
    with open(default, "w") as file:
        file.write(line(**old_join) + line(n=2, at="2026-12-01T10:00:01+01:00", kind="open", limit=12))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    postbag.ok("join", "codex", inside="codex", cwd=str(scratch))
    assert postbag.refused("send", "claude", "hi", inside="codex", cwd=str(scratch)) == (
        "claude's join does not show where its session works (a join from before each repository had a ledger of its "
        "own names no folder, or its folder is gone), so no letter goes to it: claude joins again from its session"
    )
    Claude(postbag.env["HOME"], inbox.session).runs(api)  # its client's own records show it works in the repository
    assert postbag.refused("send", "claude", "hi", inside="codex", cwd=str(scratch)) == (
        f"claude's session works in the repository {api}, not in the ledger outside repositories, {default}, so no "
        "letter from here goes to it: a claude session that works here joins, and letters reach it"
    )
    assert inbox.received == []
    doctor = postbag.run("doctor", cwd=str(scratch)).stdout
    assert (
        f"note  the default ledger: {default} holds an open exchange that claude joined from the repository {api}, "
        "before each repository had a ledger of its own"
    ) not in doctor  # the old join names no folder: doctor names what its records show
    with open(default, "a") as file:
        file.write(line(n=4, at="2026-12-01T10:00:02+01:00", kind="join", peer="claude", cwd=api, **inbox.door()))
    assert (
        f"note  the default ledger: {default} holds an open exchange that claude joined from the repository {api}, "
        "before each repository had a ledger of its own, and no letter goes to it from there now: to go on, let both "
        f"agents join again in {api}, then open an exchange there (cd {api} && postbag open)\n"
    ) in postbag.run("doctor", cwd=str(scratch)).stdout


@pytest.mark.shipped
def test_a_folder_whose_name_is_not_utf8_joins_in_words_every_reader_takes(postbag, tmp_path):
    _unnamed(postbag)
    odd = os.path.join(os.fsencode(tmp_path), b"caf\xe9")
    os.mkdir(odd)
    joined = postbag.run("join", "codex", inside="codex", cwd=os.fsdecode(odd))
    assert (joined.returncode, joined.stdout) == (0, "codex joined\n"), joined.stderr
    shown = postbag.ok("read", "--json")
    assert json.loads(shown)["cwd"] == f"{tmp_path}/caf\\xe9"
    assert postbag.ok("join", "claude", inside="claude") == "claude joined\n"  # the ledger reads on


def test_a_session_file_folder_with_a_nul_or_longer_than_a_path_is_not_taken(postbag, inbox, tmp_path):
    _unnamed(postbag)
    home = postbag.env["HOME"]
    os.makedirs(home, exist_ok=True)
    for folder in ("/work/\x00/api", "/" + "x" * 500_000):
        Claude(home, inbox.session).runs(folder)
        server = postbag.mcp(inside="claude", cwd=str(tmp_path))
        try:
            server.handshake()
            said, refused = server.tool("join")
            status, _ = server.tool("status")
        finally:
            server.close()
        again = "claude was joined already: letters to claude reach this session"
        assert not refused and said.splitlines()[0] in ("claude joined", again)
        assert len(status) < 2000 and "xxxxxxxxxx" not in status


@pytest.mark.shipped
def test_codexs_own_words_are_shown_with_every_door_field_and_credential_hidden(postbag, codex, inbox):
    postbag.ready()
    said = f"error: at {inbox.path} with {inbox.token} for thread {codex.thread}: sk-live4f9a8b7c6d5e4f3 rejected"
    codex.behave(exit=1, say=said)
    refused = postbag.refused("send", "codex", "hi", inside="claude")
    for secret in (inbox.path, inbox.token, codex.thread, "sk-live4f9a8b7c6d5e4f3"):
        assert secret not in refused
    assert refused.startswith("codex's door did not answer (codex queue exited 1, saying \"error: at <hidden> with ")


@pytest.mark.shipped
def test_any_ledger_is_read_by_its_name_or_path_and_open_and_close_name_the_repository(postbag, tmp_path):
    _unnamed(postbag)
    api = new_repository(tmp_path / "api")
    postbag.ok("join", "codex", inside="codex", cwd=api)
    opened = postbag.run("open", "2", cwd=api)
    assert f"postbag: wrote to the ledger of the repository {api}\n" in opened.stderr
    closed = postbag.run("close", cwd=api)
    assert (closed.stdout, closed.stderr) == (
        "exchange closed: 0 of 2 letters sent\n",
        f"postbag: wrote to the ledger of the repository {api}\n",
    )
    path = _ledger_of(postbag, api)
    name = os.path.basename(path).removesuffix(".jsonl")
    elsewhere = str(tmp_path)
    assert postbag.ok("read", "--ledger", name, cwd=elsewhere) == postbag.ok("read", cwd=api)
    assert postbag.ok("read", "--ledger", path, cwd=elsewhere) == postbag.ok("read", "--ledger", f"{name}.jsonl")
    assert postbag.run("receipts", "--ledger", name, cwd=elsewhere).stderr == "postbag: no letter has been sent\n"
    missing = postbag.run("read", "--ledger", "nothing-here", cwd=elsewhere)
    assert missing.stderr == f"postbag: there is no ledger at {_folder(postbag)}/nothing-here.jsonl yet\n"


def test_a_record_postbags_reader_would_refuse_is_never_appended(tmp_path):
    from postbag.ledger import Ledger
    from postbag.refusal import Refusal
    from postbag.times import Clock

    path = str(tmp_path / "ledger.jsonl")
    with Ledger(path, write=True, create=True, clock=Clock()) as bag:
        with pytest.raises(Refusal, match="a join record would not read back as one, so nothing was written"):
            bag.append("join", peer="codex", thread="019aa8a2\ud800")
        bag.append("open", limit=3)
    assert [record["kind"] for record in _records(path)] == ["open"]


def test_an_mcp_server_keeps_its_sessions_ledger_when_the_repository_is_moved(postbag, inbox, codex, tmp_path):
    """A Claude server whose session file still names the old folder, and a Codex server
    started there, keep the one ledger after `mv`; neither falls to the default one."""
    _unnamed(postbag)
    home = postbag.env["HOME"]
    os.makedirs(home, exist_ok=True)
    api = new_repository(tmp_path / "api")
    Claude(home, inbox.session).runs(api)
    claude_server = postbag.mcp(inside="claude", cwd=home)  # as Claude Code's desktop app starts it
    codex_server = postbag.mcp(cwd=api)  # as Codex starts it, in the thread's folder
    meta = {"threadId": codex.thread}
    try:
        claude_server.handshake()
        codex_server.handshake()
        said, refused = claude_server.tool("join")
        assert (said.splitlines()[0], refused) == ("claude joined", False)
        assert codex_server.tool("join", meta=meta) == ("codex joined", False)
        postbag.open("3", cwd=api)
        moved = str(tmp_path / "moved")
        os.rename(api, moved)
        said, refused = claude_server.tool("send", {"text": "after the move"})
        assert (said.splitlines()[0], refused) == ("letter 4 delivered to codex, 2 left", False)
        said, refused = codex_server.tool("send", {"text": "and back"}, meta=meta)
        assert (said.splitlines()[0], refused) == ("letter 5 delivered to claude, 1 left", False)
    finally:
        claude_server.close()
        codex_server.close()
    [ledger] = [name for name in os.listdir(_folder(postbag)) if name.endswith(".jsonl")]
    assert ledger.startswith("api-")  # one ledger, the repository's: none outside repositories
    assert [r["kind"] for r in _records(os.path.join(_folder(postbag), ledger))] == [
        "join",
        "join",
        "open",
        "letter",
        "letter",
    ]
    assert STOP not in said


@pytest.mark.shipped
def test_every_path_in_words_is_cut_short_in_its_middle(postbag, tmp_path):
    deep = str(tmp_path / ("x" * 120) / ("y" * 120) / "ledger.jsonl")
    said = postbag.run("read", env={"POSTBAG_LEDGER": deep}).stderr
    assert said == f"postbag: there is no ledger at {deep[:100]}…{deep[-99:]} yet\n"  # a word's first and last
    os.makedirs(deep)  # a folder where the ledger should be: refused, and named
    refused = postbag.refused("join", "codex", inside="codex", env={"POSTBAG_LEDGER": deep})
    assert deep not in refused and refused.startswith(f"the ledger is not a regular file ({deep[:99]}…")
    assert refused.endswith("yyy/ledger.jsonl)")
