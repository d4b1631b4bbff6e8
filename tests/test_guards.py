"""Who may run what: each verb from the session it belongs to, the human's verbs only outside
every agent session, and the session variables chosen by family, never passed on."""

import pytest
from helpers import SESSION_VARIABLES, STOP

from postbag import guards, vendors
from postbag.here import Here
from postbag.refusal import Refusal


@pytest.mark.shipped
def test_join_outside_the_peers_session(postbag):
    assert postbag.refused("join", "claude") == (
        "join claude from inside a claude session (this terminal is in no agent's session: ask claude to do it, "
        "or run it in claude's session)"
    )
    assert postbag.refused("join", "codex", inside="claude") == "join codex from inside a codex session"
    assert postbag.ledger_bytes() == b""


def test_join_claude_needs_both_of_its_variables(postbag, inbox):
    half = {"CLAUDE_CODE_MESSAGING_TOKEN": ""}
    assert postbag.refused("join", "claude", inside="claude", env=half) == "join claude from inside a claude session"


@pytest.mark.parametrize("variable", SESSION_VARIABLES)
@pytest.mark.parametrize("value", ["set", ""])
def test_any_session_variable_even_empty_marks_a_session_the_humans_verbs_refuse(variable, value):
    for verb in ("open", "close"):
        with pytest.raises(Refusal) as refused:
            guards.require_human(verb, Here({"PATH": "/usr/bin", variable: value}, "/"))
        marks = f"(this shell has {variable}, which marks an agent's session)"
        assert str(refused.value) == f"{verb} is the human's verb {marks}"
    guards.require_human("open", Here({"PATH": "/usr/bin", "CODEX_HOME": "/h", "CLAUDE_CONFIG_DIR": "/c"}, "/"))


@pytest.mark.shipped
def test_the_humans_verbs_refuse_inside_a_session_name_its_variables_and_record_nothing(postbag):
    empty = {"CODEX_THREAD_ID": ""}
    thread = "(this shell has CODEX_THREAD_ID, which marks an agent's session)"
    assert postbag.refused("open", env=empty) == f"open is the human's verb {thread}"
    assert postbag.refused("open", "--limit", "5", inside="claude") == (
        "open is the human's verb (this shell has CLAUDE_CODE_MESSAGING_SOCKET, CLAUDE_CODE_MESSAGING_TOKEN and "
        "CLAUDE_CODE_SESSION_ID, which mark an agent's session)"
    )
    assert postbag.refused("close", inside="codex") == (
        "close is the human's verb (this shell has CODEX_SESSION_ID, which marks an agent's session)"
    )
    assert postbag.ledger_bytes() == b""
    postbag.ready()
    before = postbag.ledger_bytes()
    assert postbag.refused("close", env=empty) == f"close is the human's verb {thread}"
    assert postbag.ledger_bytes() == before


def test_the_refusal_names_the_variables_never_their_values(postbag):
    secret = "tok-do-not-show"
    result = postbag.run("open", "3", env={"CLAUDE_CODE_MESSAGING_TOKEN": secret, "CLAUDECODE": "1"})
    assert result.stderr == (
        "postbag: open is the human's verb (this shell has CLAUDE_CODE_MESSAGING_TOKEN and CLAUDECODE, which mark "
        f"an agent's session){STOP}"
    )
    assert secret not in result.stdout + result.stderr


def test_open_help_still_helps_inside_a_session_and_opens_nothing(postbag):
    shown = postbag.ok("open", "--help", inside="claude")
    assert shown.startswith("usage: postbag open [N] [--limit N] [--afresh] [--no-wake]\n")
    assert "letters granted (default 12)" in shown
    assert postbag.ledger_bytes() == b""


@pytest.mark.shipped
@pytest.mark.parametrize(("recipient", "sender"), [("codex", "claude"), ("claude", "codex")])
def test_send_belongs_to_the_other_peer(postbag, recipient, sender):
    postbag.ready()
    before = postbag.ledger_bytes()
    expected = f"send {recipient} is {sender}'s verb; run it inside a {sender} session"
    assert postbag.refused("send", recipient, "hi") == (
        f"{expected} (this terminal is in no agent's session: ask {sender} to do it, or run it in {sender}'s session)"
    )
    assert postbag.refused("send", recipient, "hi", inside=recipient) == (
        f"{expected} (this is a {recipient} session: to write to {sender}, run postbag send {sender})"
    )
    assert postbag.ledger_bytes() == before


def test_codex_thread_id_is_preferred_to_the_session_root(postbag, codex):
    thread = "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2b"
    postbag.ok("join", "codex", inside="codex", env={"CODEX_THREAD_ID": thread, "CODEX_SESSION_ID": "root"})
    postbag.open()
    postbag.ok("send", "codex", "hi", inside="claude")
    assert codex.calls()[0]["argv"][2] == thread


@pytest.mark.parametrize(
    "thread", ["", "not-a-uuid", "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2", "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2g"]
)
def test_a_malformed_thread_id_is_refused_not_replaced_by_the_root(thread):
    with pytest.raises(Refusal) as refused:
        guards.door_of_this_session("codex", Here({"CODEX_THREAD_ID": thread, "CODEX_SESSION_ID": "root"}, "/"))
    assert str(refused.value) == "CODEX_THREAD_ID is not a thread id"


def test_join_codex_with_a_malformed_thread_id_records_nothing(postbag):
    assert postbag.refused("join", "codex", inside="codex", env={"CODEX_THREAD_ID": "x"}) == (
        "CODEX_THREAD_ID is not a thread id"
    )
    assert postbag.ledger_bytes() == b""


@pytest.mark.shipped
@pytest.mark.parametrize(
    ("peer", "variables", "name"),
    [
        ("codex", {"CODEX_THREAD_ID": None, "CODEX_SESSION_ID": "root\udce9"}, "CODEX_SESSION_ID"),
        ("claude", {"CLAUDE_CODE_MESSAGING_TOKEN": "tok\udce9"}, "CLAUDE_CODE_MESSAGING_TOKEN"),
        ("claude", {"CLAUDE_CODE_MESSAGING_SOCKET": "/tmp/in\udce9.sock"}, "CLAUDE_CODE_MESSAGING_SOCKET"),
    ],
)
def test_a_door_field_no_door_can_carry_is_refused_at_join_and_records_nothing(postbag, peer, variables, name):
    """A field of bytes that are not UTF-8, which a session's variables may hold."""
    assert postbag.refused("join", peer, inside=peer, env=variables) == f"{name} is not valid text"
    assert postbag.ledger_bytes() == b""


@pytest.mark.parametrize(
    ("name", "known"),
    [
        ("CLAUDECODE", True),
        ("CLAUDE_CODE_MESSAGING_TOKEN", True),
        ("CLAUDE_CODE_SOMETHING_NEW", True),
        ("CODEX_THREAD_ID", True),
        ("CODEX_PARENT_THREAD_ID", True),
        ("CODEX_SESSION_ID", True),
        ("CODEX_HOME", False),
        ("CLAUDE_CONFIG_DIR", False),
        ("PATH", False),
    ],
)
def test_vendor_session_variables_are_known_by_family(name, known):
    assert vendors.is_session_variable(name) is known


@pytest.mark.shipped
def test_no_vendor_session_variable_reaches_codex_queue(postbag, codex):
    postbag.ready()
    vendor = {
        "CLAUDECODE": "1",
        "CLAUDE_CODE_SESSION_ID": "claude-session",
        "CLAUDE_CODE_ENTRYPOINT": "cli",
        "CLAUDE_CODE_MESSAGING_NEXT": "a variable a later Claude Code may add",
        "CODEX_THREAD_ID": "",
        "CODEX_SESSION_ID": "",
        "CODEX_PARENT_THREAD_ID": "a variable a later Codex may add",
    }
    kept = {"KEEP_ME": "kept", "CODEX_HOME": "/somewhere/codex"}
    postbag.ok("send", "codex", "hi", inside="claude", env={**vendor, **kept})
    env = codex.calls()[0]["env"]
    assert not {*vendor, *postbag.session("claude"), "POSTBAG_LEDGER"} & set(env)
    assert {name: env[name] for name in kept} == kept


@pytest.mark.shipped
@pytest.mark.parametrize("marks", [{"CLAUDECODE": "1"}, {"CLAUDE_CODE_SESSION_ID": "s", "CLAUDECODE": "1"}])
def test_a_claude_session_without_its_inbox_is_told_its_messaging_is_off(postbag, marks):
    """Claude Code unsets the inbox variables where cross-session messaging is off: such a
    session is told why nothing can reach it, by the command line and the door alike."""
    reason = (
        "this Claude Code session has no inbox for letters: its cross-session messaging is off "
        "(a --restricted session, or messaging switched off in this Claude Code), so no letter can reach it"
    )
    assert postbag.refused("join", "claude", env=marks) == reason
    server = postbag.mcp(env=marks)
    server.handshake()
    assert server.tool("join") == (f"postbag: {reason}; stop and ask the human", True)
    server.close()
    assert postbag.ledger_bytes() == b""


def test_join_claude_refuses_an_inbox_socket_that_is_not_there(postbag, inbox, tmp_path):
    gone, plain = tmp_path / "gone.sock", tmp_path / "plain"
    plain.write_text("")
    for path, why in ((gone, "it does not exist"), (plain, "it is not a socket")):
        env = {**inbox.session_env(), "CLAUDE_CODE_MESSAGING_SOCKET": str(path)}
        assert postbag.refused("join", "claude", env=env) == (
            f"Claude Code named an inbox socket that is not there ({why}); no letter could reach this session"
        )
    assert postbag.ledger_bytes() == b""
