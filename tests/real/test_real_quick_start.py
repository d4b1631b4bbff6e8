"""README's Quick start, word for word, on the real clients: its setup command, its open
command, in one fresh home with postbag.pyz installed on PATH as `postbag` and the clients
as a person has them, as a new user has it. The only words not README's are the stand-in
models' (what "Join postbag." and a request to write mean to them: "Call: join", "Call:
send")."""

import glob
import os
import re
import shlex
import subprocess

import clients
from fakes import path_with_python3, terminal_environment
from helpers import ROOT, TIMESTAMP
from test_repository import new_repository


def quick_start(marker):
    """The fenced block that follows `<!-- quick-start: MARKER -->` in README.md."""
    return readme_sample(f"quick-start: {marker}")


def readme_sample(marker):
    """The fenced block that follows `<!-- MARKER -->` in README.md."""
    with open(os.path.join(ROOT, "README.md")) as file:
        after = file.read().split(f"<!-- {marker} -->", 1)[1]
    return after.split("```", 2)[1].split("\n", 1)[1]


def test_the_quick_start_works_as_written_on_the_real_clients(pyz, namespace, model, codex_model, tmp_path):
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    path = path_with_python3(str(bin_dir))
    os.symlink(pyz, bin_dir / "postbag")  # the Install section's ~/.local/bin/postbag
    env = terminal_environment(HOME=str(home), PATH=path)
    (home / ".claude").mkdir(parents=True)
    # The clients as a person has them: `claude` and `codex` on PATH (here the pinned ones,
    # inside the namespace), and Codex's offline settings (a stand-in model and its key).
    codex_home = clients.CodexHome(str(home / ".codex"), namespace)
    codex_home.wrapper(str(bin_dir))
    clients.sessions.claude_wrapper(namespace, str(bin_dir))
    env.update(codex_home.env)

    # 1. README's setup, word for word, and what it prints in a new home, as README shows it.
    command = shlex.split(quick_start("setup"))
    set_up = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert set_up.returncode == 0, set_up.stderr
    printed = set_up.stdout + set_up.stderr  # a terminal shows the changes, then the notices
    shown = readme_sample("setup: what it prints").removeprefix("$ postbag setup\n")
    assert printed == shown.replace("/home/you/.local/bin", str(bin_dir)).replace("/home/you", str(home))

    # 2. Both sessions start, as a person starts them, in the repository they work on.
    work = new_repository(tmp_path / "work")
    claude = clients.ClaudeSession(str(home), work, namespace, model, env)
    try:
        thread = codex_home.new_thread(env, cwd=work)
        # The sandbox and approvals a Codex user has by default.
        default = {"sandbox": "workspace-write", "approval": "on-request"}
        codex = clients.CodexSession(codex_home, thread, codex_model, env, work, **default)
        try:
            journey(env, claude, codex, model, work)
        finally:
            codex.stop()
    finally:
        claude.remove()


def joins(home):
    """The joins in the ledgers under `home`: the repository's, once there is one."""
    found = glob.glob(os.path.join(home, ".postbag", "work-*.jsonl"))
    if not found:
        return 0
    with open(found[0]) as file:
        return file.read().count('"kind": "join"')


def journey(env, claude, codex, model, work):
    def postbag(*args):  # in a terminal of the person's, in the repository, as Quick start says
        done = subprocess.run(
            ["postbag", *args], env=env, cwd=work, capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
        return done

    # 2. Each agent joins.
    claude.say("Call: join")
    codex.say("Call: join")
    codex.wait_for(lambda: codex.turns_done() == 1, "codex's join")
    claude.wait_for(lambda: joins(env["HOME"]) == 2, "both joins")  # the repository's own ledger, for both
    # Claude Code writes a turn's records to its transcript a moment after the turn's calls
    # run: open reads the class of the latest turn there, so it waits for that record.
    claude.wait_for(lambda: any("permissionMode" in r for r in claude.transcript()), "the turn in claude's transcript")

    # 3. README's open command.
    opened = postbag(*shlex.split(quick_start("open"))[1:])
    # open names the repository's ledger it acted on; each door says, from its client's records, that it takes letters.
    assert (opened.stdout, opened.stderr) == (
        "exchange open: 6 letters\n",
        f"postbag: wrote to the ledger of the repository {work}\n"
        "postbag: claude can take a letter now: its session runs, and it prompts for permissions (its latest turn ran "
        "in permission mode default), so letters get in while crossSessionInbound is unset\n"
        "postbag: codex can take a letter now: a running codex has its thread loaded, and it takes the letter when "
        "it is idle\n",
    )

    # 4. Claude writes; the letters go back and forth until the sixth, which is not answered.
    claude.say("Call: send Review src/parser.py for unhandled input.")
    last = "Letter 9 from codex via postbag. It is the last letter of the exchange; do not reply."
    claude.wait_for(lambda: any(t.startswith(last) for t in claude.letters()), "the last letter", timeout=120)

    # Watch: six letters, each taken, each but the last answered by the next; one more is refused.
    read = postbag("read").stdout
    assert re.findall(r"letter (claude|codex) -> ", read) == ["claude", "codex"] * 3
    receipts = postbag("receipts").stdout.splitlines()
    settled = [rf"letter {n} \w+ -> \w+: answered by letter {n + 1}, taken at {TIMESTAMP}" for n in range(4, 9)]
    assert len(receipts) == 6, receipts
    assert all(re.fullmatch(pattern, line) for pattern, line in zip(settled, receipts, strict=False)), receipts
    assert re.fullmatch(rf"letter 9 codex -> claude: taken at {TIMESTAMP}", receipts[5]), receipts
    claude.say("Call: send one more")
    claude.wait_for(lambda: any("spent" in result[2] for result in model.tool_results()), "the refused send")
    assert [r[2] for r in model.tool_results()][-1].startswith(
        "postbag: the exchange's letters are spent; stop and ask the human"
    )
