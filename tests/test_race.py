"""Concurrent senders share one budget and one numbering; a reader waits for a writer."""

import json
import os
import subprocess
import time

import pytest


def test_32_racing_senders_deliver_exactly_the_budget(postbag, inbox, codex):
    postbag.ready(limit=10)
    senders = []
    for i in range(32):
        peer, recipient = ("claude", "codex") if i % 2 else ("codex", "claude")
        env = {**postbag.env, **postbag.session(peer)}
        senders.append(
            subprocess.Popen(
                [*postbag.command, "send", recipient, f"letter {i}"],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    outcomes = [(proc.wait(120), *proc.communicate()) for proc in senders]
    delivered = [out for status, out, _ in outcomes if status == 0]
    refused = [err for status, _, err in outcomes if status == 1]
    assert len(delivered) == 10 and len(refused) == 22
    assert set(refused) == {"postbag: the exchange's letters are spent; stop and ask the human\n"}
    assert sorted(int(out.split()[1]) for out in delivered) == list(range(4, 14))
    assert sorted(int(out.split(", ")[1].split()[0]) for out in delivered) == list(range(10))
    letters = postbag.records()[3:]
    assert [r["n"] for r in letters] == list(range(4, 14))
    assert len(codex.calls()) + len(inbox.wait_for(10 - len(codex.calls()))) == 10


@pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="needs Linux's /proc/locks to see the wait")
def test_a_read_during_a_send_waits_for_the_whole_letter(postbag, codex, tmp_path):
    postbag.ready()
    release = tmp_path / "release"
    codex.behave(hold_until=str(release))
    env = {**postbag.env, **postbag.session("claude")}
    send = subprocess.Popen([*postbag.command, "send", "codex", "a whole letter"], env=env)
    codex.wait_for_calls(1)  # the sender now holds the exclusive lock inside the knock
    read = subprocess.Popen([*postbag.command, "read"], env=postbag.env, stdout=subprocess.PIPE, text=True)
    _wait_until_blocked_on_lock(postbag.ledger)
    release.touch()
    assert send.wait(60) == 0
    shown, _ = read.communicate(timeout=60)
    assert shown.endswith("letter claude -> codex\n      a whole letter\n")


def _wait_until_blocked_on_lock(path):
    """Return once some process waits for a lock on `path` (a `->` line in /proc/locks)."""
    inode = os.stat(path).st_ino
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with open("/proc/locks") as locks:
            if any("->" in entry and entry.split()[6].endswith(f":{inode}") for entry in locks):
                return
        time.sleep(0.01)  # polls for the event; the deadline only bounds a failure
    raise AssertionError("no reader ever waited for the lock")


def test_racing_joins_and_opens_keep_one_numbering(postbag):
    procs = [
        subprocess.Popen(
            [*postbag.command, *(["open"] if i % 2 else ["join", "codex"])],
            env={**postbag.env, **({} if i % 2 else postbag.session("codex"))},
            stdout=subprocess.DEVNULL,
        )
        for i in range(12)
    ]
    assert [proc.wait(60) for proc in procs] == [0] * 12
    numbers = [json.loads(line)["n"] for line in postbag.ledger_bytes().decode().splitlines()]
    assert numbers == list(range(1, 13))
