"""Every refusal of the 1.0 contract: exact wording, exit status 1, nothing recorded."""

import os

import pytest

from conftest import SESSION_VARIABLES


def test_join_outside_the_peers_session(postbag):
    assert postbag.refused("join", "claude") == "join claude from inside a claude session"
    assert postbag.refused("join", "codex", inside="claude") == "join codex from inside a codex session"
    assert postbag.ledger_bytes() == b""


def test_join_claude_needs_both_of_its_variables(postbag, inbox):
    half = {"CLAUDE_CODE_MESSAGING_TOKEN": ""}
    assert postbag.refused("join", "claude", inside="claude", env=half) == "join claude from inside a claude session"


@pytest.mark.parametrize("variable", SESSION_VARIABLES)
@pytest.mark.parametrize("value", ["set", ""])
def test_the_humans_verbs_refuse_inside_any_session_even_an_empty_variable(postbag, variable, value):
    assert postbag.refused("open", env={variable: value}) == "open is the human's verb"
    assert postbag.refused("open", "--limit", "5", env={variable: value}) == "open is the human's verb"
    assert postbag.refused("close", env={variable: value}) == "close is the human's verb"
    assert postbag.ledger_bytes() == b""
    postbag.ready()
    before = postbag.ledger_bytes()
    assert postbag.refused("close", env={variable: value}) == "close is the human's verb"
    assert postbag.ledger_bytes() == before


def test_open_help_still_helps_inside_a_session(postbag):
    assert "--limit" in postbag.ok("open", "--help", inside="claude")


@pytest.mark.parametrize(("recipient", "sender"), [("codex", "claude"), ("claude", "codex")])
def test_send_belongs_to_the_other_peer(postbag, recipient, sender):
    postbag.ready()
    before = postbag.ledger_bytes()
    expected = f"send {recipient} is {sender}'s verb; run it inside a {sender} session"
    assert postbag.refused("send", recipient, "hi") == expected
    assert postbag.refused("send", recipient, "hi", inside=recipient) == (
        f"{expected} (this is a {recipient} session: to write to {sender}, run postbag send {sender})"
    )
    assert postbag.ledger_bytes() == before


@pytest.mark.parametrize(("recipient", "sender"), [("codex", "claude"), ("claude", "codex")])
def test_send_to_a_peer_that_never_joined(postbag, recipient, sender, inbox, codex):
    postbag.ok("join", sender, inside=sender)
    postbag.ok("open")
    assert postbag.refused("send", recipient, "hi", inside=sender) == f"{recipient} has not joined"
    assert codex.calls() == [] and inbox.received == []


def test_send_without_an_open_exchange(postbag, codex):
    postbag.ok("join", "codex", inside="codex")
    assert postbag.refused("send", "codex", "hi", inside="claude") == "no exchange is open"
    assert codex.calls() == []


def test_send_with_no_ledger_at_all_creates_none(postbag):
    assert postbag.refused("send", "codex", "hi", inside="claude") == "no exchange is open"
    assert not os.path.exists(postbag.ledger)


def test_spent_exchange(postbag, codex):
    postbag.ready(limit=1)
    postbag.ok("send", "codex", "one", inside="claude")
    before = postbag.ledger_bytes()
    assert postbag.refused("send", "codex", "two", inside="claude") == "the exchange's letters are spent"
    assert len(codex.calls()) == 1
    assert postbag.ledger_bytes() == before


@pytest.mark.parametrize("body", ["", "-"])
def test_a_letter_needs_text(postbag, codex, body):
    postbag.ready()
    assert postbag.refused("send", "codex", body, inside="claude", input="\n") == "a letter needs text"
    assert codex.calls() == []


def test_no_codex_at_the_named_path(postbag, codex):
    postbag.ready()
    os.remove(codex.path)
    postbag.env["POSTBAG_CODEX"] = codex.path
    assert postbag.refused("send", "codex", "hi", inside="claude") == f"no codex at {codex.path}; set POSTBAG_CODEX"


def test_claude_door_that_does_not_answer(postbag, inbox):
    postbag.ready()
    inbox.close()
    os.remove(inbox.path)
    before = postbag.ledger_bytes()
    assert postbag.refused("send", "claude", "hi", inside="codex") == (
        "claude's door did not answer (its socket is gone); if its session restarted it must run: postbag join claude"
    )
    assert postbag.ledger_bytes() == before


def test_claude_door_that_refuses_the_connection(postbag, inbox):
    postbag.ready()
    inbox.close()  # the socket file stays, nothing listens: a session that exited
    assert postbag.refused("send", "claude", "hi", inside="codex") == (
        "claude's door did not answer (connection refused); if its session restarted it must run: postbag join claude"
    )


def test_ledger_that_cannot_be_opened(postbag, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    postbag.env["POSTBAG_LEDGER"] = str(blocker / "ledger.jsonl")
    reason = postbag.refused("open")
    assert reason.startswith("cannot open the ledger (")


def test_ledger_that_is_not_a_regular_file(postbag, tmp_path):
    os.makedirs(postbag.ledger)
    assert postbag.refused("open") == f"the ledger is not a regular file ({postbag.ledger})"
    assert postbag.refused("read") == f"the ledger is not a regular file ({postbag.ledger})"


def test_line_that_is_not_a_record(postbag):
    postbag.ready()
    postbag.write_ledger(postbag.ledger_bytes() + b'{"n": 4, "at": "x", "kind": "open", "limit": 0}\n')
    expected = f"ledger line 4 is not a record ({postbag.ledger})"
    assert postbag.refused("read") == expected
    assert postbag.refused("read", "1") == expected
    assert postbag.refused("open") == expected
    assert postbag.refused("send", "codex", "hi", inside="claude") == expected


def test_a_last_line_that_is_no_record_of_ours_is_refused_as_truncated(postbag):
    postbag.ready()
    postbag.write_ledger(postbag.ledger_bytes() + b"garbage without its newline")
    expected = f"ledger is truncated after line 3 ({postbag.ledger})"
    before = postbag.ledger_bytes()
    for args, inside in [(("read",), None), (("open",), None), (("send", "codex", "hi"), "claude")]:
        assert postbag.refused(*args, inside=inside) == expected
    assert postbag.ledger_bytes() == before  # nothing but an unfinished record is ever cut


@pytest.mark.parametrize(
    "args",
    [
        ("frobnicate",),
        (),
        ("join",),
        ("join", "gemini"),
        ("open", "--limit", "0"),
        ("open", "--limit", "many"),
        ("send", "codex"),
        ("read", "-3"),
        ("read", "--xml"),
    ],
)
def test_usage_mistakes_get_argparse_and_status_2(postbag, args):
    result = postbag.run(*args)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: postbag")
    assert "Traceback" not in result.stderr
