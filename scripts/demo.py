#!/usr/bin/env python3
"""Watch two simulated agents correspond through postbag, with nothing installed.

    python3 scripts/demo.py [--limit N] [--keep]

It runs dist/postbag.pyz (built first when missing or stale), the file people download.
A simulated Claude Code session listens on a real AF_UNIX inbox socket with a random
token; a simulated Codex session is reached through a fake `codex queue`. Each agent
answers only by following the envelope of the letter it received. Everything lives in a
temporary directory, removed afterwards unless --keep is given. The exit status is 0
only if the exchange went exactly as the protocol says.
"""

import argparse
import json
import os
import re
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
from unix_server import UnixServer

REPLY = re.compile(r"^(?P<command>.+ send (?P<peer>claude|codex) - )<<'POSTBAG'\n\.\.\.\nPOSTBAG\n", re.MULTILINE)
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
    """Prints the exchange as it happens, one whole block at a time."""

    def __init__(self):
        self._lock = threading.Lock()

    def __call__(self, who, text, *detail):
        with self._lock:
            print(f"{who:<6} {text}")
            for line in detail:
                for part in line.splitlines() or [""]:
                    print(f"{'':<8}{part}")
            sys.stdout.flush()


class Agent:
    """A simulated agent: it knows nothing of postbag beyond the letter in front of it."""

    def __init__(self, name, session_env, show):
        self.name, self.session_env, self.show = name, session_env, show
        self.received, self.replies, self.failures = [], [], []
        self.told_to_stop = threading.Event()
        self._answers = iter(ANSWERS[name])
        self._workers = []

    def receive(self, envelope, door):
        number = envelope.split()[1]
        self.received.append(envelope)
        self.show(self.name, f"<- letter {number}, through {door}:", *[f"| {line}" for line in envelope.split("\n")])
        if LAST in envelope.split("\n", 1)[0]:
            self.show(self.name, "   the letter says not to reply, so it does not")
            self.told_to_stop.set()
            return
        match = REPLY.search(envelope)
        if match is None:
            self.failures.append(f"letter {number} carried no reply command")
            return
        worker = threading.Thread(target=self._answer, args=(match["command"],))
        self._workers.append(worker)
        worker.start()  # the door must return at once: the sender still holds the ledger

    def _answer(self, command):
        body = next(self._answers, "Nothing more to add.")
        delimiter = _delimiter_for(body)
        script = f"{command}<<'{delimiter}'\n{body}\n{delimiter}\n"
        self.show(self.name, "$ " + script.split("\n", 1)[0], *body.split("\n"), delimiter)
        result = run_shell(script, self.session_env)
        self.replies.append(result)
        self.show(self.name, "  " + (result.stdout or result.stderr).strip())

    def finish(self):
        for worker in self._workers:
            worker.join(WAIT)


def _delimiter_for(body):
    """POSTBAG, unless that line occurs in the body, as the envelope asks."""
    delimiter, lines = "POSTBAG", set(body.split("\n"))
    while delimiter in lines:
        delimiter += "_"
    return delimiter


class ClaudeInbox:
    """A Claude Code session's inbox: a socket that takes an auth line and a user message."""

    def __init__(self, path, token, agent):
        self.path, self.token, self.agent = path, token, agent
        self.rejected = 0
        self._server = UnixServer(path, self._take)

    def _take(self, connection):
        with connection, connection.makefile("rb") as stream:
            lines = [json.loads(line) for line in stream]
        if len(lines) != 2 or lines[0] != {"type": "auth", "token": self.token}:
            self.rejected += 1
            return
        self.agent.receive(lines[1]["message"]["content"], "its inbox socket")

    def close(self):
        self._server.close()


FAKE_CODEX = """#!{python}
# A stand-in for `codex queue --thread ID --message TEXT`: it hands the message to the
# simulated Codex session listening on {socket!r} and exits 0 once that session has it.
import json, os, socket, sys
args = sys.argv[1:]
if len(args) != 5 or args[:2] != ["queue", "--thread"] or args[3] != "--message":
    sys.exit("usage: codex queue --thread ID --message TEXT")
os.chdir(os.path.dirname({socket!r}))  # a socket path may be longer than connect() takes
with socket.socket(socket.AF_UNIX) as session:
    session.connect(os.path.basename({socket!r}))
    session.sendall(json.dumps({{"thread": args[2], "message": args[4]}}).encode() + b"\\n")
    session.shutdown(socket.SHUT_WR)
    sys.exit(0 if session.recv(16) == b"queued" else 1)
"""


class CodexSession:
    """A Codex thread, reached through the fake codex binary's `queue` subcommand."""

    def __init__(self, directory, thread, agent):
        self.thread, self.agent = thread, agent
        self.socket_path = os.path.join(directory, "codex-thread.sock")
        self.binary = os.path.join(directory, "bin", "codex")
        with open(self.binary, "w") as file:
            file.write(FAKE_CODEX.format(python=sys.executable, socket=self.socket_path))
        os.chmod(self.binary, 0o755)
        self._server = UnixServer(self.socket_path, self._take)

    def _take(self, connection):
        with connection:
            request = json.loads(connection.makefile("rb").readline())
            known = request["thread"] == self.thread
            connection.sendall(b"queued" if known else b"unknown thread")
        if known:
            self.agent.receive(request["message"], "codex queue")

    def close(self):
        self._server.close()


def run_shell(script, env):
    return subprocess.run(["/bin/sh", "-c", script], env=env, capture_output=True, text=True, timeout=WAIT, check=False)


def main():
    parser = argparse.ArgumentParser(description="Two simulated agents correspond through postbag.")
    parser.add_argument("--limit", type=int, default=6, help="letters in the exchange (default 6)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary ledger and directory")
    args = parser.parse_args()
    if args.limit < 1:
        parser.error("--limit must be at least 1")
    pyz, built = build_pyz.ensure_built()
    directory = tempfile.mkdtemp(prefix="postbag-demo-")
    try:
        return Demo(pyz, directory, args.limit, built).run()
    finally:
        if args.keep:
            print(f"\nkept {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)


class Demo:
    def __init__(self, pyz, directory, limit, built):
        self.directory, self.limit, self.show = directory, limit, Show()
        self.ledger = os.path.join(directory, "ledger.jsonl")
        bin_dir = os.path.join(directory, "bin")
        os.mkdir(bin_dir)
        # People put postbag.pyz on PATH as `postbag`; `python3` is this interpreter.
        os.symlink(pyz, os.path.join(bin_dir, "postbag"))
        os.symlink(sys.executable, os.path.join(bin_dir, "python3"))
        human = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "POSTBAG_"))}
        human.update(PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), POSTBAG_LEDGER=self.ledger)
        self.human_env = human
        token, thread = secrets.token_hex(16), str(uuid.uuid4())
        claude_env = {
            **human,
            "CLAUDECODE": "1",
            "CLAUDE_CODE_MESSAGING_SOCKET": os.path.join(directory, "claude-inbox.sock"),
            "CLAUDE_CODE_MESSAGING_TOKEN": token,
        }
        codex_env = {**human, "CODEX_SESSION_ID": thread}
        self.claude = Agent("claude", claude_env, self.show)
        self.codex = Agent("codex", codex_env, self.show)
        self.inbox = ClaudeInbox(claude_env["CLAUDE_CODE_MESSAGING_SOCKET"], token, self.claude)
        self.codex_session = CodexSession(directory, thread, self.codex)
        for env in (human, claude_env, codex_env):
            env["POSTBAG_CODEX"] = self.codex_session.binary
        print("postbag demo: two simulated agents, real doors, and the postbag.pyz people download")
        print(f"  program  {pyz}{' (just built)' if built else ''}")
        print(f"  ledger   {self.ledger}\n")

    def postbag(self, who, env, *args):
        words = " ".join(shlex.quote(word) for word in args)
        result = subprocess.run(["postbag", *args], env=env, capture_output=True, text=True, timeout=WAIT, check=False)
        self.show(who, f"$ postbag {words}", (result.stdout + result.stderr).rstrip())
        return result

    def run(self):
        started = time.monotonic()
        problems = []
        steps = [
            ("human", self.human_env, ("open", "--limit", str(self.limit))),
            ("claude", self.claude.session_env, ("join", "claude")),
            ("codex", self.codex.session_env, ("join", "codex")),
        ]
        for who, env, args in steps:
            if self.postbag(who, env, *args).returncode != 0:
                problems.append(f"{who} could not run postbag {args[0]}")
        if not problems:
            first = self.postbag("claude", self.claude.session_env, "send", "codex", FIRST_LETTER)
            if first.returncode != 0:
                problems.append("the first letter was not delivered")
            else:
                problems += self.await_the_end()
        transcript = self.postbag("human", self.human_env, "read")
        refused = self.postbag("claude", self.claude.session_env, "send", "codex", "One more thing...")
        problems += self.check(transcript, refused)
        self.inbox.close()
        self.codex_session.close()
        seconds = time.monotonic() - started
        if problems:
            print("\nthe exchange went wrong:\n" + "\n".join(f"  - {p}" for p in problems))
            return 1
        print(f"\n{self.limit} letters delivered through both doors, the last one unanswered, and the next")
        print(f"send refused until the human opens another exchange. Done in {seconds:.1f} s.")
        return 0

    def await_the_end(self):
        last_reader = self.codex if self.limit % 2 else self.claude
        if not last_reader.told_to_stop.wait(WAIT):
            return [f"{last_reader.name} never received a last letter"]
        self.claude.finish()
        self.codex.finish()
        return []

    def check(self, transcript, refused):
        problems = [f for agent in (self.claude, self.codex) for f in agent.failures]
        with open(self.ledger) as ledger:
            letters = [r for r in map(json.loads, ledger) if r["kind"] == "letter"]
        expected_senders = ["claude", "codex"] * self.limit
        if [r["from"] for r in letters] != expected_senders[: self.limit]:
            problems.append(f"the ledger holds {len(letters)} letters, not {self.limit} alternating ones")
        if len(self.claude.received) + len(self.codex.received) != self.limit:
            problems.append("the doors did not deliver exactly the letters in the ledger")
        if any(r.returncode != 0 for a in (self.claude, self.codex) for r in a.replies):
            problems.append("a reply was refused")
        if self.inbox.rejected:
            problems.append("the inbox saw a connection without the session's token")
        if transcript.returncode != 0 or transcript.stdout.count(" letter ") != self.limit:
            problems.append("postbag read did not show every letter")
        spent = "postbag: the exchange's letters are spent; stop and ask the human\n"
        if (refused.returncode, refused.stderr) != (1, spent):
            problems.append("one send more was not refused with 'stop and ask the human'")
        return problems


if __name__ == "__main__":
    sys.exit(main())
