"""A ledger per repository: every directory of one git repository, its worktrees among
them, shares one ledger, kept outside every work tree; two repositories never share one;
a directory outside any repository shares the default; POSTBAG_LEDGER, where set, decides.
git itself is the judge of which directories share a repository."""

import json
import os
import re
import subprocess
import threading

import pytest
from helpers import TIMESTAMP
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from written import Claude

from postbag import repository
from postbag.here import Here
from postbag.ledger import locate
from postbag.refusal import Refusal

GIT = ["git", "-c", "protocol.file.allow=always", "-c", "user.name=t", "-c", "user.email=t@t"]
GIT += ["-c", "init.defaultBranch=main"]


def git(*args, cwd):
    return subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def new_repository(path):
    os.makedirs(path, exist_ok=True)
    git("init", "-q", cwd=path)
    git("commit", "-q", "--allow-empty", "-m", "start", cwd=path)
    return str(path)


def common_directory(folder):
    """What git says is the common directory of the repository `folder` lies in, or None."""
    found = subprocess.run(
        [*GIT, "rev-parse", "--path-format=absolute", "--git-common-dir"], cwd=folder, capture_output=True, text=True
    )
    return os.path.realpath(found.stdout.strip()) if found.returncode == 0 else None


def ledger_in(folder, home):
    return locate(Here({"HOME": str(home)}, str(folder))).path


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """Folders of every kind git tells apart: a repository and a subfolder of it, its
    worktree, a submodule, a bare repository and a folder inside a `.git`, a link into a
    repository, two repositories of the same name, names with spaces and non-ASCII
    characters, an empty `.git` folder git passes over, and folders outside any."""
    root = tmp_path_factory.mktemp("tree")
    work = new_repository(root / "work" / "api")
    other = new_repository(root / "other" / "api")  # the same folder name
    spaced = new_repository(root / "with space" / "été ünï")
    os.makedirs(os.path.join(work, "src", "deep"))
    git("worktree", "add", "-q", str(root / "work" / "api-wt"), cwd=work)
    library = new_repository(root / "library")
    git("submodule", "add", "-q", library, "lib", cwd=work)
    os.makedirs(os.path.join(work, "lib", "inner"))
    git("init", "-q", "--bare", str(root / "served" / "api.git"), cwd=root)
    os.symlink(os.path.join(work, "src"), root / "link-to-src")
    os.makedirs(root / "not-a-repo" / ".git")  # empty: git looks further up, and finds none
    os.makedirs(root / "plain" / "nested")
    folders = [
        work,
        os.path.join(work, "src", "deep"),
        str(root / "work" / "api-wt"),
        os.path.join(work, "lib"),
        os.path.join(work, "lib", "inner"),
        os.path.join(work, ".git", "refs"),
        str(root / "served" / "api.git"),
        str(root / "link-to-src"),
        other,
        spaced,
        str(root / "not-a-repo"),
        str(root / "plain" / "nested"),
        str(root),
    ]
    return root, folders


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_two_directories_share_a_ledger_exactly_when_git_finds_them_one_common_directory(tree, tmp_path, data):
    _, folders = tree
    first, second = data.draw(st.sampled_from(folders)), data.draw(st.sampled_from(folders))
    same_repository = common_directory(first) == common_directory(second)
    assert (ledger_in(first, tmp_path) == ledger_in(second, tmp_path)) == same_repository


def test_every_ledger_lies_outside_every_work_tree_named_for_its_repository(tree, tmp_path):
    root, folders = tree
    home = tmp_path / "home"
    ledgers = {folder: ledger_in(folder, home) for folder in folders}
    assert all(os.path.dirname(path) == str(home / ".postbag") for path in ledgers.values())
    work, wt, other = folders[0], folders[2], folders[8]
    assert re.fullmatch(r"api-[0-9a-f]{8}\.jsonl", os.path.basename(ledgers[work]))
    assert ledgers[wt] == ledgers[work] != ledgers[other]  # a worktree shares; a namesake does not
    assert os.path.basename(ledgers[other]).startswith("api-")
    assert re.fullmatch(r"lib-[0-9a-f]{8}\.jsonl", os.path.basename(ledgers[folders[3]]))  # a submodule's own
    assert re.fullmatch(r"api-[0-9a-f]{8}\.jsonl", os.path.basename(ledgers[folders[6]]))  # api.git, bare
    assert re.fullmatch(r"été ünï-[0-9a-f]{8}\.jsonl", os.path.basename(ledgers[folders[9]]))
    assert ledgers[str(root / "plain" / "nested")] == str(home / ".postbag" / "ledger.jsonl")  # outside any
    assert ledgers[str(root / "link-to-src")] == ledgers[work]


def test_a_git_file_that_points_nowhere_or_cannot_be_read_is_refused_in_words(tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text("gitdir: /nowhere/.git/worktrees/gone\n")
    with pytest.raises(Refusal) as refused:
        repository.containing(str(broken))
    assert str(refused.value) == (
        f"the repository cannot be told from {broken}/.git (it names /nowhere/.git/worktrees/gone, which is not a "
        "repository's folder)"
    )
    assert refused.value.fix == "mend it (git worktree repair, for a worktree), or name a ledger with POSTBAG_LEDGER"
    (broken / ".git").write_text("not what git writes\n")
    with pytest.raises(Refusal, match=r"\(it is a file, and does not say gitdir: PATH\)"):
        repository.containing(str(broken))
    (broken / ".git").write_bytes(b"gitdir: " + b"x" * 5000)
    with pytest.raises(Refusal, match=r"\(it is longer than a path\)"):
        repository.containing(str(broken))
    os.remove(broken / ".git")
    os.mkfifo(broken / ".git")  # read without blocking: a pipe must not hang a command
    done = []
    reader = threading.Thread(target=lambda: done.append(_refusal_of(str(broken))), daemon=True)
    reader.start()
    reader.join(10)
    assert done == ["it is neither a folder nor a file"]
    os.remove(broken / ".git")
    os.symlink(broken / ".git", broken / ".git")  # a link to itself
    with pytest.raises(Refusal, match=r"\(Too many levels of symbolic links\)"):
        repository.containing(str(broken))


def _refusal_of(folder):
    try:
        repository.containing(folder)
    except Refusal as refusal:
        return re.search(r"\((.*)\)$", str(refusal))[1]
    return None


# What a person and the agents meet, on the command line.


def _unnamed(postbag):
    """The runner with no POSTBAG_LEDGER: each directory finds its own ledger."""
    del postbag.env["POSTBAG_LEDGER"]
    return postbag


@pytest.mark.shipped
def test_two_repositories_pairs_never_cross_a_letter_a_join_or_a_budget(postbag, inbox, codex, tmp_path):
    _unnamed(postbag)
    first, second = new_repository(tmp_path / "work" / "api"), new_repository(tmp_path / "other" / "api")
    for where in (first, second):
        postbag.ok("join", "claude", inside="claude", cwd=where)
        postbag.ok("join", "codex", inside="codex", cwd=where)
    assert postbag.open("3", cwd=first) == "exchange open: 3 letters\n"
    assert postbag.open("5", cwd=second) == "exchange open: 5 letters\n"  # replaces nothing: another ledger
    assert postbag.ok("send", "codex", "for api at work", inside="claude", cwd=first).startswith(
        "letter 4 delivered to codex, 2 left"
    )
    assert postbag.ok("send", "codex", "for the other api", inside="claude", cwd=second).startswith(
        "letter 4 delivered to codex, 4 left"
    )
    shown = {where: postbag.ok("read", cwd=where) for where in (first, second)}
    assert "for api at work" in shown[first] and "for the other api" not in shown[first]
    assert "for the other api" in shown[second] and "for api at work" not in shown[second]
    outside = postbag.run("read", cwd=str(tmp_path))
    assert outside.stdout == ""
    assert outside.stderr == f"postbag: there is no ledger at {tmp_path / 'home' / '.postbag' / 'ledger.jsonl'} yet\n"
    for where in (first, second):  # the ledger holds a session token: never where a commit could take it
        assert git("status", "--porcelain", "--ignored", cwd=where) == ""


@pytest.mark.shipped
def test_a_worktree_joins_its_repositorys_ledger_and_a_join_that_takes_letters_says_from_whom(postbag, tmp_path):
    _unnamed(postbag)
    main = new_repository(tmp_path / "api")
    worktree = str(tmp_path / "api-feature")
    git("worktree", "add", "-q", worktree, cwd=main)
    postbag.ok("join", "codex", inside="codex", cwd=main)
    joined = postbag.run("join", "codex", inside="codex", env={"CODEX_THREAD_ID": THREAD}, cwd=worktree)
    assert joined.stdout == "codex joined\n"
    assert re.fullmatch(
        rf"postbag: this replaces the codex session that joined at {TIMESTAMP} from {re.escape(main)}: "
        r"letters to codex now come here\n",
        joined.stderr,
    )
    again = postbag.run("join", "codex", inside="codex", env={"CODEX_THREAD_ID": THREAD}, cwd=worktree)
    assert (again.stdout, again.stderr) == ("codex joined\n", "")  # the same session: nothing taken
    # The words name the repository by its main work tree, from any of its worktrees.
    read = postbag.run("read", cwd=worktree)
    assert read.stderr == f"postbag: read the ledger of the repository {os.path.realpath(main)}\n"


THREAD = "019aa8a2-7f52-7d93-9c41-5b1a4f0c6e21"


@pytest.mark.shipped
def test_where_nobody_joined_open_names_the_ledgers_agents_joined_and_how_to_open_there(postbag, tmp_path):
    _unnamed(postbag)
    api = new_repository(tmp_path / "work" / "api")
    postbag.ok("join", "claude", inside="claude", cwd=api)
    postbag.ok("join", "codex", inside="codex", cwd=api)
    opened = postbag.run("open", "6", cwd=str(tmp_path))  # a terminal outside the repository
    assert opened.returncode == 0
    said = opened.stderr.splitlines()
    assert said[1] == (
        "postbag: neither agent has joined yet: no letter can reach them until each joins from its own session"
    )
    assert re.fullmatch(
        rf"postbag: agents joined another ledger \(claude at {TIMESTAMP}, codex at {TIMESTAMP}\), the latest from "
        rf"{re.escape(api)}: to open an exchange there, cd {re.escape(api)} && \S+( -m postbag)? open 6",
        said[2],
    ), said


@pytest.mark.shipped
def test_an_agent_with_no_exchange_open_is_told_which_repository_and_what_the_human_runs(postbag, tmp_path):
    _unnamed(postbag)
    api = new_repository(tmp_path / "api")
    postbag.ok("join", "codex", inside="codex", cwd=api)
    assert postbag.refused("send", "codex", "hi", inside="claude", cwd=api) == (
        f"no exchange is open in the ledger of the repository {api} (the human runs postbag open there)"
    )
    read = postbag.run("read", cwd=api)
    assert read.stderr == f"postbag: read the ledger of the repository {api}\n"


def test_the_variable_still_decides_inside_a_repository(postbag, tmp_path):
    api = new_repository(tmp_path / "api")
    postbag.ready()
    assert postbag.ok("send", "codex", "named", inside="claude", cwd=api).startswith("letter 4 delivered")
    assert json.loads(postbag.ledger_bytes().splitlines()[-1])["body"] == "named"
    assert not os.path.exists(tmp_path / "home" / ".postbag")


@pytest.mark.shipped
def test_a_broken_git_file_is_refused_with_the_fix_by_every_verb_never_a_traceback(postbag, tmp_path):
    _unnamed(postbag)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text("gitdir: ../gone\n")
    why = (
        f"the repository cannot be told from {broken}/.git (it names {broken}/../gone, which is not a repository's "
        "folder)"
    )
    mend = f"{why}: mend it (git worktree repair, for a worktree), or name a ledger with POSTBAG_LEDGER"
    assert postbag.refused("read", cwd=str(broken), inside="codex") == why
    assert postbag.refused("read", cwd=str(broken)) == postbag.refused("open", cwd=str(broken)) == mend
    named = postbag.run("read", cwd=str(broken), env={"POSTBAG_LEDGER": str(tmp_path / "named.jsonl")})
    assert (named.returncode, named.stderr) == (0, f"postbag: there is no ledger at {tmp_path / 'named.jsonl'} yet\n")


@pytest.mark.shipped
def test_an_mcp_server_started_in_home_finds_the_sessions_repository_from_its_session_file(postbag, inbox, tmp_path):
    """Claude Code's desktop app starts its servers in $HOME: the session file names where
    the session works, and the server's calls use that repository's ledger."""
    _unnamed(postbag)
    api = new_repository(tmp_path / "api")
    home = _joined_through_a_server(postbag, inbox, session_folder=api, started_in=postbag.env["HOME"])
    [ledger] = [name for name in os.listdir(os.path.join(home, ".postbag")) if name.startswith("api-")]
    with open(os.path.join(home, ".postbag", ledger)) as file:
        [join] = [json.loads(line) for line in file]
    assert (join["peer"], join["cwd"], join["via"]) == ("claude", api, "mcp")


def test_a_session_file_that_names_a_relative_folder_is_not_taken_for_the_sessions(postbag, inbox, tmp_path):
    """Claude Code's file is untrusted: a relative `cwd` would be read from the server's own
    folder, and name a repository the session never worked in. The server's own serves."""
    _unnamed(postbag)
    outer = new_repository(tmp_path / "outer")
    new_repository(tmp_path / "outer" / "api")
    home = _joined_through_a_server(postbag, inbox, session_folder="api", started_in=outer)
    assert [name.split("-")[0] for name in os.listdir(os.path.join(home, ".postbag"))] == ["outer"]


def _joined_through_a_server(postbag, inbox, *, session_folder, started_in):
    """Join claude through an MCP server started in `started_in`, for a session whose file
    names `session_folder` as its own; the HOME it ran in."""
    home = postbag.env["HOME"]
    os.makedirs(home, exist_ok=True)
    Claude(home, inbox.session).runs(session_folder)
    server = postbag.mcp(inside="claude", cwd=started_in)
    try:
        server.handshake()
        said, refused = server.tool("join")
    finally:
        server.close()
    assert not refused, said
    return home
