#!/usr/bin/env python3
"""Measure postbag.pyz as agents use it: start-up, send and read, on ledgers up to 100,000 records.

    python3 scripts/bench.py [--rounds N] [--against CMD]

Every case runs the built dist/postbag.pyz (built first when missing or stale) as a
subprocess, as people run it: the file itself, started by its own first lines, with this
interpreter as the python3 on PATH; against the test suite's fake doors (tests/fakes.py).
Rounds are interleaved, so a busy moment of the machine falls on every case alike; each
figure is the median, and each ratio the median of the rounds' own ratios, so that a
slow spell, which this machine has, divides itself out. --against runs every postbag
case a second time with CMD in place of the zipapp (for example a postbag 1.0.0
installed in a venv: "VENV/bin/python -I -m postbag"), in the same rounds, and prints
both figures and their ratio.

Beside the table: the codex knock's latency over its child's own run time, the peak
memory of a full read, and, when the real clients of the real-client tier are installed
(python3 tests/clients install), a send through each real door beside the fake one, and
how long a letter takes to become the recipient's turn through each (letter_to_turn).
The goals of the performance issue are checked at the end; the exit status is 1 when
one is missed, so the table cannot claim what it did not show.
"""

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import build_pyz

sys.path.insert(0, os.path.join(build_pyz.ROOT, "src"))  # for tests/clients, which reads the rooms' versions
sys.path.insert(0, os.path.join(build_pyz.ROOT, "tests"))
import clients
import fakes

from postbag.codex import files as codex_files  # the tree's: how a rollout tells a turn has ended

AT = "2026-09-08T10:02:11+02:00"
BODY = "Reviewed the parser: the date branch swallows ValueError. See 4f2a9c1."
THREAD = "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2b"
KNOCK_CHILD_SECONDS = 0.03


class Case:
    """One command to time. `against` names the case its ratio is taken against. `postbag`
    says the command is postbag's, which the --against command also runs, unless
    `ours_alone` says that one may not know it (the real doors, a verb 1.0 lacks);
    `refused` says the command must end in a refusal."""

    def __init__(self, name, argv, env, *, against=None, postbag=True, ours_alone=False, refused=False, cwd=None):  # noqa: PLR0913
        self.name, self.argv, self.env, self.against, self.cwd = name, argv, env, against, cwd
        self.postbag, self.ours_alone, self.refused = postbag, ours_alone, refused
        self.times, self.other_times = [], []

    def run(self, argv, times):
        started = time.perf_counter()
        done = subprocess.run(
            argv, env=self.env, cwd=self.cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
        )
        times.append(time.perf_counter() - started)
        stderr = done.stderr.decode(errors="replace")
        if done.returncode != self.refused or self.refused != ("stop and ask the human" in stderr):
            raise SystemExit(f"bench: {self.name!r} went wrong: {stderr.strip()}")

    @property
    def median(self):
        return statistics.median(self.times)


def ratio(times, against):
    """The median of each round's ratio: both runs of a round meet the machine alike."""
    return statistics.median(mine / theirs for mine, theirs in zip(times, against, strict=True))


def write_ledger(path, records, doors, *, rejoined=False, whose=None):
    """A ledger of `records` lines shaped like months of use: both peers joined at the start,
    then exchanges of twelve letters each, the last one open with room to spare. `rejoined`:
    both peers join again before each exchange, as sessions started with the SessionStart
    hook do, so the latest door lies near the end. `whose`: what a repository's ledger's
    joins and opens record of it (Repository.recorded), with the folder each joined from."""
    named = {} if whose is None else {"repository": whose}
    joined = {**named, "cwd": os.path.dirname(whose["path"])} if whose else {}
    joins = [
        {"kind": "join", "peer": "claude", **doors["claude"], **joined},
        {"kind": "join", "peer": "codex", **doors["codex"], **joined},
    ]
    lines = list(joins)
    while len(lines) < records - 1:
        if rejoined and len(lines) > 2:
            lines += joins
        lines.append({"kind": "open", "limit": 12, **named})
        for i in range(min(12, records - 1 - len(lines))):
            sender, recipient = ("claude", "codex") if i % 2 else ("codex", "claude")
            lines.append({"kind": "letter", "from": sender, "to": recipient, "body": BODY})
    lines = [*lines[: records - 1], {"kind": "open", "limit": 1_000_000, **named}]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as file:
        for n, record in enumerate(lines, 1):
            file.write(json.dumps({"n": n, "at": AT, **record}) + "\n")
    os.chmod(path, 0o600)
    return os.path.getsize(path)


def measure(cases, rounds, other, pb):
    for _ in range(rounds):
        for case in cases:
            case.run(case.argv, case.times)
            if other and case.postbag and not case.ours_alone:
                case.run([*other, *case.argv[len(pb) :]], case.other_times)


# Measured from a small helper: a child's peak resident size starts at its parent's.
PEAK_MEMORY = """import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"""


def peak_memory(argv, env):
    """The peak resident memory of one run, in MB."""
    helper = [sys.executable, "-I", "-S", "-c", PEAK_MEMORY, *argv]
    peak = int(subprocess.run(helper, env=env, capture_output=True, text=True, check=True).stdout)
    return peak / (1 << 20 if sys.platform == "darwin" else 1 << 10)


def from_the_pyz(pyz):
    """Make `import postbag` import the built file's: tests/clients imported the tree's."""
    for name in [name for name in sys.modules if name == "postbag" or name.startswith("postbag.")]:
        del sys.modules[name]
    sys.path.insert(0, pyz)


def knock_latency(pyz, work, rounds):
    """Median of how much longer a codex knock takes than a plain blocking run of the same
    child (one that sleeps and exits): the time from the child's exit to the knock's return."""
    from_the_pyz(pyz)
    from postbag.codex.queue import knock

    child = os.path.join(work, "slow-codex")
    with open(child, "w") as file:
        file.write(f"#!/bin/sh\nexec sleep {KNOCK_CHILD_SECONDS}\n")
    os.chmod(child, 0o755)
    env = fakes.terminal_environment(POSTBAG_CODEX=child)
    argv = [child, "queue", "--thread", THREAD, "--message", BODY]
    knocks, plain = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        knock(child, THREAD, BODY, env, resume=False)
        knocks.append(time.perf_counter() - started)
        started = time.perf_counter()
        subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
        plain.append(time.perf_counter() - started)
    return statistics.median(knocks) - statistics.median(plain)


class RealDoors:
    """A real Claude Code session and a real Codex thread, offline, for one send through each."""

    def __init__(self, work):
        # The session keeps letters out of its turns (crossSessionInbound refuse): what is
        # timed is the door, not what Claude does next.
        settings = {"crossSessionInbound": "refuse"}
        env = fakes.terminal_environment()
        agents = clients.Agent(), clients.Agent()
        self.pair = clients.Pair(work, env, *agents, claude_settings=settings, app_server=False)
        exported = self.pair.claude_variables()
        self.claude_door = {k: exported[f"CLAUDE_CODE_MESSAGING_{k.upper()}"] for k in ("socket", "token")}
        self.codex_door = {"thread": self.pair.thread}
        self.env = {k: v for k, v in self.pair.env.items() if k not in env}

    def close(self):
        self.pair.close()


def main():
    parser = argparse.ArgumentParser(description="Benchmark postbag.pyz.")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved runs of every case (default 15)")
    parser.add_argument("--against", metavar="CMD", help="another postbag command to measure beside this one")
    args = parser.parse_args()
    pyz, _ = build_pyz.ensure_built()
    work = tempfile.mkdtemp(prefix="postbag-bench-")
    try:
        return report(pyz, work, args.rounds, shlex.split(args.against) if args.against else None)
    finally:
        shutil.rmtree(work, ignore_errors=True)


FRESH_SEND, FRESH_READ, FULL_READ = "send claude, fresh ledger", "read 10, fresh ledger", "full read, 100,000 records"
SEND_10K, READ_10K = "send claude, 10,000 records", "read 10, 10,000 records"
SEND_REJOINED = "send claude, 100,000 records, rejoined"
SEND_10K_REJOINED = "send claude, 10,000 records, rejoined"
REFUSED = "postbag open, refused in a session"
START, FLOOR = "python3 -c pass", "floor: python3 -I -S, one fsynced append"
# The agents' verbs against the floor: the bare interpreter as the launcher starts it,
# postbag's quickest answer, and what a send to Claude's door cannot help doing.
BARE, VERSION, SEND_CODEX = "python3 -I -S -c pass", "postbag --version", "send codex, fresh ledger"
SEND_FLOOR = "floor: python3 -I -S, a socket write and an fsynced append"
JOIN_CLAUDE, JOIN_CODEX, FRESH_FULL_READ = "join claude", "join codex", "read, fresh ledger"
RECEIPTS = "receipts, fresh ledger"
REJOINED, REJOINED_10K = "100,000 rejoined", "10,000 rejoined"
# The same verbs with no POSTBAG_LEDGER, run in a folder eight deep in a git repository:
# what finding the repository, and so its ledger, adds.
IN_A_REPOSITORY = "a repository's, 8 folders deep"
REPO_SEND, REPO_READ = f"send claude, {IN_A_REPOSITORY}", f"read 10, {IN_A_REPOSITORY}"
DEEP = ("a", "b", "c", "d", "e", "f", "g", "h")


def report(pyz, work, rounds, other):
    inbox = fakes.FakeInbox(os.path.join(work, "inbox.sock"), "bench-token", mode="discard")
    codex = fakes.FakeCodex(os.path.join(work, "codex"), THREAD)
    real = RealDoors(work) if clients.missing() is None else None
    try:
        cases, size = cases_for([pyz], work, inbox, codex, real)
        print(f"postbag.pyz {os.path.getsize(pyz):,} bytes; Python {sys.version.split()[0]} on {sys.platform}")
        print(f"ledgers: 100,000 records = {size / 1e6:.1f} MB; {rounds} interleaved rounds, medians\n")
        measure(cases, rounds, other, [pyz])
        through_real_doors = real is not None
        if real:  # idle clients still keep a core busy now and then: none runs beside what follows
            real.close()
            real = None
        verdicts = tabulate(cases, through_real_doors)
        verdicts += against_the_floor(cases)
        finding_the_ledger(work, max(rounds, 101))
        checking_whose_it_is(work, max(rounds, 21))
        verdicts += editing_the_settings(work, rounds)
        verdicts += beside_the_table(cases, pyz, work, rounds, size)
        verdicts += through_the_mcp_server(cases, pyz, work, inbox)
        verdicts += asking_for_receipts(pyz, work, rounds)
        verdicts += opening_with_doors_to_read(pyz, work, rounds)
        devices(pyz, work, rounds)
        if through_real_doors:
            verdicts += letter_to_turn(pyz, work)
        if other:
            verdicts += against_table(cases, other)
    finally:
        inbox.close()
        if real:
            real.close()
    print()
    for goal, value, bound in verdicts:
        print(f"{'met   ' if value <= bound else 'MISSED'} {goal}: {value:.2f}")
    return 0 if all(value <= bound for _, value, bound in verdicts) else 1


def cases_for(pb, work, inbox, codex, real):
    """Every case, and the size of the 100,000-record ledger."""
    python = sys.executable
    path = fakes.path_with_python3(os.path.join(work, "bin"), python)
    home = os.path.join(work, "home")  # a home of the benchmark's own: a person's Claude settings are theirs
    os.makedirs(home)
    base = fakes.terminal_environment(POSTBAG_CODEX=codex.path, PATH=path, HOME=home)
    fake_doors = {"claude": {"socket": inbox.path, "token": inbox.token}, "codex": {"thread": THREAD}}
    ledgers = {records: os.path.join(work, f"ledger-{records}.jsonl") for records in (3, 10_000, 100_000)}
    sizes = {records: write_ledger(path, records, fake_doors) for records, path in ledgers.items()}
    for name, records in ((REJOINED, 100_000), (REJOINED_10K, 10_000)):
        ledgers[name] = os.path.join(work, f"ledger-{records}-rejoined.jsonl")
        write_ledger(ledgers[name], records, fake_doors, rejoined=True)

    def env(records, **extra):
        return {**base, "POSTBAG_LEDGER": ledgers[records], **extra}

    deep = in_a_repository(work, base, fake_doors)

    # CODEX_SESSION_ID: the variable 1.0 knew, so that --against 1.0.0 runs the same cases
    in_codex, in_claude = {"CODEX_SESSION_ID": THREAD}, {"CLAUDECODE": "1", **inbox.session_env()}
    line = (json.dumps({"n": 1, "at": AT, "body": BODY}) + "\n").encode()
    floor = (
        f"import os; fd = os.open({os.path.join(work, 'floor.jsonl')!r}, os.O_WRONLY | os.O_APPEND | os.O_CREAT, "
        f"0o600); os.write(fd, {line!r}); os.fsync(fd)"
    )
    knock = f"from _socket import socket, AF_UNIX; s = socket(AF_UNIX); s.connect({inbox.path!r}); s.sendall({line!r})"
    parse_once = f"import json\nfor line in open({ledgers[100_000]!r}, 'rb'): json.loads(line)"
    send_claude, read_10 = [*pb, "send", "claude", BODY], [*pb, "read", "10"]
    cases = [
        Case(START, [python, "-c", "pass"], base, postbag=False),
        Case(BARE, [python, "-I", "-S", "-c", "pass"], base, postbag=False),
        Case(FLOOR, [python, "-I", "-S", "-c", floor], base, against=START, postbag=False),
        Case(SEND_FLOOR, [python, "-I", "-S", "-c", f"{knock}\n{floor}"], base, against=BARE, postbag=False),
        Case(VERSION, [*pb, "--version"], base, against=START),
        Case(REFUSED, [*pb, "open"], {**base, **in_codex}, against=START, refused=True),
        Case(FRESH_SEND, send_claude, env(3, **in_codex), against=START),
        Case(SEND_10K, send_claude, env(10_000, **in_codex), against=FRESH_SEND),
        Case(SEND_10K_REJOINED, send_claude, env(REJOINED_10K, **in_codex), against=FRESH_SEND),
        Case("send claude, 100,000 records", send_claude, env(100_000, **in_codex), against=FRESH_SEND),
        Case(SEND_REJOINED, send_claude, env(REJOINED, **in_codex), against=FRESH_SEND),
        Case(SEND_CODEX, [*pb, "send", "codex", BODY], env(3, **in_claude), against=FRESH_SEND),
        Case(JOIN_CLAUDE, [*pb, "join", "claude"], env(3, **in_claude), against=VERSION),
        Case(JOIN_CODEX, [*pb, "join", "codex"], env(3, **in_codex), against=VERSION),
        Case(REPO_SEND, send_claude, {**base, **in_codex}, against=FRESH_SEND, cwd=deep, ours_alone=True),
        Case(FRESH_READ, read_10, env(3)),
        Case(REPO_READ, read_10, base, against=FRESH_READ, cwd=deep, ours_alone=True),
        Case(FRESH_FULL_READ, [*pb, "read"], env(3), against=VERSION),
        Case(RECEIPTS, [*pb, "receipts"], env(3, **in_codex), against=VERSION, ours_alone=True),
        Case(READ_10K, read_10, env(10_000), against=FRESH_READ),
        Case("read 10, 100,000 records", read_10, env(100_000), against=FRESH_READ),
        Case(FULL_READ, [*pb, "read"], env(100_000), against="python3: json.loads every line"),
        Case("python3: json.loads every line", [python, "-c", parse_once], base, postbag=False),
    ]
    if real:
        real_ledger = os.path.join(work, "real", "ledger.jsonl")
        write_ledger(real_ledger, 3, {"claude": real.claude_door, "codex": real.codex_door})
        real_env = {**base, **real.env, "POSTBAG_LEDGER": real_ledger}
        # Each send comes from the session joined for its side: only it may send for it.
        from_codex = {"CODEX_SESSION_ID": real.codex_door["thread"]}
        exported = {f"CLAUDE_CODE_MESSAGING_{name.upper()}": value for name, value in real.claude_door.items()}
        from_claude = {"CLAUDECODE": "1", **exported}
        cases += [
            Case(
                "send claude, real Claude Code door",
                send_claude,
                {**real_env, **from_codex},
                against=FRESH_SEND,
                ours_alone=True,
            ),
            Case(
                "send codex, real codex queue door",
                [*pb, "send", "codex", BODY],
                {**real_env, **from_claude},
                against=SEND_CODEX,
                ours_alone=True,
            ),
        ]
    return cases, sizes[100_000]


def in_a_repository(work, base, doors):
    """A git repository whose ledger holds three records, as a fresh one does, for the
    environment `base` (which names no ledger); a folder eight deep in it."""
    from postbag.here import Here
    from postbag.location import locate

    repository = os.path.join(work, "repository")
    deep = os.path.join(repository, *DEEP)
    os.makedirs(deep)
    subprocess.run(["git", "init", "--quiet", repository], check=True)
    found = locate(Here(base, repository))
    write_ledger(found.path, 3, doors, whose=found.repository.recorded())
    return deep


# Each device of docs/performance.md that departs from plain code, and how its gain is
# measured: the plain way's cost over the device's, each a fresh interpreter started as the
# launcher starts one (-I -S), so that the milliseconds are a command's. Where the plain
# way is a module of the standard library, the code is its import beside the device's own;
# the compiled code is measured on a read instead.
DEVICES = (
    ("json's accelerator (_json), not the json package", "import json", "import _json"),
    ("signal's C half (_signal), not signal", "import signal", "import _signal"),
    ("socket's C half (_socket), not socket, in a send to Claude", "import socket", "import _socket"),
    ("the magic number from the import system, not importlib.util", "import importlib.util", "pass"),
    ("ModuleSpec from the import system, not importlib.machinery", "import importlib.machinery", "pass"),
    ("posix.environ, not os.environ, for a refused human's verb", "import os; os.environ", "import posix"),
    ("a shell word quoted by hand, not shlex.quote", "import shlex", "pass"),
    ("a program found on PATH by hand, not shutil.which", "import shutil", "pass"),
    ("a UUID checked and made by hand, not the uuid module", "import uuid", "pass"),
    ("plain words read without argparse", "import argparse", "pass"),
    ("folders listed, not globbed, for transcripts", "import glob", "pass"),
    ("codex's words read without re", "import re", "pass"),
)


def devices(pyz, work, rounds):
    """The gain of each device over the plain way, in milliseconds: printed, and returned."""
    python = sys.executable
    bare = [python, "-I", "-S", "-c"]
    timed = {}
    plain_archive = os.path.join(work, "without-compiled-code.pyz")
    _without_compiled_code(pyz, plain_archive)
    env = fakes.terminal_environment(
        PATH=fakes.path_with_python3(os.path.join(work, "devices-bin"), python), HOME=os.path.join(work, "home")
    )
    env["POSTBAG_LEDGER"] = os.path.join(work, "ledger-3.jsonl")
    pairs = {name: ([*bare, plain], [*bare, device]) for name, plain, device in DEVICES}
    pairs["the compiled code, not the sources as a Python it has none for runs them (read 10)"] = (
        [plain_archive, "read", "10"],
        [pyz, "read", "10"],
    )
    for name in pairs:
        timed[name] = ([], [])
    for _ in range(rounds):
        for name, (plain, device) in pairs.items():
            for argv, times in ((plain, timed[name][0]), (device, timed[name][1])):
                started = time.perf_counter()
                subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
                times.append(time.perf_counter() - started)
    print(f"\nthe devices that depart from plain code, and what each saves (medians of {rounds}):")
    gains = {}
    for name, (plain, device) in timed.items():
        gains[name] = statistics.median(p - d for p, d in zip(plain, device, strict=True)) * 1000
        print(f"  {name:<84} {gains[name]:5.1f} ms")
    return gains


def _without_compiled_code(pyz, target):
    """A copy of `pyz` without its compiled entries, its launcher kept: the plain zipapp's sources alone."""
    import zipfile

    with open(pyz, "rb") as file:
        data = file.read()
    with zipfile.ZipFile(pyz) as source, open(target, "wb") as out:
        out.write(data[: source.infolist()[0].header_offset])
        with zipfile.ZipFile(out, "w") as copy:
            for info in source.infolist():
                if not info.filename.startswith(build_pyz.COMPILED):
                    copy.writestr(info, source.read(info))
    os.chmod(target, 0o755)


def finding_the_ledger(work, rounds):
    """What finding the ledger costs, in the process, from folders of each kind: outside any
    repository (the walk goes up to /), at a repository's top, eight folders deep in it,
    and in a worktree, whose `.git` file and `commondir` are read."""
    from postbag.here import Here
    from postbag.location import locate

    repository = os.path.join(work, "repository")
    worktree = os.path.join(work, "worktree")
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "-C", repository, "commit", "--quiet", "--allow-empty", "-m", "x"], check=True)
    subprocess.run([*git, "-C", repository, "worktree", "add", "--quiet", worktree], check=True)
    places = {
        "outside any repository": os.path.join(work, "bin"),
        "a repository's top": repository,
        "8 folders deep in it": os.path.join(repository, *DEEP),
        "a worktree of it": worktree,
        "POSTBAG_LEDGER set": repository,
    }
    env = {"HOME": os.path.join(work, "home")}
    print(f"\nfinding the ledger, in the process (the first of each folder's lookups excluded), medians of {rounds}:")
    for name, folder in places.items():
        here = Here({**env, "POSTBAG_LEDGER": "/l.jsonl"} if name == "POSTBAG_LEDGER set" else env, folder)
        locate(here)
        took = []
        for _ in range(rounds):
            started = time.perf_counter()
            locate(here)
            took.append(time.perf_counter() - started)
        print(f"  {name:<28} {statistics.median(took) * 1e6:7.1f} us")


def checking_whose_it_is(work, rounds):
    """What holding a repository's ledger to its repository costs, in the process: opening
    it with the check (the latest record that names a repository, looked for from the end)
    and without, on ledgers of 3, 10,000 and 100,000 records of twelve-letter exchanges,
    each of whose opens names it."""
    from postbag.here import Here
    from postbag.ledger import Ledger
    from postbag.location import locate

    found = locate(Here({"HOME": os.path.join(work, "home")}, os.path.join(work, "repository"))).repository
    doors = {"claude": {"socket": "/tmp/inbox.sock", "token": "t" * 32}, "codex": {"thread": THREAD}}
    print(f"\nholding a repository's ledger to its repository, in the process, medians of {rounds}:")
    for records in (3, 10_000, 100_000):
        path = os.path.join(work, f"whose-{records}.jsonl")
        write_ledger(path, records, doors, whose=found.recorded())
        took = {}
        for serves in (None, found):
            times = []
            for _ in range(rounds):
                started = time.perf_counter()
                with Ledger(path, serves=serves):
                    pass
                times.append(time.perf_counter() - started)
            took[serves is not None] = statistics.median(times)
        opening, checking = took[False] * 1e6, (took[True] - took[False]) * 1e6
        print(f"  {records:>7,} records: {opening:7.1f} us to open, {checking:6.1f} us more to check")


def editing_the_settings(work, rounds):
    """What setup and --remove cost on a person's settings.json, in the process: adding the
    rule to a one-line file of many small arrays of 250 KB and of 1 MB (linear, or 1 MB
    costs far more than four times 250 KB), and taking it out of a file whose allow list
    holds 1,000 rules, where the file is as setup left it and where the person changed it
    since."""
    from postbag.claude import permission

    folder = os.path.join(work, "claude-settings")
    os.makedirs(folder)
    path = os.path.join(folder, "settings.json")

    def one_line(size):
        return ('{"a": [' + ",".join(["[1, 2]"] * ((size - 20) // 8)) + "]}").encode()

    rules = '{"permissions": {"allow": [' + ", ".join(f'"Read(src/{n}.py)"' for n in range(1000)) + "]}}"

    def setting(data):
        def once():
            with open(path, "wb") as file:
                file.write(data)
            started = time.perf_counter()
            permission.change(path, removing=False).make()
            return time.perf_counter() - started

        return once

    def removing(data):
        def once():
            for name in os.listdir(folder):
                os.unlink(os.path.join(folder, name))
            with open(path, "wb") as file:
                file.write(data)
            permission.change(path, removing=False).make()
            started = time.perf_counter()
            permission.change(path, removing=True).make()
            return time.perf_counter() - started

        return once

    timed = {
        "setup adds the rule to a one-line file of 250 KB": setting(one_line(250_000)),
        "setup adds the rule to a one-line file of 1 MB": setting(one_line(1_000_000)),
        "remove gives back a file of 1,000 rules, as setup left it": removing(rules.encode()),
    }
    print(f"\nsetup's edit of settings.json, in the process, medians of {min(rounds, 7)}:")
    medians = {}
    for name, once in timed.items():
        medians[name] = statistics.median(once() for _ in range(min(rounds, 7))) * 1000
        print(f"  {name:<62} {medians[name]:8.1f} ms")
    small, large = (medians[name] for name in list(timed)[:2])
    return [("setup's edit of 1 MB within 5 x its edit of 250 KB", large / small, 5.0)]


def tabulate(cases, through_real_doors):
    """Print every case and its ratio; the goals the ratios decide."""
    by_name = {case.name: case for case in cases}
    width = max(len(case.name) for case in cases) + 2
    print(f"{'case':<{width}}  {'median':>9}  ratio")
    for case in cases:
        against = f"{ratio(case.times, by_name[case.against].times):5.2f} x {case.against}" if case.against else ""
        print(f"{case.name:<{width}}  {case.median * 1000:7.1f} ms  {against}")
    if through_real_doors:
        versions = ", ".join(f"{name}@{clients.installed_version(name)}" for name, _ in clients.PINS.values())
        print(f"(real doors: {versions}; codex queue through nsenter into a loopback-only namespace)")
    ratios = [
        ("--version within 1.05 x python3 -c pass", VERSION, 1.05),
        ("a refusal within 1.05 x python3 -c pass", REFUSED, 1.05),
    ]
    # What a ledger's length adds, in ms: the bounds that 1.1 x and 1.2 x a fresh command
    # allowed when a fresh one cost 44 to 48 ms, kept as they were when it fell by half.
    added = [
        ("a ledger of 10,000 records adds under 4 ms to a send", SEND_10K, 4.0),
        ("a ledger of 10,000 records adds under 4 ms to read 10", READ_10K, 4.0),
        ("a ledger of 100,000 records adds under 8 ms to read 10", "read 10, 100,000 records", 8.0),
    ]
    return [
        (goal, ratio(by_name[name].times, by_name[by_name[name].against].times), bound) for goal, name, bound in ratios
    ] + [(goal, adds(by_name[name].times, by_name[by_name[name].against].times), bound) for goal, name, bound in added]


def adds(times, against):
    """The median of each round's difference, in ms."""
    return statistics.median(mine - theirs for mine, theirs in zip(times, against, strict=True)) * 1000


def against_the_floor(cases):
    """The agents' verbs, each beside postbag --version and the bare interpreter of the same
    rounds; and the goals of the floor."""
    by_name = {case.name: case for case in cases}
    version, bare = by_name[VERSION].times, by_name[BARE].times
    verbs = [VERSION, JOIN_CLAUDE, JOIN_CODEX, FRESH_SEND, REPO_SEND, SEND_CODEX, FRESH_FULL_READ, FRESH_READ]
    verbs += [REPO_READ, RECEIPTS]
    print(f"\nthe agents' verbs against the floor, {BARE} {statistics.median(bare) * 1000:.1f} ms:")
    print(f"  {'verb, on a fresh ledger':<28} {'median':>9}  {'x --version':>11}  {'x bare':>6}")
    for name in verbs:
        times = by_name[name].times
        shown = name.removesuffix(", fresh ledger").replace(IN_A_REPOSITORY, "in a repository")
        median, against = statistics.median(times) * 1000, f"{ratio(times, version):11.2f}  {ratio(times, bare):6.2f}"
        print(f"  {shown:<28} {median:6.1f} ms  {against}")
    # A send to Claude may take, beyond 1.5 x --version, what its door and its ledger cost
    # any program: a socket write and an fsynced append, over the bare interpreter's start.
    unavoidable = [floor - start for floor, start in zip(by_name[SEND_FLOOR].times, bare, strict=True)]
    beyond = [send - cost for send, cost in zip(by_name[FRESH_SEND].times, unavoidable, strict=True)]
    print(f"  (a socket write and an fsynced append cost any program {statistics.median(unavoidable) * 1000:.1f} ms)")
    beyond_in_a_repository = [send - cost for send, cost in zip(by_name[REPO_SEND].times, unavoidable, strict=True)]
    return [
        ("read 10 within 1.5 x --version", ratio(by_name[FRESH_READ].times, version), 1.5),
        ("a send to Claude, less its socket write and fsync, within 1.5 x --version", ratio(beyond, version), 1.5),
        # 1.3 until the launcher read the archive through zipimport and checked the code's
        # CRC, which cost --version about 1.3 ms: docs/performance.md shows the trade.
        ("--version within 1.5 x the bare interpreter", ratio(version, bare), 1.5),
        ("read 10 in a repository's ledger within 1.5 x --version", ratio(by_name[REPO_READ].times, version), 1.5),
        (
            "a send to Claude in a repository, less its socket write and fsync, within 1.5 x --version",
            ratio(beyond_in_a_repository, version),
            1.5,
        ),
        (
            "finding a repository's ledger adds under 1 ms to read 10",
            adds(by_name[REPO_READ].times, by_name[FRESH_READ].times),
            1.0,
        ),
    ]


def beside_the_table(cases, pyz, work, rounds, size):
    by_name = {case.name: case for case in cases}
    over = (by_name[FRESH_SEND].median - by_name[FLOOR].median) * 1000
    print(f"\na fresh send costs {over:.1f} ms over the floor (stretch goal: under 10 ms beyond the door itself)")
    latency = knock_latency(pyz, work, rounds)
    child = KNOCK_CHILD_SECONDS * 1000
    print(f"codex knock returns {latency * 1000:.1f} ms after its child exits (the child runs {child:.0f} ms)")
    memory = peak_memory(by_name[FULL_READ].argv, by_name[FULL_READ].env)
    print(f"peak memory of a full read at 100,000 records: {memory:.1f} MB (the ledger is {size / 1e6:.1f} MB)")
    return [("the codex knock within 2 ms of its child's exit", latency * 1000, 2.0)]


MCP_CALLS = 200  # timed calls of each kind and ledger through one running server
MCP_LONG_LIFE = 10_000  # calls made before its memory is measured again


def through_the_mcp_server(cases, pyz, work, inbox):
    """A send (to the fake Claude inbox: no child process) and `read 10` through one running
    `postbag mcp`, on a fresh ledger and on 10,000 records: each call's own cost, from the
    request written to the reply read, the ledger put back as it was before each call (200
    sends would otherwise make one exchange of 200 letters, which no human grants); and the
    server's peak memory after 10 calls and after 10,000, sends, reads and status lines in
    turn."""
    from rawmcp import RawServer

    by_name = {case.name: case for case in cases}
    meta = {"threadId": THREAD}
    send, read_10 = ("send", {"text": BODY}, meta), ("read", {"count": 10})
    # Each ledger, and the calls timed on it, each beside the command line's case that does
    # the same work there (whose ledger the server gets a copy of). A read does not look for
    # doors: it is timed on 10,000 records once, whoever rejoined.
    ledgers = {
        "fresh ledger": [("send", send, FRESH_SEND), ("read 10", read_10, FRESH_READ)],
        "10,000 records": [("send", send, SEND_10K), ("read 10", read_10, READ_10K)],
        "10,000 records, rejoined": [("send", send, SEND_10K_REJOINED)],
    }
    times, peaks = {}, {}  # the name of a call and ledger: (its median, the command line's case)
    print(f"\nthrough the MCP server, one running server, medians of {MCP_CALLS} calls each:")
    for label, calls in ledgers.items():
        copy = os.path.join(work, f"mcp-{len(times)}.jsonl")
        ledger_env = by_name[calls[0][2]].env
        shutil.copyfile(ledger_env["POSTBAG_LEDGER"], copy)  # the CLI's ledgers stay as they were
        server = RawServer([sys.executable, "-c", UNPACED_SERVER, pyz], {**ledger_env, "POSTBAG_LEDGER": copy})
        try:
            server.handshake()
            server.tool("join", meta=meta)
            joined = copy + ".joined"
            shutil.copyfile(copy, joined)
            for kind, call, cli in calls:
                elapsed = []
                for _ in range(MCP_CALLS):
                    put_back(joined, copy)
                    started = time.perf_counter()
                    text, error = server.tool(*call)
                    elapsed.append(time.perf_counter() - started)
                    if error:
                        raise SystemExit(f"bench: the MCP {kind} went wrong: {text}")
                times[f"{kind}, {label}"] = (statistics.median(elapsed), by_name[cli])
            if not peaks:
                peaks = server_memory_over_a_long_life(server, meta)
        finally:
            server.close()
    for name, (median, cli) in times.items():
        print(f"  {name:<34} {median * 1000:6.2f} ms   (the command line: {cli.median * 1000:.1f} ms)")
    verdicts = [(f"an MCP {name} under 5 ms", median * 1000, 5.0) for name, (median, _) in times.items()]
    if peaks:
        after, last = peaks[10], peaks[MCP_LONG_LIFE]
        print(f"  peak memory of the server after 10 calls {after:.1f} MB, after {MCP_LONG_LIFE:,} {last:.1f} MB")
        goal = f"the server's peak memory after {MCP_LONG_LIFE:,} calls within 1.5 x after 10"
        verdicts.append((goal, last / after, 1.5))
    return verdicts


# The built file's server, but for the pace a process keeps to Claude's inbox (30 letters at
# once, then one about every 2.2 s): that is Claude's rate, not postbag's cost, and 200 sends
# through one server would time it alone.
UNPACED_SERVER = """import sys
sys.path.insert(0, sys.argv[1])
import postbag.__main__
postbag.__main__._load_compiled_code()
from postbag.claude import inbox
inbox.Throttle.wait = lambda self: None
sys.exit(postbag.__main__.run(["mcp"]))"""


def put_back(saved, path):
    """The ledger at `path` as it was when `saved`, on disk: a send's fsync must not pay for
    writing back a file it did not write."""
    shutil.copyfile(saved, path)
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def server_memory_over_a_long_life(server, meta):
    """The server's peak resident memory, in MB, after 10 calls and after MCP_LONG_LIFE,
    sends, reads and status lines in turn; {} where /proc cannot tell (not Linux)."""
    calls = [("send", {"text": BODY}, meta), ("read", {"count": 10}), ("status", {})]
    peaks, made = {}, 0
    for checkpoint in (10, MCP_LONG_LIFE):
        while made < checkpoint:
            server.tool(*calls[made % len(calls)])
            made += 1
        try:
            with open(f"/proc/{server.process.pid}/status") as status:
                peak = next(line for line in status if line.startswith("VmHWM:"))
        except OSError:
            return {}
        peaks[checkpoint] = int(peak.split()[1]) / 1024
    return peaks


BIG_RECORDS = 100 << 20  # bytes of a long session's transcript, and of a long thread's rollout
FILLER = (
    "the parser drops the error when the date branch raises; review each branch of src and its tests, "
    "then reply with the top finding and a fix that keeps the old behaviour for valid input"
)
SESSION = "0b43d9fc-7de4-4289-977d-ce8d8cea3cd1"


def asking_for_receipts(pyz, work, rounds):
    """The cost of a receipt, in-process, on a Claude transcript and a Codex rollout of 100
    MB each whose letter lies at the end, as for a letter just sent; and what a send's
    check of the recipient's records at once costs it, with settings, live sessions and a
    thread's writer lock where a user has them."""
    from_the_pyz(pyz)
    from postbag import vendors as rooms
    from postbag.here import Here

    home = os.path.join(work, "receipts-home")
    env = {"HOME": home, "CODEX_HOME": os.path.join(home, ".codex")}
    at = "2026-12-02T02:30:41+00:00"
    to_claude = {"n": 9, "at": at, "from": "codex", "to": "claude", "body": BODY}
    to_codex = {"n": 10, "at": at, "from": "claude", "to": "codex", "body": BODY}
    claude_join, codex_join = {"peer": "claude", "session": SESSION}, {"peer": "codex", "thread": THREAD}
    envelope = "Letter {n} from {from} via postbag. It is the last letter of the exchange; do not reply.\n\n{body}"
    transcript = os.path.join(home, ".claude", "projects", "-work-repo", f"{SESSION}.jsonl")
    taken = {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-12-02T02:30:42.000Z"}
    prompt = {"type": "user", "permissionMode": "default", "timestamp": "2026-12-02T01:00:00.000Z"}
    write_long_records(transcript, {**taken, "content": envelope.format(**to_claude)}, first=prompt)
    rollout = f"{home}/.codex/sessions/2026/12/02/rollout-2026-12-02T00-00-00-{THREAD}.jsonl"
    said = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": envelope.format(**to_codex)}]}
    write_long_records(rollout, {"timestamp": "2026-12-02T02:30:42.000Z", "type": "response_item", "payload": said})
    os.makedirs(os.path.join(home, ".claude", "sessions"))
    with open(os.path.join(home, ".claude", "sessions", f"{os.getpid()}.json"), "w") as file:
        json.dump({"pid": os.getpid(), "sessionId": SESSION, "cwd": work}, file)
    with open(os.path.join(home, ".claude", "settings.json"), "w") as file:
        # crossSessionInbound unset: the session's permission class decides, and the latest
        # turn's mode lies 100 MB back, at the start of one long turn: a send reads back as
        # far as it ever does.
        json.dump({"permissions": {"allow": ["mcp__postbag"]}}, file)
    os.makedirs(os.path.join(home, ".codex", "thread-writer-locks"))
    with open(os.path.join(home, ".codex", "thread-writer-locks", f"{THREAD}.lock"), "w"):
        pass

    def in_process(call):
        def once():
            started = time.perf_counter()
            call()
            return time.perf_counter() - started

        return once

    def as_a_send_checks(letter, joined, part):
        return lambda: at_once_in_a_fresh_process(pyz, letter, joined, env, work)[part]

    here = Here(env, work, for_a_child=rooms.for_a_child)
    # (what is timed, one timed run, its bound in ms)
    timed = [
        (
            "a receipt, letter at the end of a 100 MB Claude transcript",
            in_process(lambda: rooms.room("claude", here).receipt(to_claude, claude_join)),
            50.0,
        ),
        (
            "a receipt, letter at the end of a 100 MB Codex rollout",
            in_process(lambda: rooms.room("codex", here).receipt(to_codex, codex_join)),
            50.0,
        ),
        (
            "a send's check of Claude's records, its latest prompt 100 MB back",
            as_a_send_checks(to_claude, claude_join, WHOLE),
            30.0,
        ),
        ("a send's look at Codex's records before its knock", as_a_send_checks(to_codex, codex_join, BEFORE), 10.0),
        ("the same, with what it reads beside the knock", as_a_send_checks(to_codex, codex_join, WHOLE), 30.0),
    ]
    print(f"\nreceipts, medians of {rounds} rounds (a send's check in a fresh process, its imports included):")
    verdicts = []
    for name, once, bound in timed:
        median = statistics.median(once() for _ in range(rounds)) * 1000
        print(f"  {name:<58} {median:6.2f} ms")
        verdicts.append((f"{name} under {bound:g} ms", median, bound))
    return verdicts


def opening_with_doors_to_read(pyz, work, rounds):
    """What `open` adds to say of both joined doors whether each can take a letter: a live
    Claude session, and a Codex thread nobody has loaded with a 3 MB rollout, whose policy
    and daemon it reads; against an open that nobody has joined."""
    home = os.path.join(work, "open-home")
    rollout = os.path.join(home, ".codex", "sessions", "2026", "12", "03", f"rollout-2026-12-03T00-00-{THREAD}.jsonl")
    settings = {"type": "thread_settings_applied", "thread_settings": {"approval_policy": "never"}}
    write_long_records(rollout, {"type": "event_msg", "payload": settings}, size=0)
    with open(rollout, "a") as file:  # the turn since, 3 MB of it
        line = json.dumps({"type": "response_item", "payload": {"type": "message", "text": "x" * 900}}) + "\n"
        file.write(line * 3000)
    os.makedirs(os.path.join(home, ".codex", "thread-writer-locks"))
    open(os.path.join(home, ".codex", "thread-writer-locks", f"{THREAD}.lock"), "w").close()
    os.makedirs(os.path.join(home, ".claude", "sessions"))
    with open(os.path.join(home, ".claude", "sessions", f"{os.getpid()}.json"), "w") as file:
        json.dump({"pid": os.getpid(), "sessionId": SESSION, "cwd": work}, file)
    path = os.path.join(work, "open-bag", "ledger.jsonl")
    os.makedirs(os.path.dirname(path), mode=0o700)
    env = fakes.terminal_environment(HOME=home, POSTBAG_LEDGER=path)
    joins = [
        {"kind": "join", "peer": "claude", "socket": "/tmp/bench.sock", "token": "bench", "session": SESSION},
        {"kind": "join", "peer": "codex", "thread": THREAD},
    ]
    times = {"joined": [], "none": []}
    for _ in range(rounds):
        for case, records in (("joined", joins), ("none", [])):
            with open(path, "w") as file:
                file.writelines(json.dumps({"n": n, "at": AT, **r}) + "\n" for n, r in enumerate(records, 1))
            os.chmod(path, 0o600)
            started = time.perf_counter()
            subprocess.run([sys.executable, pyz, "open", "3"], env=env, capture_output=True, check=True)
            times[case].append(time.perf_counter() - started)
    joined, none = (statistics.median(times[case]) * 1000 for case in ("joined", "none"))
    print(f"\nopen, medians of {rounds} rounds:")
    print(f"  {'open, nobody joined':<58} {none:6.1f} ms")
    print(f"  {'open, saying of both doors whether each takes a letter':<58} {joined:6.1f} ms")
    return [("what open adds to read both doors, under 50 ms", joined - none, 50.0)]


# What a send has loaded by the time it looks: the command line, the verbs, the recipient's room.
AT_ONCE = """import json, socket, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
import postbag.__main__
postbag.__main__._load_compiled_code()  # as the launcher has it: the archive's compiled modules
from postbag import cli, verbs
from postbag import vendors as rooms
from postbag.here import Here
letter, joined, env = map(json.loads, sys.argv[2:5])
rooms.room_class(letter["to"])
started = time.perf_counter()
post = rooms.room(letter["to"], Here(env, sys.argv[5], for_a_child=rooms.for_a_child)).delivery(joined)
before = time.perf_counter() - started
post.finish()
post.note(letter)
print(before, time.perf_counter() - started)"""
BEFORE, WHOLE = 0, 1  # what it printed: the time until the knock could start, and until all was read


def at_once_in_a_fresh_process(pyz, letter, joined, env, cwd):
    """What the check costs a send: in a process of its own, as a send runs it, imports included."""
    argv = [sys.executable, "-I", "-S", "-c", AT_ONCE, pyz, *map(json.dumps, (letter, joined, env)), cwd]
    return [float(t) for t in subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()]


def write_long_records(path, last, size=BIG_RECORDS, first=None):
    """A JSON Lines file of `first` (where given), about `size` bytes of records an hour
    old, then `last`."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # Prose, as sessions write it: a run of one letter would make the search for a needle
    # that holds that letter (turn_context's x) eight times slower than real text does.
    text = (FILLER + " ") * 5
    filler = json.dumps({"timestamp": "2026-12-02T01:30:00.000Z", "type": "attachment", "text": text}) + "\n"
    with open(path, "w") as file:
        file.write("" if first is None else json.dumps(first) + "\n")
        file.write(filler * (size // len(filler)))
        file.write(json.dumps(last) + "\n")


TURN_ROUNDS, WOKEN_ROUNDS = 5, 3
BUSY_SECONDS = 2.0  # how long a busy recipient's running turn goes on working after the send


def letter_to_turn(pyz, work):
    """How long a letter takes to become the recipient's turn, on the real clients: from the
    start of `send` to the moment the recipient's model is asked with the letter in view
    (the stand-in notes when each call arrives). For an idle session; for a busy one, whose
    turn works BUSY_SECONDS more and holds the letter back, counted from that turn's end;
    and for a Codex thread nobody had loaded, woken through Codex's daemon. Each letter is
    the last of its exchange, which no agent answers."""
    directory = os.path.join(work, "turns")
    env = fakes.terminal_environment(PATH=fakes.path_with_python3(os.path.join(directory, "bin")))
    pair = clients.Pair(directory, env, clients.Agent(), clients.Agent())
    base = {**pair.env, "POSTBAG_LEDGER": os.path.join(directory, "ledger.jsonl")}
    in_claude, in_codex = {"CLAUDECODE": "1", **pair.claude_variables()}, {"CODEX_THREAD_ID": pair.thread}

    def run(*args, inside=None):
        subprocess.run([pyz, *args], env={**base, **(inside or {})}, capture_output=True, check=True)

    def one(peer, model, sender, busy=None):
        run("open", "1")
        marker = f"letter-{len(model.requests)}-{time.monotonic_ns()}"
        if busy is not None:
            model.hold, asked = BUSY_SECONDS, len(model.arrivals)
            busy("Work on the parser for a while.")
            _wait(lambda: len(model.arrivals) > asked, "the busy turn")
        start, seen = time.monotonic(), len(model.requests)
        run("send", peer, marker, inside=sender)
        found = _wait(lambda: _asked_with(model, marker, seen), f"{peer}'s turn with the letter")
        return model.arrivals[found] - (model.released if busy is not None else start)

    try:
        run("join", "claude", inside=in_claude)
        run("join", "codex", inside=in_codex)
        rounds = {
            "claude, idle: from the start of send": ("claude", pair.claude_model, in_codex, None),
            "claude, busy: after its running turn ended": ("claude", pair.claude_model, in_codex, pair.claude.say),
            "codex, idle, loaded by an app server codex queue cannot reach: from the start of send": (
                "codex",
                pair.codex_model,
                in_claude,
                None,
            ),
            "codex, busy: after its running turn ended": ("codex", pair.codex_model, in_claude, pair.codex.say),
        }
        figures = {name: [one(*case) for _ in range(TURN_ROUNDS)] for name, case in rounds.items()}
        pair.codex_home.start_daemon(base, pair.codex_model)
        woken, by_daemon = [], []
        for _ in range(WOKEN_ROUNDS):  # a thread whose codex exec ended, each time a new one
            thread = pair.codex_home.finished_thread(base, pair.codex_model)
            run("join", "codex", inside={"CODEX_THREAD_ID": thread})
            woken.append(one("codex", pair.codex_model, in_claude))
            # Then loaded by the daemon, which codex queue reaches: once its turn has ended, idle.
            rollout = codex_files.rollouts(pair.codex_home.home, thread)
            newest = max(rollout, key=os.path.getmtime)
            _wait(lambda newest=newest: codex_files.turn_now(newest) == codex_files.TURN_ENDED, "idle")
            by_daemon.append(one("codex", pair.codex_model, in_claude))
        figures["codex, woken through its daemon: from the start of send"] = woken
        figures["codex, idle, loaded by its daemon: from the start of send"] = by_daemon
        pair.codex_home.stop_daemon(base)
    finally:
        pair.close()
    print(f"\nletter to turn, real clients (medians of {TURN_ROUNDS}, woken of {WOKEN_ROUNDS}):")
    width = max(map(len, figures))
    for name, times in figures.items():
        print(f"  {name:<{width}}  {statistics.median(times):6.2f} s  (from {min(times):.2f} to {max(times):.2f})")
    return []


def _asked_with(model, needle, seen):
    """The index of the first model call since `seen` whose request holds `needle`, or None."""
    for index in range(seen, len(model.requests)):
        if needle in json.dumps(model.requests[index]):
            return index
    return None


def _wait(found, what, timeout=60):
    """What `found()` gives once it gives something (an index may be 0), waiting at most `timeout` s."""
    deadline = time.monotonic() + timeout
    while (answer := found()) is None or answer is False:
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {what} within {timeout} s")
        time.sleep(0.005)
    return answer


def against_table(cases, other):
    print(f"\nagainst {shlex.join(other)}, in the same rounds:")
    width = max(len(case.name) for case in cases) + 2
    print(f"{'case':<{width}}  {'this':>9}  {'against':>9}  ratio")
    ratios = {}
    for case in (case for case in cases if case.postbag and case.other_times):
        theirs = statistics.median(case.other_times)
        ratios[case.name] = ratio(case.times, case.other_times)
        print(f"{case.name:<{width}}  {case.median * 1000:7.1f} ms  {theirs * 1000:7.1f} ms  {ratios[case.name]:5.2f}")
    bounds = {FULL_READ: 0.5}
    return [
        (f"{name}: at most {bounds.get(name, 1.0)} x against", r, bounds.get(name, 1.0)) for name, r in ratios.items()
    ]


if __name__ == "__main__":
    sys.exit(main())
