#!/usr/bin/env python3
"""Watch two agents correspond through postbag.

    python3 scripts/demo.py [--limit N] [--keep] [--real]

It runs dist/postbag.pyz (built first when missing or stale), the file people download.
With nothing installed, two simulated agents answer through the test suite's fake doors:
a real AF_UNIX inbox socket with a random token for Claude Code, a fake `codex queue`
for Codex. Each agent answers only by following the envelope of the letter it received.

--real runs the same exchange through a real Claude Code session and a real Codex
session, with the stand-in models of the real-client tier, offline in a network
namespace; the pinned clients must be installed first (python3 tests/clients install).

Everything lives in a temporary directory, removed afterwards unless --keep is given.
The exit status is 0 only if the exchange went exactly as the protocol says.
"""

import sys

if sys.version_info < (3, 10):  # as postbag itself refuses it, before anything is played
    sys.exit("the demo needs Python 3.10 or later, as postbag does (this is %d.%d)" % sys.version_info[:2])

import argparse
import json
import os
import queue
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import build_pyz

sys.path.insert(0, os.path.join(build_pyz.ROOT, "src"))  # for tests/clients, which reads the rooms' versions
sys.path.insert(0, os.path.join(build_pyz.ROOT, "tests"))
import clients
import fakes

LAST = "It is the last letter of the exchange; do not reply."
FIRST_LETTER = "Review src/postbag/ledger.py for input it does not handle. Reply with your top finding."
ANSWERS = {
    "codex": [
        "Top finding: a line cut short by a crash. It is refused by number, so nothing reads half a record.",
        "Agreed. One more: a body holding a line that is just\nPOSTBAG\nneeds another heredoc delimiter.",
        "Then we are done here. Thanks.",
    ],
    "claude": [
        "Good catch. Is the append itself safe against a full disk?",
        "Checked: a failed append is cut back to the old size. Closing this thread.",
        "Thanks, signing off.",
    ],
}
WAIT = 60.0


class Show:
    """Prints the exchange as it happens, one whole block at a time. A reader that goes
    away (`demo.py | head`) stops the printing, not the demo, which still cleans up."""

    def __init__(self):
        self._lock = threading.Lock()
        self._gone = False
        self.blocks = 0  # blocks shown so far

    def __call__(self, who, text, *detail):
        lines = [f"{who:<6} {text}"] + [f"{'':<8}{part}" for line in detail for part in line.splitlines() or [""]]
        self.say(*lines)

    def result(self, who, lines, since=None):
        """What `who`'s command printed: right under the command when nothing came
        between (the block count `since` is still the count), else under `who`'s name."""
        lines = lines or [""]
        if since is not None and since == self.blocks:
            self.say(*(f"{'':<8}{line}" for line in lines))
        else:
            self(who, "  " + lines[0], *lines[1:])

    def say(self, *lines):
        with self._lock:
            if self._gone:
                return
            self.blocks += 1
            try:
                sys.stdout.write("".join(line + "\n" for line in lines))
                sys.stdout.flush()
            except BrokenPipeError:
                self._gone = True
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # what is buffered goes nowhere


def letter_lines(envelope):
    return [f"| {line}" for line in envelope.split("\n")]


class SimulatedAgent:
    """An agent that knows nothing of postbag beyond the letter in front of it, and answers
    with the command the envelope gives. It wakes when its door hands it a letter, and
    takes its turn once the demo gives it one: after the sender's command has returned,
    as a real agent's turn comes, so that the demo reads in the order things happened."""

    def __init__(self, name, show, woken):
        self.name, self.show, self.session_env = name, show, None
        self.received, self.failures = [], []
        self._woken = woken  # the demo's queue of agents woken, each with its letter
        self._answers = iter(ANSWERS[name])

    def receive(self, envelope, door):
        number = envelope.split()[1]
        self.received.append(envelope)
        self.show(self.name, f"<- letter {number}, through {door}:", *letter_lines(envelope))
        self._woken.put((self, envelope))

    ANSWERS_BY = "reply with:"  # what the envelope's heading says when it gives a command

    def take_turn(self, envelope, after):
        """Answer `envelope` as it says; `after` is called once the answer was handed over,
        before its result is shown. Whether the exchange goes on."""
        number = envelope.split()[1]
        if LAST in envelope.split("\n", 1)[0]:
            self.show(self.name, "   the letter says not to reply, so it does not")
            return False
        if self.ANSWERS_BY not in envelope.split("\n", 1)[0]:
            self.failures.append(f"letter {number} did not say how to answer it")
            return False
        return self._answer(envelope, next(self._answers, "Nothing more to add."), after)

    def _answer(self, envelope, answer, after):
        script = clients.reply_to(envelope, answer)
        first, *rest = script.split("\n")
        self.show(self.name, "$ " + first, *rest)
        shown = self.show.blocks
        result = subprocess.run(
            ["/bin/sh", "-c", script], env=self.session_env, capture_output=True, text=True, timeout=WAIT, check=False
        )
        if result.returncode:
            self.failures.append(f"{self.name}'s reply was refused: {result.stderr.strip()}")
        if not result.returncode:
            after()
        self.show.result(self.name, (result.stdout + result.stderr).strip().splitlines(), shown)
        return not result.returncode


class SimulatedAgentWithTheDoor(SimulatedAgent):
    """A simulated agent whose client runs postbag's MCP server, as Codex does in its
    sandbox: it joins and answers with the server's tools, over the server's own stdin
    and stdout, its thread in each call as Codex sends it."""

    ANSWERS_BY = "reply with the tool send"

    def start_the_door(self, thread):
        from rawmcp import RawServer

        self.meta = {"threadId": thread}
        self.server = RawServer(["postbag", "mcp"], {k: v for k, v in self.session_env.items() if "THREAD" not in k})
        self.server.handshake()

    def call(self, tool, arguments=None, after=None):
        """Call one of the door's tools, show the call and what it said; whether it succeeded."""
        self.show(self.name, f"> {tool}, a tool of its postbag MCP server", *(arguments or {}).values())
        said, refused = self.server.tool(tool, arguments, self.meta)
        if refused:
            self.failures.append(f"{self.name}'s {tool} was refused: {said}")
        elif after is not None:
            after()
        self.show.result(self.name, said.splitlines())
        return not refused

    def _answer(self, envelope, answer, after):
        return self.call("send", {"text": answer}, after)


class Agents:
    """What the demo needs of the two agents it plays, simulated or real: the environment
    the human's commands and Claude's session run in, the joins, and the end of the
    exchange, checked."""

    description = ""
    names_the_ledger = False  # whether the ledger is named by POSTBAG_LEDGER, not the repository's own
    human_env: dict
    claude_env: dict

    def join(self, demo):
        """Both peers join; the completed commands."""
        raise NotImplementedError

    def after_a_send(self):
        """Wait, once a send has handed its letter over, until the recipient shows it."""

    def await_the_end(self, limit):
        """Wait until the exchange of `limit` letters is over; what went wrong, in words."""
        raise NotImplementedError

    def delivered(self):
        """How many letters the doors handed to the agents."""
        raise NotImplementedError

    def close(self):
        raise NotImplementedError


class Simulated(Agents):
    """Two simulated agents behind the fake doors, taking turns as the letters wake them."""

    description = "two simulated agents"

    def __init__(self, directory, human, show):
        self.woken = queue.Queue()
        self.claude = SimulatedAgent("claude", show, self.woken)
        self.codex = SimulatedAgentWithTheDoor("codex", show, self.woken)
        self._next = None  # the agent woken last, and its letter, until it takes its turn
        token, thread = secrets.token_hex(16), str(uuid.uuid4())
        self.inbox = fakes.FakeInbox(
            os.path.join(directory, "claude-inbox.sock"),
            token,
            on_letter=lambda e: self.claude.receive(e, "its inbox socket"),
        )
        self.queue = fakes.FakeCodex(
            os.path.join(directory, "codex"), thread, on_letter=lambda e: self.codex.receive(e, "codex queue")
        )
        self.human_env = {**human, "POSTBAG_CODEX": self.queue.path}
        self.claude_env = self.claude.session_env = {**self.human_env, "CLAUDECODE": "1", **self.inbox.session_env()}
        self.codex.session_env = {**self.human_env, **self.queue.session_env()}
        self.codex.start_the_door(thread)

    def join(self, demo):
        claude = demo.postbag("claude", self.claude.session_env, "join", "claude")
        joined = self.codex.call("join")
        return [claude, subprocess.CompletedProcess("join", 0 if joined else 1)]

    def after_a_send(self):
        try:
            self._next = self.woken.get(timeout=WAIT)
        except queue.Empty:
            self._next = None

    def await_the_end(self, limit):
        while self._next is not None:
            agent, envelope = self._next
            self._next = None
            if not agent.take_turn(envelope, self.after_a_send):
                break
        problems = [f for agent in (self.claude, self.codex) for f in agent.failures]
        if len(self.claude.received) + len(self.codex.received) != limit:
            problems.append(f"the agents were woken by {len(self.claude.received) + len(self.codex.received)} letters")
        if len(self.inbox.received) != len(self.claude.received):  # on_letter sees only the right token
            problems.append("the inbox saw a connection without the session's token")
        return problems

    def delivered(self):
        return len(self.inbox.received) + len(self.queue.calls())

    def close(self):
        self.inbox.close()
        self.queue.close()
        self.codex.server.close()


class Real(Agents):
    """A real Claude Code session and a real Codex session, their models stand-ins, all offline."""

    description = "a real Claude Code session and a real Codex session in its sandbox"
    names_the_ledger = True  # Codex's MCP server has a home of its own: the ledger is named for it

    def __init__(self, directory, human, show):
        self.show = show
        agents = clients.Agent(ANSWERS["claude"]), clients.Agent(ANSWERS["codex"])
        # The person runs postbag setup, as README says, which registers postbag's MCP server
        # with both clients, the ledger named for it.
        self.pair = clients.Pair(directory, human, *agents, setup=["postbag"])
        show("human", "$ postbag setup", *self.pair.set_up.stdout.rstrip().splitlines())
        self.claude, self.codex, self.codex_model = self.pair.claude, self.pair.codex, self.pair.codex_model
        self.human_env = self.pair.env
        self.claude_env = {**self.human_env, **self.pair.claude_variables()}

    def join(self, demo):
        claude = demo.postbag("claude", self.claude_env, "join", "claude")
        self.show("human", "asks the Codex session, in its workspace-write sandbox: call postbag's join tool")
        self.codex.say("Call: join")
        self.codex.wait_for(lambda: self.codex.turns_done() == 1, "the joining turn")
        [(tool, _, said)] = self.codex_model.tool_results()
        self.show("codex", f"> {tool}, a tool of its postbag MCP server", said)
        return [claude, subprocess.CompletedProcess(tool, 0 if said.split("\n")[0] == "codex joined" else 1)]

    def await_the_end(self, limit):
        to_codex, to_claude = (limit + 1) // 2, limit // 2

        def finished():  # every letter taken, and a turn ended for each
            claude_turns = sum(1 for event in self.claude.stream() if event.get("type") == "result")
            codex_letters = len(self.codex.user_messages()) - 1
            return (codex_letters, self.codex.turns_done() - 1, len(self.claude.enqueued()), claude_turns) == (
                to_codex,
                to_codex,
                to_claude,
                to_claude,
            )

        try:
            self.codex.wait_for(finished, "end of the exchange", timeout=30 * limit)
        except RuntimeError as error:
            return [str(error)]
        # The real agents answered on their own; what each received is shown afterwards, as
        # its client recorded it, letter by letter in the order they were written.
        received = {
            **{("codex", e.split()[1]): e for e in self.codex.user_messages()[1:]},
            **{("claude", e.split()[1]): e for e in self.claude.enqueued()},
        }
        where = {"codex": "in its thread", "claude": "in its transcript"}
        for (recipient, number), envelope in sorted(received.items(), key=lambda item: int(item[0][1])):
            self.show(recipient, f"<- letter {number}, {where[recipient]}:", *letter_lines(envelope))
        return []

    def delivered(self):
        return len(self.codex.user_messages()) - 1 + len(self.claude.enqueued())

    def close(self):
        self.pair.close()


def main():
    parser = argparse.ArgumentParser(description="Two agents correspond through postbag.")
    parser.add_argument("--limit", type=int, default=6, help="letters in the exchange (default 6)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary ledger and directory")
    parser.add_argument("--real", action="store_true", help="real Claude Code and Codex sessions, offline")
    args = parser.parse_args()
    if args.limit < 1:
        parser.error("--limit must be at least 1")
    if args.real and clients.missing():
        parser.exit(2, f"demo --real: {clients.missing()}\n")
    pyz, built = build_pyz.ensure_built()
    directory = tempfile.mkdtemp(prefix="postbag-demo-")
    show = Show()
    started_in = os.getcwd()
    try:
        return Demo(pyz, directory, args.limit, built, Real if args.real else Simulated, show).run()
    except RuntimeError as error:  # a real client that would not start
        print(f"demo: {error}", file=sys.stderr)
        return 1
    finally:
        os.chdir(started_in)
        if args.keep:
            show.say("", f"kept {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)


class Demo:
    """One exchange of `limit` letters between `agents` (Simulated or Real), played in
    `directory` with the postbag.pyz at `pyz` on PATH as `postbag`, as people install it."""

    def __init__(self, pyz, directory, limit, built, agents, show):  # noqa: PLR0913, PLR0917
        self.pyz, self.directory, self.limit, self.built, self.show = pyz, directory, limit, built, show
        self.home = os.path.join(directory, "home")
        # The repository both agents work in, as people run a pair: every command runs
        # there, and its ledger is the repository's own (or the one named for the clients).
        self.work = os.path.join(directory, "work")
        self.named = agents.names_the_ledger
        self.ledger = os.path.join(directory, "ledger.jsonl") if self.named else None
        self._agents = agents

    def start(self):
        """Say what runs where, and start the agents."""
        bin_dir = os.path.join(self.directory, "bin")
        # People put postbag.pyz on PATH as `postbag`; `python3` is this interpreter.
        path = fakes.path_with_python3(bin_dir)
        os.symlink(self.pyz, os.path.join(bin_dir, "postbag"))
        # A home of the demo's own, which holds the ledger where a person's would be: what a
        # send reads of Claude's settings must not be the person's either.
        os.makedirs(self.home)
        subprocess.run(["git", "init", "--quiet", self.work], check=True)
        os.chdir(self.work)
        human = fakes.terminal_environment(PATH=path, HOME=self.home)
        if self.named:
            human["POSTBAG_LEDGER"] = self.ledger
        else:
            from postbag.here import Here
            from postbag.location import locate

            self.ledger = locate(Here(human, self.work)).path
        self.show.say(
            f"postbag demo: {self._agents.description}, real doors, and the postbag.pyz people download",
            f"  program  {self.pyz}{' (just built)' if self.built else ''}",
            f"  work     {self.work}, a git repository",
            f"  ledger   {self.ledger}",
            "",
        )
        self.agents = self._agents(self.directory, human, self.show)
        self.human_env = self.agents.human_env

    def postbag(self, who, env, *args, after=None):
        """Run `postbag ARGS` as `who`: the command is shown as it starts, and what it
        printed once it is done, after `after`, when it succeeded."""
        self.show(who, "$ postbag " + " ".join(shlex.quote(word) for word in args))
        shown = self.show.blocks
        result = subprocess.run(["postbag", *args], env=env, capture_output=True, text=True, timeout=WAIT, check=False)
        if result.returncode == 0 and after is not None:
            after()
        self.show.result(who, (result.stdout + result.stderr).rstrip().splitlines(), shown)
        return result

    def run(self):
        started = time.monotonic()
        self.start()
        problems = []
        try:
            opened = self.postbag("human", self.human_env, "open", str(self.limit))
            joins = self.agents.join(self)
            if any(step.returncode for step in (opened, *joins)):
                problems.append("opening the exchange or joining failed")
            elif self.postbag(
                "claude", self.agents.claude_env, "send", "codex", FIRST_LETTER, after=self.agents.after_a_send
            ).returncode:
                problems.append("the first letter was not delivered")
            else:
                problems += self.agents.await_the_end(self.limit)
            transcript = self.postbag("human", self.human_env, "read")
            refused = self.postbag("claude", self.agents.claude_env, "send", "codex", "One more thing...")
            problems += self.check(transcript, refused)
        finally:
            self.agents.close()
        if problems:
            self.show.say("", "the exchange went wrong:", *(f"  - {p}" for p in problems))
            return 1
        first = self.first_letter
        self.show.say(
            "",
            f"{self.limit} letters delivered through both doors, numbered {first} to {first + self.limit - 1} as the "
            "ledger numbers its records;",
            "the last one unanswered, and the next send refused until the human opens another exchange.",
            f"Done in {time.monotonic() - started:.1f} s.",
        )
        return 0

    def check(self, transcript, refused):
        problems = []
        with open(self.ledger) as ledger:
            letters = [r for r in map(json.loads, ledger) if r["kind"] == "letter"]
        self.first_letter = letters[0]["n"] if letters else None
        expected_senders = ["claude", "codex"] * self.limit
        if [r["from"] for r in letters] != expected_senders[: self.limit]:
            problems.append(f"the ledger holds {len(letters)} letters, not {self.limit} alternating ones")
        if self.agents.delivered() != self.limit:
            problems.append("the doors did not deliver exactly the letters in the ledger")
        if transcript.returncode != 0 or transcript.stdout.count(" letter ") != self.limit:
            problems.append("postbag read did not show every letter")
        spent = "postbag: the exchange's letters are spent; stop and ask the human\n"
        if (refused.returncode, refused.stderr) != (1, spent):
            problems.append("one send more was not refused with 'stop and ask the human'")
        return problems


if __name__ == "__main__":
    sys.exit(main())
