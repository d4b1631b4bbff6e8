"""A ledger that knows its repository, on the real clients: a real Claude Code session and
a real Codex thread working in one git repository, joined through postbag's MCP server,
with no POSTBAG_LEDGER anywhere. The repository moved while they run keeps its ledger and
its budget; a clone made anew at the old path is a repository of its own, whose sessions
reach nobody of the old one's; and once a second Codex thread takes the door, the first
can no longer spend the budget."""

import contextlib
import glob
import os
import re

import clients
import pytest
import test_real_repositories
from helpers import TIMESTAMP
from test_real_repositories import Project, records
from test_repository import git

from postbag.claude.room import MOVES_SINCE

person = test_real_repositories.person  # the fixture: one person's terminal, clients and home, no POSTBAG_LEDGER

# What Claude Code adds to the error of a tool its model called before loading its schema.
DEFERRED = "\n\nThis tool's input schema was not in your prompt"
# What the MCP server adds to every refusal an agent should not get past on its own.
STOP = "; stop and ask the human"


def ledgers(person):
    """The names of the ledgers in ~/.postbag."""
    folder = os.path.join(person.env["HOME"], ".postbag")
    return sorted(name for name in os.listdir(folder) if name.endswith(".jsonl"))


def ledger_of(person, repository):
    """The path of `repository`'s ledger, found as postbag finds it: by the inode of its
    common directory; None before it is made."""
    inode = os.stat(os.path.join(repository, ".git")).st_ino
    found = glob.glob(os.path.join(person.env["HOME"], ".postbag", f"*-{inode}.jsonl"))
    return found[0] if found else None


def kinds(path):
    return [record["kind"] for record in records(path)] if path else []


def said(model, tool):
    """What each call of postbag's `tool` said to the model, oldest first."""
    return [result[2].split(DEFERRED, 1)[0] for result in model.tool_results() if result[0] == tool]


def join_both(project, person):
    """Each agent of `project` calls postbag's join tool, in its own session."""
    project.claude.say("Call: join")
    project.codex.say("Call: join")
    project.codex.wait_for(lambda: said(project.codex_model, "join") and said(project.claude_model, "join"), "joins")
    assert kinds(ledger_of(person, project.repository)) == ["join", "join"]


def write_and_be_answered(project, text):
    """Claude writes `text` through its send tool; Codex, woken by the letter, answers
    through its own with the exchange's last letter: until Claude has that answer, and
    each model has what its send said."""
    project.claude.say(f"Call: send {text}")
    project.codex.wait_for(lambda: said(project.codex_model, "send"), "codex's answer", timeout=60)
    project.claude.wait_for(lambda: project.claude.letters() and said(project.claude_model, "send"), "the answer")


@pytest.mark.since(versions={"claude": MOVES_SINCE}, needs="a session that runs on after its folder is moved")
def test_a_repository_moved_while_its_pair_runs_goes_on_in_its_own_ledger(person, namespace, codex_home, tmp_path):
    with contextlib.ExitStack() as undo:
        pair = Project(person, "ALPHA", tmp_path / "work" / "api", namespace, codex_home, undo, register=True)
        join_both(pair, person)
        assert person.open("2", cwd=pair.repository) == "exchange open: 2 letters\n"
        ledger = ledger_of(person, pair.repository)
        moved = str(tmp_path / "work" / "api2")
        os.rename(pair.repository, moved)  # mv api api2, while both sessions run in it
        write_and_be_answered(pair, "ALPHA: after the move")
        assert said(pair.claude_model, "send") == ["letter 4 delivered to codex, 1 left"]
        assert said(pair.codex_model, "send") == ["letter 5 delivered to claude, 0 left"]
        [letter] = [text for text in pair.codex.user_messages() if text.startswith("Letter ")]
        assert letter.startswith("Letter 4 from claude via postbag.") and letter.endswith("\n\nALPHA: after the move")
        [answer] = pair.claude.letters()
        assert answer.startswith("Letter 5 from codex via postbag. It is the last letter of the exchange")
        assert answer.endswith("\n\nALPHA: from codex")
        # One ledger, the repository's, found by its inode after the move: none outside repositories.
        assert ledgers(person) == [os.path.basename(ledger)] and ledger == ledger_of(person, moved)
        assert kinds(ledger) == ["join", "join", "open", "letter", "letter"]
        read = person.run("read", cwd=moved)
        assert read.stderr == f"postbag: read the ledger of the repository {moved}\n"


def test_a_clone_made_anew_at_the_old_path_reaches_nobody_of_the_old_pair(person, namespace, codex_home, tmp_path):
    with contextlib.ExitStack() as undo:
        pair = Project(person, "ALPHA", tmp_path / "work" / "api", namespace, codex_home, undo, register=True)
        join_both(pair, person)
        assert person.open("2", cwd=pair.repository) == "exchange open: 2 letters\n"
        api, old = pair.repository, str(tmp_path / "work" / "api-old")
        os.rename(api, old)  # mv api api-old && git clone api-old api, while the old pair runs
        git("clone", "-q", old, api, cwd=str(tmp_path / "work"))
        # A new Claude session in the new clone, its server started from the person's registration.
        model = clients.ClaudeModel(namespace, clients.Agent("NEW: from claude"))
        undo.callback(model.close)
        new = clients.ClaudeSession(person.env["HOME"], api, namespace, model, person.env)
        undo.callback(new.remove)
        new.say("Call: join")
        new.wait_for(lambda: said(model, "join"), "its join")
        assert said(model, "join")[0].splitlines()[0] == "claude joined"
        assert person.open("2", cwd=api) == "exchange open: 2 letters\n"
        new.say("Call: send NEW: for codex")
        new.wait_for(lambda: said(model, "send"), "its send")
        assert said(model, "send") == [f"postbag: codex has not joined (the ledger of the repository {api}){STOP}"]
        assert kinds(ledger_of(person, api)) == ["join", "open"]
        assert kinds(ledger_of(person, old)) == ["join", "join", "open"]  # the old pair's exchange, untouched
        # The old pair goes on in its own ledger, its whole budget left: its Claude server,
        # whose session file still names the folder the new clone now holds, keeps the old one.
        write_and_be_answered(pair, "ALPHA: still here")
        assert said(pair.claude_model, "send") == ["letter 4 delivered to codex, 1 left"]
        assert said(pair.codex_model, "send") == ["letter 5 delivered to claude, 0 left"]
        [letter] = [text for text in pair.codex.user_messages() if text.startswith("Letter ")]
        assert letter.endswith("\n\nALPHA: still here")  # the new clone's session reached nothing of it
        assert kinds(ledger_of(person, api)) == ["join", "open"] and new.letters() == []
        assert len(ledgers(person)) == 2


def test_a_second_codex_thread_that_takes_the_door_leaves_the_first_unable_to_send(
    person, namespace, codex_home, tmp_path
):
    with contextlib.ExitStack() as undo:
        pair = Project(person, "ALPHA", tmp_path / "work" / "api", namespace, codex_home, undo, register=True)
        join_both(pair, person)
        assert person.open("2", cwd=pair.repository) == "exchange open: 2 letters\n"
        worktree = str(tmp_path / "work" / "api-feature")
        git("worktree", "add", "-q", worktree, cwd=pair.repository)
        model = clients.CodexModel(namespace, clients.Agent())
        undo.callback(model.close)
        thread = codex_home.new_thread(person.env, cwd=worktree)
        default = {"sandbox": "workspace-write", "approval": "on-request"}
        feature = clients.CodexSession(codex_home, thread, model, person.env, worktree, **default)
        undo.callback(feature.stop)
        feature.say("Call: join")
        feature.wait_for(lambda: said(model, "join"), "its join")
        assert re.fullmatch(
            rf"codex joined\npostbag: this replaces the codex session that joined at {TIMESTAMP} from "
            rf"{re.escape(pair.repository)}: letters to codex now come here",
            said(model, "join")[0],
        )
        ledger = ledger_of(person, pair.repository)
        before = records(ledger)
        pair.codex.say("Call: send ALPHA: from the first")
        pair.codex.wait_for(lambda: said(pair.codex_model, "send"), "its send")
        assert re.fullmatch(
            rf"postbag: this codex session is not the one joined for codex in the ledger of the repository "
            rf"{re.escape(pair.repository)}: the codex session that joined at {TIMESTAMP} from {re.escape(worktree)} "
            r"is, and letters to codex reach it; to take the door, this session joins \(postbag join codex, or the "
            rf"join tool\), and letters to codex then come here{STOP}",
            said(pair.codex_model, "send")[0],
        )
        assert records(ledger) == before  # no letter, and the budget as it was
        # The second thread writes on the whole budget, and Claude's answer reaches it alone.
        feature.say("Call: send FEATURE: from the second")
        feature.wait_for(lambda: feature.user_messages()[-1].startswith("Letter "), "claude's answer", timeout=60)
        feature.wait_for(lambda: said(model, "send") and said(pair.claude_model, "send"), "what each send said")
        assert said(model, "send") == ["letter 5 delivered to claude, 1 left"]
        assert said(pair.claude_model, "send") == ["letter 6 delivered to codex, 0 left"]
        assert feature.user_messages()[-1].startswith("Letter 6 from claude via postbag. It is the last letter")
        assert [text for text in pair.codex.user_messages() if text.startswith("Letter ")] == []
        assert [(r["from"], r["body"]) for r in records(ledger) if r["kind"] == "letter"] == [
            ("codex", "FEATURE: from the second"),
            ("claude", "ALPHA: from claude"),
        ]
