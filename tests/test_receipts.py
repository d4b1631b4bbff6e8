"""Receipts, whatever the recipient: where each letter stands, read from the records each
vendor keeps of what its session took (tests/written.py writes them as the vendors do;
test_claude.py and test_codex.py hold each room's readers to them). A letter settles at
answered, the sender inside a session hears of its own, and no receipt names a door."""

import json
import os

import pytest
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from written import WHEN, local, write_lines


@pytest.mark.shipped
def test_a_letter_each_session_took_is_shown_taken_with_the_time_from_its_record(postbag, exchange):
    claude, codex, to_claude, to_codex = exchange
    claude.took(to_claude)
    codex.took(to_codex, at="2026-12-02T02:30:42.500Z")
    assert postbag.receipts() == [
        f"letter 4 codex -> claude: answered by letter 5, taken at {local(WHEN)}",  # claude wrote back
        f"letter 5 claude -> codex: taken at {local('2026-12-02T02:30:42.500Z')}",
    ]
    shown = [json.loads(line) for line in postbag.receipts("--json")]
    assert [shown[0], shown[1]["receipt"]] == [
        {
            "n": 4,
            "at": shown[0]["at"],
            "from": "codex",
            "to": "claude",
            "receipt": {"state": "answered", "at": local(WHEN), "answered_by": 5},
        },
        {"state": "taken", "at": local("2026-12-02T02:30:42.500Z")},
    ]


def test_a_taken_letter_settles_at_answered_by_the_recipients_next_letter_back_and_only_then(postbag, exchange):
    claude, codex, _, to_codex = exchange
    # Letter 5 answers letter 4, but nothing shows that claude took 4: an answer alone settles nothing.
    assert postbag.receipts()[0].startswith("letter 4 codex -> claude: unknown: ")
    codex.took(to_codex)
    assert postbag.receipts()[1] == f"letter 5 claude -> codex: taken at {local(WHEN)}"  # no answer yet
    postbag.ok("send", "claude", "Thanks.", inside="codex")
    postbag.ok("send", "codex", "One more.", inside="claude")
    postbag.ok("send", "codex", "And another.", inside="claude")
    assert postbag.receipts("4")[0] == f"letter 5 claude -> codex: answered by letter 6, taken at {local(WHEN)}"
    assert ": unknown: " in postbag.receipts("3")[0]  # letter 6: answered twice, taken by no record
    claude.took(postbag.inbox.envelopes(2)[1])
    assert postbag.receipts(inside="codex") == [
        f"letter 6 codex -> claude: answered by letter 7, taken at {local(WHEN)}"  # the next letter back, not the last
    ]
    [last] = [json.loads(line) for line in postbag.receipts("1", "--json")]
    assert (last["n"], last["receipt"]["state"]) == (8, "unknown")


def test_inside_a_session_the_sender_is_told_of_its_own_last_letter(postbag, exchange):
    claude, _, to_claude, _ = exchange
    claude.took(to_claude)
    answered = f"letter 4 codex -> claude: answered by letter 5, taken at {local(WHEN)}"
    assert postbag.receipts(inside="codex") == [answered]
    assert postbag.receipts(inside="claude")[0].startswith("letter 5 claude -> codex: unknown: ")


def test_no_receipt_names_the_session_thread_or_door_it_read_about(postbag, exchange, inbox, codex, tmp_path):
    """The records receipts read are named by session and thread ids; what it says of them
    names neither, in every state, nor the doors the ledger holds."""
    claude, codex_files, to_claude, to_codex = exchange
    codex_files.queued(to_codex)
    claude.runs(tmp_path / "repo")
    claude.settings(claude.config, "hold")
    said = [
        postbag.ok(*args, inside=inside)
        for args in (("receipts",), ("receipts", "--json"), ("receipts", "2", "--json"))
        for inside in (None, "claude", "codex")
    ]
    said.append(postbag.ok("send", "codex", "and this?", inside="claude"))
    claude.took(to_claude)
    said.append(postbag.ok("receipts"))
    doors = (inbox.session, codex.thread, inbox.token, inbox.path)
    assert [door for door in doors for text in said if door in text] == []
    assert any("hold" in text for text in said) and any("in codex's queue" in text for text in said)


@pytest.mark.parametrize("json_lines", [[], ["--json"]])
def test_with_no_ledger_or_no_letter_receipts_say_so_on_stderr_as_read_does(postbag, json_lines):
    """A reader of JSON Lines gets no line that is no receipt."""
    result = postbag.run("receipts", *json_lines)
    none = f"postbag: there is no ledger at {postbag.ledger} yet\n"
    assert (result.returncode, result.stdout, result.stderr) == (0, "", none)
    postbag.ready()
    result = postbag.run("receipts", *json_lines, inside="claude")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "postbag: no letter has been sent by claude\n")
    assert postbag.run("receipts", *json_lines).stderr == "postbag: no letter has been sent\n"


def test_through_the_mcp_door_status_tells_the_sender_whether_its_last_letter_was_taken(postbag, exchange, codex):
    claude, _, to_claude, _ = exchange
    server = postbag.mcp()
    server.handshake()
    try:
        meta = {"threadId": codex.thread}
        text, error = server.tool("status", meta=meta)
        assert not error and text.splitlines()[-1].startswith("your last letter, 4 to claude: unknown: ")
        claude.took(to_claude)
        text, _ = server.tool("status", meta=meta)
        assert text.splitlines()[-1] == f"your last letter, 4 to claude: answered by letter 5, taken at {local(WHEN)}"
        assert text.splitlines()[0].startswith(f"{postbag.standing}: exchange of 12 letters, 2 sent, 10 left")
    finally:
        server.close()


def test_a_record_further_back_than_postbag_reads_is_unknown_not_absent(postbag, exchange, tmp_path):
    """A transcript whose records carry no time gives no place to stop: the search goes back
    64 MiB at most, and then says it did not read all of it."""
    claude, _, to_claude, _ = exchange
    claude.took(to_claude)
    untimed = json.dumps({"type": "attachment", "pad": "x" * 1000})
    with open(claude.transcript, "a") as file:
        file.write((untimed + "\n") * (65 * 1024))
    claude.runs(tmp_path / "repo")
    assert postbag.receipts(inside="codex") == [
        "letter 4 codex -> claude: unknown: claude's transcript is longer than postbag reads back"
    ]


def test_an_unknown_from_records_a_client_outside_the_proven_range_wrote_says_so(postbag, exchange, tmp_path):
    """The version each client writes in its own records (Claude Code on each transcript
    line, Codex in the rollout's first record) is named where it is not one postbag is
    proven on; a send is never refused for it."""
    from postbag.vendors import all_rooms

    claude, codex, _, _ = exchange
    claude.runs(tmp_path / "repo")
    write_lines(claude.transcript, [{"type": "user", "version": "2.1.100", "timestamp": WHEN}])
    oldest, newest = all_rooms()["claude"].PROVEN
    [said] = postbag.receipts(inside="codex")
    assert said.endswith(
        f"; claude 2.1.100 wrote these records, and postbag is proven on claude {oldest} to {newest}"
    ), said
    write_lines(claude.transcript, [{"type": "user", "version": newest, "timestamp": WHEN}])
    assert "wrote these records" not in postbag.receipts(inside="codex")[0]
    with open(codex.rollout) as file:
        lines = file.readlines()
    first = json.loads(lines[0])
    first["payload"]["cli_version"] = "0.200.0"
    with open(codex.rollout, "w") as file:
        file.writelines([json.dumps(first) + "\n", *lines[1:]])
    oldest, newest = all_rooms()["codex"].PROVEN
    assert postbag.receipts(inside="claude") == [
        "letter 5 claude -> codex: unknown: neither codex's queue nor the thread's rollout holds it; "
        f"codex 0.200.0 wrote these records, and postbag is proven on codex {oldest} to {newest}"
    ]
    sent = postbag.ok("send", "codex", "Still there?", inside="claude")
    assert sent.startswith("letter 6 delivered to codex, 9 left")


def test_the_mcp_status_tells_an_agent_whether_the_other_door_can_take_a_letter(postbag, exchange, codex):
    _, codex_files, _, _ = exchange
    codex_files.lock_file()
    codex_files.settings("on-request")
    lines = postbag.status()[0].splitlines()
    assert lines[1] == (
        "codex's letters will wait: no running codex has its thread loaded, and postbag does not wake it: the "
        "thread asks for approvals (approval_policy on-request), and nobody could give one to a woken turn; it is "
        "taken when the thread is resumed where a person can approve (in the app or editor, or with codex resume)"
    )
    assert lines[2].startswith("your last letter, 5 to codex: ")


# The readers' own pieces, in-process


def test_times_of_every_form_the_vendors_and_the_ledger_write_are_read_or_left_alone():
    from postbag.times import Clock, moment

    assert moment("2026-12-02T02:30:41.226Z") == moment("2026-12-02T02:30:41.226+00:00") == 1796178641.226
    assert moment("2026-12-02T04:30:41+02:00") == 1796178641
    from datetime import datetime

    naive = "2026-12-02T02:30:41"  # as 1.0's own tests wrote a ledger's time: the machine's local time
    assert moment(naive) == datetime(2026, 12, 2, 2, 30, 41).timestamp()
    assert [moment(text) for text in ("yesterday", "", None, 5, ["x"], "2026-02-30T00:00:00")] == [None] * 6
    assert Clock().local("not a time") is None
    assert Clock().local(WHEN) == local(WHEN)


def test_a_receipt_without_a_join_or_a_file_is_unknown_and_says_why(postbag, tmp_path):
    from postbag.exchange import Exchange
    from postbag.vendor_files import find_back, newest
    from postbag.verbs import read as verbs

    letter = {"n": 4, "at": "2026-12-02T02:30:41+00:00", "from": "codex", "to": "claude", "body": "hi"}
    said = verbs.receipt_of(letter, None, postbag.place(), Exchange(3, 1))
    assert said.words() == "unknown: no join of claude comes before it in the ledger"
    found = find_back(str(tmp_path / "none.jsonl"), "claude's transcript", b"x", bool, None)
    assert found == (None, "cannot read claude's transcript (No such file or directory)")
    older, newer = tmp_path / "older.jsonl", tmp_path / "newer.jsonl"
    for path, written in ((newer, 2_000_000_000), (older, 1_000_000_000)):  # the older one written last
        path.write_text("")
        os.utime(path, (written, written))
    assert newest([str(older), str(newer), str(tmp_path / "gone")]) == str(newer)


# Every time a record may hold (records.py takes any text), against what each room reads.
TIMES = [
    "2026-12-02T02:30:41",  # no offset, as 1.0's tests wrote
    "2026-12-02T02:30:41+02:00",
    "2026-12-02T02:30:41Z",
    "yesterday",
    "0001-01-01T00:00:00",
    "9999-12-31T23:59:59-23:59",
    "\u2028",
]


@pytest.mark.parametrize("inbound", [None, "refuse", "hold"])
@given(at=st.sampled_from(TIMES) | st.text(min_size=1, max_size=30))
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_letter_of_any_time_the_ledger_takes_gets_a_receipt_from_each_room_never_a_crash(postbag, inbox, inbound, at):
    from written import Claude

    from postbag.exchange import Exchange
    from postbag.verbs import read as verbs

    claude = Claude(postbag.env["HOME"], inbox.session)
    claude.runs(postbag.cwd)
    claude.settings(claude.config, inbound)
    joined = {"kind": "join", "peer": "claude", **inbox.door(), "at": at, "n": 1}
    thread = {"peer": "codex", "thread": "019a0000-0000-7000-8000-000000000000"}
    for peer, door in (("claude", joined), ("codex", thread)):
        letter = {"n": 4, "at": at, "from": "codex" if peer == "claude" else "claude", "to": peer, "body": "hi"}
        receipt = verbs.receipt_of(letter, door, postbag.place(), Exchange(3, 1))
        assert receipt.state in ("taken", "waiting", "not taken", "unknown")
        assert receipt.words()
