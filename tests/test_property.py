"""Randomly damaged ledgers end in a normal result or a numbered refusal, never a traceback."""

import json
import os
import re
import uuid
from unittest import mock

import pytest
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from postbag import cli, ledger_index
from postbag.ledger import Ledger

AT = st.sampled_from(["2026-09-08T10:02:11+02:00", "2026-09-08T10:02:11", "2026-09-08T10:02:11.5-05:30"])
PEER = st.sampled_from(["claude", "codex"])
THREAD = str(uuid.UUID(int=7))


def _record(kind, peer, limit, body, at):
    if kind == "join":
        door = {"socket": "/nonexistent/inbox.sock", "token": "tok"} if peer == "claude" else {"thread": THREAD}
        return {"at": at, "kind": "join", "peer": peer, **door}
    if kind == "open":
        return {"at": at, "kind": "open", "limit": limit}
    return {"at": at, "kind": "letter", "from": peer, "to": "codex" if peer == "claude" else "claude", "body": body}


RECORDS = st.lists(
    st.builds(_record, st.sampled_from(["join", "open", "letter"]), PEER, st.integers(1, 5), st.text(min_size=1), AT),
    max_size=12,
)


def _ledger(records):
    lines = [json.dumps({"n": n, **record}) for n, record in enumerate(records, 1)]
    return "".join(line + "\n" for line in lines).encode()


@st.composite
def damaged_ledgers(draw):
    data = bytearray(_ledger(draw(RECORDS)))
    for _ in range(draw(st.integers(1, 4))):
        how = draw(st.sampled_from(["flip", "insert", "delete", "drop line", "repeat line", "swap value"]))
        if how in ("flip", "delete") and data:
            at = draw(st.integers(0, len(data) - 1))
            if how == "flip":
                data[at] = draw(st.integers(0, 255))
            else:
                del data[at]
        elif how == "insert":
            at = draw(st.integers(0, len(data)))
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif how in ("drop line", "repeat line"):
            lines = bytes(data).splitlines(keepends=True)
            if lines:
                at = draw(st.integers(0, len(lines) - 1))
                lines[at : at + 1] = [] if how == "drop line" else [lines[at], lines[at]]
                data = bytearray(b"".join(lines))
        else:
            old = draw(st.sampled_from([b"1", b'"open"', b'"join"', b'"letter"', b'"claude"', b"true", b": "]))
            new = draw(st.sampled_from([b"0", b"-1", b"true", b"null", b"1e3", b'"x"', b"[]", b"{}", b"NaN", b":"]))
            data = bytearray(bytes(data).replace(old, new, 1))
    return bytes(data)


REFUSAL = re.compile(
    r"postbag: (ledger line \d+ is not a record \(.*\)|ledger is truncated after line \d+ \(.*\)"
    r"(: its last record is unfinished, most likely from an interrupted send, "
    r"and the next send, join or open removes it)?)"
    r"|postbag: ((no exchange is open|(claude|codex) has not joined)( \(the ledger .*, which POSTBAG_LEDGER names\))?"
    r"|the exchange's letters are spent"
    r"|this codex session is not the one joined for codex in the ledger .*, which POSTBAG_LEDGER names: .*"
    r"|claude's door did not answer \(its socket is gone\).*)"
)


@pytest.fixture
def bag(tmp_path, monkeypatch, codex):
    for name in ("CLAUDE_CODE_MESSAGING_SOCKET", "CLAUDE_CODE_MESSAGING_TOKEN", "CODEX_THREAD_ID", "CLAUDECODE"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "ledger.jsonl"
    monkeypatch.setenv("POSTBAG_LEDGER", str(path))
    monkeypatch.setenv("POSTBAG_CODEX", codex.path)
    monkeypatch.setenv("CODEX_SESSION_ID", THREAD)  # inside codex: may join codex and send to claude
    return path


WROTE = "postbag: wrote to the ledger {}, which POSTBAG_LEDGER names\n"
UNFINISHED = re.compile(
    r"postbag: ledger is truncated after line \d+ \(.*\): its last record is unfinished, most likely from an "
    r"interrupted send, and the next send, join or open removes it\n"
)
# What a join says where the ledger's latest door was another session's.
REPLACED = r"postbag: this replaces the codex session that joined at [^\n]+: letters to codex now come here\n"
REPAIRED = re.compile(
    r"postbag: an interrupted send left an unfinished record after line \d+; "
    r"it was removed, and its letter may have been delivered\n"
)


def _run(argv):
    """`postbag ARGV` in this process, as a process of its own would run it: each run
    starts with its own count of knocks, which Claude's inbox counts by sender."""
    return cli.main(argv)


def _outcome(capsys, argv):
    """The exit status and stdout of `argv`, after checking what stderr said."""
    status = _run(argv)
    out, err = capsys.readouterr()
    assert status in (0, 1)
    if repaired := REPAIRED.match(err):
        err = err[repaired.end() :]
    if status == 1:
        assert err.endswith("; stop and ask the human\n")
        assert REFUSAL.fullmatch(err.removesuffix("; stop and ask the human\n")), err
    else:
        err = UNFINISHED.sub("", err)  # read's news of a last record the next writer removes
        assert err in ("", WROTE.format(os.environ["POSTBAG_LEDGER"])) or re.fullmatch(
            re.escape(WROTE.format(os.environ["POSTBAG_LEDGER"])) + REPLACED, err
        ), err
    return status, out


SLOW_OK = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SLOW_OK
@given(ledger=damaged_ledgers(), tail=st.integers(1, 20))
def test_damaged_ledgers_read_or_refuse(bag, capsys, ledger, tail):
    bag.write_bytes(ledger)
    full_status, _ = _outcome(capsys, ["read"])
    _outcome(capsys, ["read", "--json"])
    tail_status, _ = _outcome(capsys, ["read", str(tail)])
    if full_status == 0:
        assert tail_status == 0  # what a full read accepts, every tail of it accepts


@SLOW_OK
@given(ledger=damaged_ledgers())
def test_damaged_ledgers_take_a_join_and_a_send_or_refuse_and_stay_unchanged(bag, capsys, ledger):
    """A refused command leaves the file as it was, but for an unfinished last record, which
    the first writer removes (and says so); nothing else is ever cut."""
    bag.write_bytes(ledger)
    status, _ = _outcome(capsys, ["send", "claude", "hello"])
    if bag.read_bytes() != ledger:
        complete = ledger[: ledger.rfind(b"\n") + 1]
        assert not ledger.endswith(b"\n") and bag.read_bytes().startswith(complete)
        ledger = complete if status == 1 else bag.read_bytes()
    if status == 1:
        assert bag.read_bytes() == ledger
    status, _ = _outcome(capsys, ["join", "codex"])
    if status == 1:
        assert bag.read_bytes() == ledger
    else:
        assert bag.read_bytes().startswith(ledger)


@SLOW_OK
@given(ledger=st.one_of(damaged_ledgers(), RECORDS.map(_ledger)), block=st.integers(1, 64), tail=st.integers(1, 20))
def test_where_a_read_block_ends_changes_nothing_a_command_says(bag, capsys, ledger, block, tail):
    """A verb passes over the ledger in blocks and looks back through them; a ledger read
    in blocks of a few bytes gets every answer it gets in one block."""
    commands = (["read"], ["read", "--json", str(tail)], ["send", "claude", "hello"], ["join", "codex"])
    said = {}
    for size in (1 << 20, block):
        with mock.patch.object(ledger_index, "BLOCK", size):
            said[size] = []
            for argv in commands:
                bag.write_bytes(ledger)
                status, out, err = _run(argv), *capsys.readouterr()
                said[size].append((status, out, err, _timeless(bag.read_bytes())))
    assert said[block] == said[1 << 20]


def _timeless(data):
    """The ledger with each new record's time taken out: a second may pass between runs."""
    return re.sub(rb'"at": "[^"]*"', b'"at": ""', data)


@settings(max_examples=examples(200), deadline=None)
@given(records=RECORDS)
def test_valid_ledgers_always_read_whole(tmp_path_factory, records):
    path = tmp_path_factory.mktemp("bag") / "ledger.jsonl"
    path.write_bytes(_ledger(records))
    numbers = list(range(1, len(records) + 1))
    with Ledger(str(path)) as bag:
        assert [r["n"] for r in bag.records()] == numbers
        assert [r["n"] for r in bag.tail(3)] == numbers[-3:]
        opened = [n for n, r in zip(numbers, records, strict=True) if r["kind"] == "open"]
        if opened:
            letters_since = sum(r["kind"] == "letter" for r in records[opened[-1] :])
            assert bag.exchange().left == records[opened[-1] - 1]["limit"] - letters_since
        else:
            assert not bag.exchange().opened
