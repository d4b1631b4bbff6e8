"""What reaches the terminal: every string escaped the same way, bodies indented under their
record, and no door field in any output."""

import json
import os

import pytest
from helpers import BODY_MAX

from postbag.escape import one_line
from postbag.words import body_lines


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ("one line", "      one line"),
        ("two\nlines\n", "      two\n      lines"),
        ("crlf\r\nends", "      crlf\n      ends"),
        ("tab\tkept", "      tab\tkept"),
        ("esc\x1b[2J", "      esc\\x1b[2J"),
        ("para\u2029graph", "      para\n      graph"),
        ("bidi \u202egnp.exe", "      bidi \\u202egnp.exe"),
        ("last break\x85", "      last break"),
        ("\n\nbelow two", "      \n      \n      below two"),
    ],
)
def test_a_body_is_laid_out_as_splitlines_breaks_it_with_the_rest_escaped(body, shown):
    assert body_lines(body) == shown
    assert len(body_lines(body).split("\n")) == len(body.splitlines())  # as many lines as 1.0 printed


def test_one_line_escapes_whatever_would_start_a_line_or_drive_a_terminal():
    assert one_line("plain text") == "plain text"
    assert one_line("a\nb\tc\x07d\x9be\u2066f\ud800") == "a\\x0ab\\x09c\\x07d\\x9be\\u2066f\\ud800"


@pytest.mark.shipped
def test_no_output_ever_shows_a_door_field(postbag, inbox, codex, tmp_path):
    secrets = [inbox.token, inbox.path, codex.thread, os.path.basename(inbox.path), inbox.session]
    outputs = []

    def run(*args, **kwargs):
        result = postbag.run(*args, **kwargs)
        outputs.append(result.stdout + result.stderr)

    run("join", "claude", inside="claude")
    run("join", "codex", inside="codex")
    run("open", "--limit", "3")
    run("open", inside="claude")
    run("send", "codex", "hello", inside="claude")
    run("send", "claude", "hello", inside="codex")
    run("send", "claude", "wrong way", inside="claude")
    for args in (("read",), ("read", "1"), ("read", "--json"), ("--help",), ("send", "--help")):
        run(*args)
    codex.behave(exit=1)
    run("send", "codex", "fails", inside="claude")
    inbox.close()
    run("send", "claude", "fails", inside="codex")
    run("send", "claude", "spent", inside="codex")
    run("send", "claude", "x" * (BODY_MAX + 1), inside="codex")
    postbag.write_ledger(postbag.ledger_bytes()[:-1])
    run("read")
    postbag.write_ledger(postbag.ledger_bytes() + b"\n{}\n")
    run("send", "codex", "hi", inside="claude")
    shown = "".join(outputs)
    assert "letter 4 delivered" in shown and "stop and ask the human" in shown
    for secret in secrets:
        assert secret not in shown


@pytest.mark.shipped
def test_read_shows_control_characters_as_escapes(postbag, inbox, codex):
    postbag.ready()
    body = "clear\x1b[2J\x1b]0;title\x07 bell\rreturn\x7f del \x85 nel \u202egnp.exe \u2066iso\ttab\nnext"
    postbag.ok("send", "codex", "-", inside="claude", input=body)
    shown = postbag.ok("read", "1")
    # \r and \x85 break lines, as str.splitlines() and so 1.0 break them; the rest is escaped.
    assert shown.endswith(
        "      clear\\x1b[2J\\x1b]0;title\\x07 bell\n"
        "      return\\x7f del \n"
        "       nel \\u202egnp.exe \\u2066iso\ttab\n"
        "      next\n"
    )
    assert json.loads(postbag.ok("read", "--json", "1"))["body"] == body
    assert codex.envelopes()[0].endswith("\n\n" + body)  # the recipient gets the letter as written


def test_a_forged_line_inside_a_body_stays_indented(postbag, codex):
    postbag.ready()
    postbag.ok("send", "codex", "-", inside="claude", input="fine\n   5  2026-09-08T10:02:11+02:00  open   99 letters")
    lines = postbag.ok("read").splitlines()
    assert lines[-1] == "         5  2026-09-08T10:02:11+02:00  open   99 letters"


def test_a_path_from_an_unusual_home_is_escaped_on_stderr(postbag, tmp_path):
    home = tmp_path / "home\x1b[2J\nfake"
    (home / ".postbag" / "ledger.jsonl").mkdir(parents=True)  # a directory where the ledger should be
    env = {"HOME": str(home), "POSTBAG_LEDGER": None}
    shown = str(home).replace("\x1b", "\\x1b").replace("\n", "\\x0a") + "/.postbag/ledger.jsonl"
    assert postbag.refused("open", env=env) == f"the ledger is not a regular file ({shown})"
