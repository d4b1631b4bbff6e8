"""Two projects on one machine, as people run them: a real Claude Code session and a real
Codex thread in each of two git repositories of the same name, one person's home and
clients for all four, the tools of postbag's MCP server for every join and letter, and
no POSTBAG_LEDGER anywhere. Each pair corresponds in its repository's own ledger, at the
same time as the other, and no letter, join or budget crosses; a worktree's session joins
its repository's ledger."""

import contextlib
import json
import os
import re

import clients
import pytest
from helpers import TIMESTAMP
from sessions_helpers import mcp_server
from test_repository import git, new_repository


@pytest.fixture
def person(real, codex_home):
    """One person's terminal, clients and home for both projects: postbag's MCP server
    registered with Codex as setup leaves it, naming no ledger."""
    del real.env["POSTBAG_LEDGER"]
    codex_home.register_postbag(*mcp_server(real))
    return real


class Project:
    """A repository with a real Claude Code session and a real Codex thread working in it,
    each driven by a stand-in model of its own (a model remembers the letters it answered
    by their numbers, and each ledger numbers its own from 1), which answers with `tag`."""

    def __init__(self, person, tag, folder, namespace, codex_home, undo, *, register):  # noqa: PLR0917
        self.tag, self.repository = tag, new_repository(folder)
        self.claude_model = clients.ClaudeModel(namespace, clients.Agent(f"{tag}: from claude"))
        undo.callback(self.claude_model.close)
        self.codex_model = clients.CodexModel(namespace, clients.Agent(f"{tag}: from codex"))
        undo.callback(self.codex_model.close)
        # The person registered postbag with Claude Code once, for every project (claude mcp add --scope user).
        server = mcp_server(person)[0] if register else None
        self.claude = clients.ClaudeSession(
            person.env["HOME"], self.repository, namespace, self.claude_model, person.env, mcp=server
        )
        undo.callback(self.claude.remove)
        thread = codex_home.new_thread(person.env, cwd=self.repository)
        default = {"sandbox": "workspace-write", "approval": "on-request"}  # what a Codex user has
        self.codex = clients.CodexSession(codex_home, thread, self.codex_model, person.env, self.repository, **default)
        undo.callback(self.codex.stop)

    def ledger(self, person):
        """This repository's ledger: the file under ~/.postbag whose joins came from here, or None."""
        folder = os.path.join(person.env["HOME"], ".postbag")
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
            if not name.endswith(".jsonl"):
                continue  # its .gitignore
            path = os.path.join(folder, name)
            if any(r["kind"] == "join" and r.get("cwd") == self.repository for r in records(path)):
                return path
        return None

    def letters(self, person):
        path = self.ledger(person)
        return [r for r in records(path) if r["kind"] == "letter"] if path else []

    def received(self):
        """Every envelope either session of the pair took in."""
        return self.claude.letters() + self.codex.user_messages()


def records(path):
    with open(path) as file:
        return [json.loads(line) for line in file if line.strip()]


def test_two_pairs_in_two_repositories_exchange_at_once_and_nothing_crosses(person, namespace, codex_home, tmp_path):
    with contextlib.ExitStack() as undo:
        work = Project(person, "ALPHA", tmp_path / "work" / "api", namespace, codex_home, undo, register=True)
        other = Project(person, "BRAVO", tmp_path / "other" / "api", namespace, codex_home, undo, register=False)
        projects = (work, other)
        for project in projects:
            project.claude.say("Call: join")
            project.codex.say("Call: join")
        for project in projects:
            project.codex.wait_for(
                lambda p=project: p.ledger(person) and sum(r["kind"] == "join" for r in records(p.ledger(person))) == 2,
                "both joins in the repository's ledger",
            )
        assert work.ledger(person) != other.ledger(person)
        assert [os.path.basename(p.ledger(person))[:4] for p in projects] == ["api-", "api-"]
        # The person opens an exchange in each repository, each of its own size.
        assert person.open("3", cwd=work.repository) == "exchange open: 3 letters\n"
        assert person.open("4", cwd=other.repository) == "exchange open: 4 letters\n"
        # Both Claude sessions write at the same moment; each pair answers until its budget is spent.
        for project in projects:
            project.claude.say(f"Call: send {project.tag}: the first question")
        for project, budget in ((work, 3), (other, 4)):
            project.codex.wait_for(lambda p=project, b=budget: len(p.letters(person)) == b, "the budget", timeout=120)
            last = f"Letter {3 + budget} from "
            taker = project.codex if budget % 2 else project.claude  # the last letter's recipient
            texts = taker.user_messages if taker is project.codex else taker.letters
            taker.wait_for(lambda t=texts, last=last: any(x.startswith(last) for x in t()), "the last letter")
        for project, budget in ((work, 3), (other, 4)):
            letters = project.letters(person)
            assert [r["n"] for r in letters] == list(range(4, 4 + budget))
            assert all(r["body"].startswith(f"{project.tag}: ") for r in letters)  # every letter its own pair's
            stranger = next(p for p in projects if p is not project)
            assert project.received() and not any(stranger.tag in text for text in project.received())
        # The budgets stayed apart: the other's last letter did not spend this one's, nor the reverse.
        said = [text for tool, _, text, _ in work.claude_model.tool_results() if tool == "send"]
        assert said == ["letter 4 delivered to codex, 2 left", "letter 6 delivered to codex, 0 left"]
        read = person.run("read", cwd=work.repository)
        assert "ALPHA: the first question" in read.stdout and "BRAVO" not in read.stdout
        assert read.stderr == f"postbag: read the ledger of the repository {work.repository}\n"
        for project in projects:
            assert git("status", "--porcelain", "--ignored", cwd=project.repository) == ""

        # A worktree of the first repository: its Codex thread joins that repository's ledger.
        worktree = str(tmp_path / "work" / "api-feature")
        git("worktree", "add", "-q", worktree, cwd=work.repository)
        thread = codex_home.new_thread(person.env, cwd=worktree)
        default = {"sandbox": "workspace-write", "approval": "on-request"}
        feature = clients.CodexSession(codex_home, thread, work.codex_model, person.env, worktree, **default)
        undo.callback(feature.stop)
        joins = len([tool for tool, _, _ in work.codex_model.tool_results() if tool == "join"])
        feature.say("Call: join")
        feature.wait_for(
            lambda: len([tool for tool, _, _ in work.codex_model.tool_results() if tool == "join"]) > joins, "its join"
        )
        [joined] = [r for r in records(work.ledger(person)) if r.get("cwd") == worktree]
        assert (joined["peer"], joined["thread"], joined["via"]) == ("codex", thread, "mcp")
        text = [text for tool, _, text in work.codex_model.tool_results() if tool == "join"][-1]
        assert re.fullmatch(
            rf"codex joined\npostbag: this replaces the codex session that joined at {TIMESTAMP} from "
            rf"{re.escape(work.repository)}: letters to codex now come here",
            text,
        )
        assert not any(r.get("cwd") == worktree for r in records(other.ledger(person)))
