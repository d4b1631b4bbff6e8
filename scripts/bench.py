#!/usr/bin/env python3
"""Measure postbag.pyz as agents use it: start-up, send and read, on ledgers up to 100,000 records.

    python3 scripts/bench.py [--rounds N] [--against CMD]

--against runs every postbag case a second time with CMD in place of the zipapp (for
example a postbag 1.0.0 installed in a venv: "VENV/bin/python -I -m postbag"), in the
same interleaved rounds, and prints both figures and their ratio per case.

Every case runs the built dist/postbag.pyz (built first when missing or stale) as a
subprocess, against a fake Claude inbox socket served by this process. Rounds are
interleaved, so a busy moment of the machine falls on every case alike; each figure is
the median. Ratios are against the case named beside them, and the goals of the
performance issue are checked at the end.
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
from unix_server import UnixServer

AT = "2026-09-08T10:02:11+02:00"
BODY = "Reviewed the parser: the date branch swallows ValueError. See 4f2a9c1."


def discard(connection):
    """A Claude inbox that takes every letter and throws it away."""
    with connection:
        while connection.recv(65536):
            pass


def write_ledger(path, records, socket_path):
    """A ledger of `records` lines shaped like months of use: both peers joined at the start,
    then exchanges of twelve letters each, the last one open with room to spare."""
    lines = [
        {"kind": "join", "peer": "claude", "socket": socket_path, "token": "bench-token"},
        {"kind": "join", "peer": "codex", "thread": "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2b"},
    ]
    while len(lines) < records - 1:
        lines.append({"kind": "open", "limit": 12})
        for i in range(min(12, records - 1 - len(lines))):
            sender, recipient = ("claude", "codex") if i % 2 else ("codex", "claude")
            lines.append({"kind": "letter", "from": sender, "to": recipient, "body": BODY})
    lines.append({"kind": "open", "limit": 1_000_000})
    with open(path, "w") as file:
        for n, record in enumerate(lines, 1):
            file.write(json.dumps({"n": n, "at": AT, **record}) + "\n")
    os.chmod(path, 0o600)
    return os.path.getsize(path)


def measure(cases, rounds):
    """Median seconds of each case, over `rounds` interleaved runs."""
    times = {name: [] for name in cases}
    for _ in range(rounds):
        for name, (argv, env) in cases.items():
            started = time.perf_counter()
            done = subprocess.run(
                argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False
            )
            times[name].append(time.perf_counter() - started)
            refused = "refused in a session" in name
            if done.returncode != refused or refused != ("stop and ask the human" in done.stderr):
                raise SystemExit(f"bench: {name!r} went wrong: {done.stderr.strip()}")
    return {name: statistics.median(values) for name, values in times.items()}


def parse_cost(pyz, path, rounds):
    """Medians, inside this process, of the zipapp's own pass over a ledger (every line
    parsed and validated once, as a full read does before printing) and of a bare
    json.loads of every line: what reading costs per line, start-up and printing aside."""
    sys.path.insert(0, pyz)
    from postbag.ledger import Ledger

    def validate_every_record():
        with Ledger(path) as bag:
            for _ in bag.records():
                pass

    def json_loads_every_line():
        with open(path, "rb") as file:
            for line in file:
                json.loads(line)

    times = {validate_every_record: [], json_loads_every_line: []}
    for _ in range(rounds):
        for case, spent in times.items():
            started = time.perf_counter()
            case()
            spent.append(time.perf_counter() - started)
    return statistics.median(times[validate_every_record]), statistics.median(times[json_loads_every_line])


def racing_throughput(pyz, env, senders=32):
    started = time.perf_counter()
    procs = [
        subprocess.Popen([sys.executable, pyz, "send", "claude", f"race {i}"], env=env, stdout=subprocess.DEVNULL)
        for i in range(senders)
    ]
    delivered = sum(proc.wait() == 0 for proc in procs)
    return delivered, time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description="Benchmark postbag.pyz.")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved runs of every case (default 15)")
    parser.add_argument("--against", metavar="CMD", help="another postbag command to measure beside this one")
    args = parser.parse_args()
    pyz, _ = build_pyz.ensure_built()
    work = tempfile.mkdtemp(prefix="postbag-bench-")
    try:
        report(pyz, work, args.rounds, shlex.split(args.against) if args.against else None)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def report(pyz, work, rounds, other):
    inbox = UnixServer(os.path.join(work, "inbox.sock"), discard, backlog=64)
    python = sys.executable
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "POSTBAG_"))}
    ledgers, sizes = {}, {}
    for records in (3, 10_000, 100_000):
        ledgers[records] = os.path.join(work, f"ledger-{records}.jsonl")
        sizes[records] = write_ledger(ledgers[records], records, inbox.path)

    def env(records, **extra):
        return {**base, "POSTBAG_LEDGER": ledgers[records], **extra}

    codex = {"CODEX_SESSION_ID": "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2b"}
    floor_file = os.path.join(work, "floor.jsonl")
    line = (json.dumps({"n": 1, "at": AT, "body": BODY}) + "\n").encode()
    floor = (
        f"import os; fd = os.open({floor_file!r}, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600); "
        f"os.write(fd, {line!r}); os.fsync(fd)"
    )
    parse_once = f"import json\nfor line in open({ledgers[100_000]!r}, 'rb'): json.loads(line)"
    pb = [python, pyz]
    cases = {
        "python3 -c pass": ([python, "-c", "pass"], base),
        "floor: start-up + one fsynced append": ([python, "-c", floor], base),
        "postbag --version": ([*pb, "--version"], base),
        "postbag open, refused in a session": ([*pb, "open"], {**base, **codex}),
        "send, fresh ledger": ([*pb, "send", "claude", BODY], env(3, **codex)),
        "send, 10,000 records": ([*pb, "send", "claude", BODY], env(10_000, **codex)),
        "send, 100,000 records": ([*pb, "send", "claude", BODY], env(100_000, **codex)),
        "read 10, fresh ledger": ([*pb, "read", "10"], env(3)),
        "read 10, 100,000 records": ([*pb, "read", "10"], env(100_000)),
        "full read, 100,000 records": ([*pb, "read"], env(100_000)),
        "python3: json.loads every line": ([python, "-c", parse_once], base),
    }
    if other:  # the same postbag cases again, run by the other command
        theirs = {
            f"{name} [against]": ([*other, *argv[2:]], env) for name, (argv, env) in cases.items() if argv[:2] == pb
        }
        cases.update(theirs)
    print(f"postbag.pyz {os.path.getsize(pyz):,} bytes; Python {sys.version.split()[0]} on {sys.platform}")
    print(f"ledgers: 100,000 records = {sizes[100_000] / 1e6:.1f} MB; {rounds} interleaved rounds, medians\n")
    median = measure(cases, rounds)
    relative_to = {
        "floor: start-up + one fsynced append": "python3 -c pass",
        "postbag --version": "python3 -c pass",
        "postbag open, refused in a session": "python3 -c pass",
        "send, fresh ledger": "floor: start-up + one fsynced append",
        "send, 10,000 records": "send, fresh ledger",
        "send, 100,000 records": "send, fresh ledger",
        "read 10, 100,000 records": "read 10, fresh ledger",
        "full read, 100,000 records": "python3: json.loads every line",
    }
    width = max(map(len, cases)) + 2
    print(f"{'case':<{width}}  {'median':>9}  ratio")
    for name in [name for name in cases if not name.endswith(" [against]")]:
        against = relative_to.get(name)
        ratio = f"{median[name] / median[against]:5.2f} x {against}" if against else ""
        print(f"{name:<{width}}  {median[name] * 1000:7.1f} ms  {ratio}")
    if other:
        print(f"\nagainst {shlex.join(other)}, in the same rounds:")
        print(f"{'case':<{width}}  {'this':>9}  {'against':>9}  ratio")
        for name in [name for name in cases if f"{name} [against]" in cases]:
            ours, theirs = median[name], median[f"{name} [against]"]
            print(f"{name:<{width}}  {ours * 1000:7.1f} ms  {theirs * 1000:7.1f} ms  {ours / theirs:5.2f}")
        print()
    validated, parsed = parse_cost(pyz, ledgers[100_000], rounds)
    median["parse and validate every line"], median["json.loads every line"] = validated, parsed
    print(
        f"{'parse + validate every line, in-process':<{width}}  {validated * 1000:7.1f} ms  "
        f"{validated / parsed:5.2f} x json.loads every line, in-process ({parsed * 1000:.1f} ms)"
    )
    for records in (3, 100_000):
        delivered, seconds = racing_throughput(pyz, env(records, **codex))
        label = f"32 racing senders, {'fresh ledger' if records == 3 else '100,000 records'}"
        print(f"{label:<{width}}  {seconds * 1000:7.1f} ms  {delivered / seconds:.0f} letters/s")

    goals = [
        ("send at 100,000 within 1.5 x a fresh send", "send, 100,000 records", "send, fresh ledger", 1.5),
        ("read 10 at 100,000 within 1.5 x fresh", "read 10, 100,000 records", "read 10, fresh ledger", 1.5),
        (
            "a full read parses each line once, no dearer than json.loads",
            "parse and validate every line",
            "json.loads every line",
            1.0,
        ),
        ("--version within 1.25 x python3 -c pass", "postbag --version", "python3 -c pass", 1.25),
        ("a refusal within 1.25 x python3 -c pass", "postbag open, refused in a session", "python3 -c pass", 1.25),
    ]
    print()
    for goal, case, against, bound in goals:
        ratio = median[case] / median[against]
        print(f"{'met ' if ratio <= bound else 'MISSED'} {goal}: {ratio:.2f}")


if __name__ == "__main__":
    sys.exit(main())
