"""A ledger per repository: every directory of one git repository, its worktrees among
them, shares one ledger, kept outside every work tree; two repositories never share one;
a directory outside any repository shares the default; POSTBAG_LEDGER, where set, decides.
git itself is the judge of which directories share a repository."""

import json
import os
import re
import shutil
import subprocess
import sys
import threading

import pytest
from fakes import terminal_environment
from helpers import SRC, TIMESTAMP, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from written import Claude

from postbag import repository
from postbag.here import Here
from postbag.location import locate
from postbag.refusal import Refusal

GIT = ["git", "-c", "protocol.file.allow=always", "-c", "user.name=t", "-c", "user.email=t@t"]
GIT += ["-c", "init.defaultBranch=main"]


def git(*args, cwd):
    """git, as the suite's children have it: a person's own configuration (signed commits,
    say) and the variables of a hook the suite runs under reach none of it."""
    env = terminal_environment(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run([*GIT, *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def new_repository(path):
    os.makedirs(path, exist_ok=True)
    git("init", "-q", cwd=path)
    git("commit", "-q", "--allow-empty", "-m", "start", cwd=path)
    return str(path)


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


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_two_directories_share_a_ledger_exactly_when_git_finds_them_one_common_directory(tree, tmp_path, data):
    _, folders = tree
    first, second = data.draw(st.sampled_from(folders)), data.draw(st.sampled_from(folders))
    same_repository = common_directory_under(first, {}) == common_directory_under(second, {})
    assert (ledger_in(first, tmp_path) == ledger_in(second, tmp_path)) == same_repository


def test_every_ledger_lies_outside_every_work_tree_named_for_its_repository(tree, tmp_path):
    root, folders = tree
    home = tmp_path / "home"
    ledgers = {folder: ledger_in(folder, home) for folder in folders}
    assert all(os.path.dirname(path) == str(home / ".postbag") for path in ledgers.values())
    work, wt, other = folders[0], folders[2], folders[8]
    assert os.path.basename(ledgers[work]) == f"api-{os.stat(os.path.join(work, '.git')).st_ino}.jsonl"
    assert ledgers[wt] == ledgers[work] != ledgers[other]  # a worktree shares; a namesake does not
    assert os.path.basename(ledgers[other]).startswith("api-")
    assert re.fullmatch(r"lib-\d+\.jsonl", os.path.basename(ledgers[folders[3]]))  # a submodule's own
    assert re.fullmatch(r"api-\d+\.jsonl", os.path.basename(ledgers[folders[6]]))  # api.git, bare
    assert re.fullmatch(r"été ünï-\d+\.jsonl", os.path.basename(ledgers[folders[9]]))
    assert ledgers[str(root / "plain" / "nested")] == str(home / ".postbag" / "ledger.jsonl")  # outside any
    assert ledgers[str(root / "link-to-src")] == ledgers[work]


def test_a_git_file_that_points_nowhere_or_cannot_be_read_is_refused_in_words(tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text("gitdir: /nowhere/.git/worktrees/gone\n")
    with pytest.raises(Refusal) as refused:
        repository.containing(str(broken), Here({}, "/"))
    assert str(refused.value) == (
        f"the repository cannot be told from {broken}/.git (it names /nowhere/.git/worktrees/gone, which is not a "
        "repository's folder)"
    )
    assert refused.value.fix == "mend it (git worktree repair, for a worktree), or name a ledger with POSTBAG_LEDGER"
    (broken / ".git").write_text("not what git writes\n")
    with pytest.raises(Refusal, match=r"\(it is a file, and does not say gitdir: PATH\)"):
        repository.containing(str(broken), Here({}, "/"))
    (broken / ".git").write_bytes(b"gitdir: " + b"x" * 5000)
    with pytest.raises(Refusal, match=r"\(it is longer than a path\)"):
        repository.containing(str(broken), Here({}, "/"))


def common_directory_under(folder, env):
    """What git says is the common directory of the repository `folder` lies in, with the
    variables `env` over a plain environment, or None."""
    found = subprocess.run(
        [*GIT, "rev-parse", "--path-format=absolute", "--git-common-dir"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"], "HOME": str(folder), **env},
        timeout=10,
    )
    return os.path.realpath(found.stdout.strip()) if found.returncode == 0 else None


def found_by_postbag(folder, env=None):
    """The common directory postbag finds for `folder`, on a thread that must end within 10 s."""
    done = []

    def look():
        try:
            found = repository.containing(str(folder), Here(env or {}, "/"))
            done.append(None if found is None else found.common)
        except Refusal as refusal:
            done.append(refusal)

    reader = threading.Thread(target=look, daemon=True)
    reader.start()
    reader.join(10)
    assert done, "postbag waited on what it reads"
    return done[0]


def _socket_at(path):
    import socket

    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(path))
    listening.close()


def _with_head(dot_git, make_head):
    """A `.git` folder with objects and refs, its HEAD made by `make_head`."""
    os.makedirs(dot_git / "objects")
    os.mkdir(dot_git / "refs")
    make_head(dot_git / "HEAD")


@pytest.mark.parametrize(
    "shape",
    [
        os.mkfifo,
        _socket_at,
        lambda dot_git: os.symlink(dot_git, dot_git),  # a link to itself
        lambda dot_git: _with_head(dot_git, lambda head: head.write_text("junk\n")),
        lambda dot_git: _with_head(dot_git, os.mkdir),
        os.makedirs,  # empty
    ],
    ids=["a pipe", "a socket", "a link that loops", "a HEAD that is junk", "a HEAD that is a folder", "empty"],
)
def test_a_git_shape_git_passes_over_postbag_passes_over_too(tmp_path, shape):
    outer = new_repository(tmp_path / "outer")
    inner = tmp_path / "outer" / "inner"
    inner.mkdir()
    shape(inner / ".git")
    assert common_directory_under(inner, {}) == os.path.realpath(os.path.join(outer, ".git"))
    assert found_by_postbag(inner) == os.path.realpath(os.path.join(outer, ".git"))


@pytest.mark.parametrize("shape", ["a pipe", "a link that loops", "empty"])
def test_a_commondir_postbag_cannot_read_is_refused_without_waiting(tmp_path, shape):
    main = new_repository(tmp_path / "api")
    worktree = tmp_path / "api-wt"
    git("worktree", "add", "-q", str(worktree), cwd=main)
    commondir = os.path.join(main, ".git", "worktrees", "api-wt", "commondir")
    os.remove(commondir)
    if shape == "a pipe":
        os.mkfifo(commondir)
    elif shape == "a link that loops":
        os.symlink(commondir, commondir)
    else:
        open(commondir, "w").close()
    refused = found_by_postbag(worktree)
    assert isinstance(refused, Refusal)
    assert str(refused).startswith(f"the repository cannot be told from {commondir} (")


def test_git_s_variables_decide_as_they_decide_for_git(tmp_path):
    """GIT_DIR names the repository; GIT_CEILING_DIRECTORIES stops the walk below a folder
    it names (the working directory itself is looked at all the same); each as git says."""
    outer = new_repository(tmp_path / "outer")
    other = new_repository(tmp_path / "other")
    deep = tmp_path / "outer" / "a" / "b"
    deep.mkdir(parents=True)
    cases = [
        {},
        {"GIT_DIR": os.path.join(other, ".git")},
        {"GIT_DIR": "../../../other/.git"},
        {"GIT_CEILING_DIRECTORIES": str(tmp_path / "outer" / "a")},
        {"GIT_CEILING_DIRECTORIES": f"/nowhere:{tmp_path / 'outer'}"},
        {"GIT_CEILING_DIRECTORIES": str(deep)},  # the working directory itself: still looked at
        {"GIT_CEILING_DIRECTORIES": "relative/ignored"},
    ]
    for env in cases:
        assert found_by_postbag(deep, env) == common_directory_under(deep, env), env
    assert found_by_postbag(outer, {"GIT_CEILING_DIRECTORIES": str(tmp_path)}) == os.path.join(outer, ".git")
    refused = found_by_postbag(deep, {"GIT_DIR": str(tmp_path / "nowhere")})
    assert str(refused) == f"GIT_DIR names {tmp_path / 'nowhere'}, which is not a repository's folder"


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="mounting a file system needs root")
def test_the_walk_stops_at_another_file_system_unless_git_is_told_to_cross(tmp_path):
    """A folder on a file system mounted inside a repository lies in no repository, as git
    sees it, unless GIT_DISCOVERY_ACROSS_FILESYSTEM says to look across."""
    outer = new_repository(tmp_path / "outer")
    mounted = tmp_path / "outer" / "mounted"
    mounted.mkdir()
    probe = (
        "import json, os, subprocess, sys; sys.path.insert(0, sys.argv[1]); from postbag import repository; "
        "from postbag.here import Here; "
        "found = lambda env: getattr(repository.containing(sys.argv[2], Here(env, '/')), 'common', None); "
        "gits = lambda env: subprocess.run(['git', 'rev-parse', '--path-format=absolute', '--git-common-dir'], "
        "cwd=sys.argv[2], capture_output=True, text=True, env={'PATH': os.environ['PATH'], **env})"
        ".stdout.strip() or None; "
        "across = {'GIT_DISCOVERY_ACROSS_FILESYSTEM': 'true'}; "
        "print(json.dumps([found({}), gits({}), found(across), gits(across)]))"
    )
    script = f'mount -t tmpfs none {mounted} && exec {sys.executable} -c "{probe}" {SRC} {mounted}'
    done = subprocess.run(["unshare", "--mount", "sh", "-c", script], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"no file system could be mounted here: {done.stderr.strip()[:200]}")
    mine, gits, mine_across, gits_across = json.loads(done.stdout)
    assert mine is None and gits is None
    assert mine_across == os.path.realpath(gits_across) == os.path.join(outer, ".git")


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a folder to another user")
def test_another_users_folder_that_names_your_repository_is_refused_as_git_refuses_it(tmp_path):
    main = new_repository(tmp_path / "api")
    theirs = tmp_path / "theirs"
    git("worktree", "add", "-q", str(theirs), cwd=main)
    os.chown(theirs, 4242, 4242)
    os.chown(theirs / ".git", 4242, 4242)
    assert common_directory_under(theirs, {}) is None  # git: "detected dubious ownership"
    refused = found_by_postbag(theirs)
    assert str(refused) == (
        f"the repository at {theirs}/.git belongs to another user (uid 4242), and git refuses such a repository "
        "unless its safe.directory setting names it"
    )
    assert refused.fix == "postbag refuses it: work in a repository of your own, or name a ledger with POSTBAG_LEDGER"
    assert found_by_postbag(theirs, {"SUDO_UID": "4242"}) == os.path.join(main, ".git")  # as git reads sudo


def _refusal_of(folder):
    try:
        repository.containing(folder, Here({}, "/"))
    except Refusal as refusal:
        return re.search(r"\((.*)\)$", str(refusal))[1]
    return None


# What a person and the agents meet, on the command line.


def _unnamed(postbag):
    """The runner with no POSTBAG_LEDGER: each directory finds its own ledger."""
    del postbag.env["POSTBAG_LEDGER"]
    return postbag


def a_worktree(postbag, tmp_path):
    """A repository, api, and a worktree of it beside it, api-feature, for the runner with
    no POSTBAG_LEDGER: (the repository's folder, the worktree's)."""
    _unnamed(postbag)
    main = new_repository(tmp_path / "api")
    worktree = str(tmp_path / "api-feature")
    git("worktree", "add", "-q", worktree, cwd=main)
    return main, worktree


@pytest.mark.shipped
def test_two_repositories_pairs_never_cross_a_letter_a_join_or_a_budget(postbag, inbox, codex, tmp_path):
    _unnamed(postbag)
    first, second = new_repository(tmp_path / "work" / "api"), new_repository(tmp_path / "other" / "api")
    for where in (first, second):
        postbag.joined(where)
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
    main, worktree = a_worktree(postbag, tmp_path)
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
    postbag.joined(api)
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
    assert [name.split("-")[0] for name in os.listdir(os.path.join(home, ".postbag")) if name.endswith(".jsonl")] == [
        "outer"
    ]


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
