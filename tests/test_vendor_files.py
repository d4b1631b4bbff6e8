"""The vendors' files are untrusted input: whatever stands where a reader looks (a pipe, a
directory, a link, a huge file, bytes that are no JSON, JSON of any shape, nesting too
deep, numbers past what their use holds, words meant for a terminal), every verb a person
or an agent runs ends, says what it knows in escaped words or says it cannot tell, never
shows a traceback, never wakes a thread on a doubt, and a delivered letter is always said
to be delivered. Each class of damage the issue named has a test here with the words a
user sees; a property test then feeds every reader whatever hypothesis makes."""

import json
import os
import signal
import sqlite3

import pytest
from helpers import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from written import session_pid, write_lines

RESUMED_WHERE = "(in the app or editor, or with codex resume)"
# What no output may hold raw: every character escape.py writes as an escape, but the newline.
UNSAFE = {chr(c) for c in (*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))}
UNSAFE |= {"\u2028", "\u2029"}
UNSAFE.discard("\n")


BOUND = 60  # seconds a test here may take: far more than every verb it runs together


@pytest.fixture
def within():
    """A bound on how long a test may take: a reader that hangs fails it, rather than the
    suite. An alarm ends a wait in Python; a wait in C that retries when interrupted (SQLite
    opening a pipe) ends the test's process, saying why, a little later."""
    import sys
    import threading

    def hung(*_):
        raise AssertionError(f"a verb did not end within {BOUND} s")

    done = threading.Event()

    def watch():
        if not done.wait(BOUND + 10):
            sys.stderr.write(f"\na verb did not end within {BOUND + 10} s, even when interrupted: ending the tests\n")
            os._exit(3)

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(BOUND)
    threading.Thread(target=watch, daemon=True).start()
    yield
    done.set()
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def said(result):
    """Stdout and stderr of a verb run, checked for what no output may hold."""
    text = result.stdout + result.stderr
    assert "Traceback" not in text and not (set(text) & UNSAFE) and not any(0xD800 <= ord(c) < 0xE000 for c in text)
    return text


def places(postbag, inbox, codex, exchange, tmp_path):
    """Every file a reader of either room looks at, for the exchange's session and thread."""
    claude, codex_files, _, _ = exchange
    return {
        "claude settings": os.path.join(claude.config, "settings.json"),
        "claude project settings": str(tmp_path / "repo" / ".claude" / "settings.json"),
        "claude managed settings": os.path.join(postbag.root, "etc", "claude-code", "managed-settings.json"),
        "claude session file": os.path.join(claude.config, "sessions", f"{session_pid()}.json"),
        "claude transcript": claude.transcript,
        "codex rollout": codex_files.rollout,
        "codex queue": os.path.join(codex_files.home, "queue_1.sqlite"),
        "codex queue journal": os.path.join(codex_files.home, "queue_1.sqlite-wal"),
        "codex daemon record": os.path.join(codex_files.home, "app-server-daemon", "daemon.pid"),
        "codex thread lock": os.path.join(codex_files.home, "thread-writer-locks", f"{codex.thread}.lock"),
    }


@pytest.fixture
def damaged(postbag, inbox, codex, exchange, tmp_path):
    """The exchange, claude's session running in a project and codex's thread loaded once,
    with every file a reader looks at where the readers look: each test damages some."""
    claude, codex_files, _, _ = exchange
    claude.runs(tmp_path / "repo")
    claude.settings(claude.config, "accept")
    # Where damage makes Claude's records foretell a hold, a knock waits for Claude's word:
    # the fake session gives it at once, as Claude does.
    inbox.says = {"status": "held"}
    codex_files.lock_file()
    codex_files.settings("never")
    codex_files.daemon()
    codex_files.queued("not a letter")
    return places(postbag, inbox, codex, exchange, tmp_path)


def run_everything(postbag):
    """What a person and the agents run that reads the vendors' files: their words."""
    words = []
    for args, inside in [(("open", "100"), None), (("receipts", "3"), None), (("receipts", "--json"), "codex")]:
        result = postbag.run(*args, inside=inside)
        assert result.returncode == 0, result.stderr
        words.append(said(result))
    for recipient, sender in (("claude", "codex"), ("codex", "claude")):
        before = postbag.ledger_bytes().count(b"\n")
        result = postbag.run("send", recipient, "checking", inside=sender)
        text = said(result)
        if postbag.ledger_bytes().count(b"\n") > before:  # recorded: then said, on stdout or stderr
            assert result.returncode == 0 and f"letter {before + 1} delivered to {recipient}" in text
        else:
            assert result.returncode == 1 and text.endswith("; stop and ask the human\n")
        words.append(text)
    text, error = postbag.status()
    assert not error and "Traceback" not in text and not (set(text) & UNSAFE)
    words.append(text)
    return "\n".join(words)


PLACES = [
    "claude settings",
    "claude project settings",
    "claude managed settings",
    "claude session file",
    "claude transcript",
    "codex rollout",
    "codex queue",
    "codex queue journal",
    "codex daemon record",
    "codex thread lock",
]


@pytest.mark.parametrize("place", PLACES)
def test_a_pipe_where_a_vendor_file_should_be_hangs_no_verb(postbag, damaged, within, place):
    plant(damaged[place], "pipe", b"")
    words = run_everything(postbag)
    if place == "codex queue":
        assert "unknown: codex's queue is not a regular file" in words
    if place == "codex rollout":
        assert "cannot read the thread's rollout (it is not a regular file)" in words


@pytest.mark.parametrize(
    ("record", "place"),
    [
        ("[1, 2, 3]", "codex rollout"),  # a line that is no object
        ('"a string"', "claude transcript"),
        ("[" * 100_000 + "]" * 100_000, "codex rollout"),  # nesting past the parser's recursion
        ('{"pid": 99999999999999999999999999, "processIdentity": {"startTicks": "x"}}', "codex daemon record"),
        ('{"pid": "12", "processIdentity": []}', "codex daemon record"),
        ('{"pid": 1e400}', "claude session file"),
        ('{"crossSessionInbound": ["hold"], "permissions": "all", "dialogExpiry": 5}', "claude settings"),
        (
            '{"type": "event_msg", "payload": {"type": "thread_settings_applied", "thread_settings": 7}}',
            "codex rollout",
        ),
        ('{"type": "user", "permissionMode": {"x": 1}, "timestamp": 5}', "claude transcript"),
    ],
    ids=[
        "a list",
        "a string",
        "nested too deep",
        "a pid past a C long",
        "a pid of text",
        "a float pid",
        "settings of other types",
        "settings that are a number",
        "a mode that is an object",
    ],
)
def test_a_record_of_another_shape_is_no_sign_and_no_traceback(postbag, damaged, within, record, place):
    write_lines(damaged[place], [record])
    run_everything(postbag)


def test_after_the_daemons_record_is_damaged_open_records_the_exchange_and_says_it_cannot_tell(postbag, damaged):
    with open(damaged["codex daemon record"], "w") as file:
        file.write('{"pid": 99999999999999999999999999}')
    opened = postbag.run("open", "4")
    assert (opened.returncode, opened.stdout) == (0, "exchange open: 4 letters\n")
    assert "postbag: codex can take a letter now: no running codex has its thread loaded, and the next letter" in (
        opened.stderr  # a daemon whose record cannot be read is not said to be down
    )


@pytest.mark.parametrize(
    ("policy", "shown"),
    [
        ("on-\x1b[31mrequest\x07", "on-\\x1b[31mrequest\\x07"),
        ("x" * 65536, "x" * 79 + "…"),
        ("on-\ud800request", "on-\\ud800request"),  # a lone surrogate, as JSON's \ud800 escape gives one
    ],
    ids=["escapes", "64 KB", "a lone surrogate"],
)
def test_a_policy_from_a_rollout_is_shown_escaped_and_cut_short_and_the_letter_is_said_delivered(
    postbag, damaged, policy, shown
):
    write_lines(
        damaged["codex rollout"],
        [
            json.dumps(
                {
                    "type": "event_msg",
                    "payload": {"type": "thread_settings_applied", "thread_settings": {"approval_policy": policy}},
                }
            )
        ],
    )
    sent = postbag.run("send", "codex", "Look at this.", inside="claude")
    assert sent.returncode == 0 and sent.stdout == (
        "letter 6 delivered to codex, 9 left; but it waits in codex's queue: no running codex has the thread "
        f"loaded, and postbag does not wake it: the thread asks for approvals (approval_policy {shown}), and nobody "
        "could give one to a woken turn; it is taken when the thread is resumed where a person can approve "
        f"{RESUMED_WHERE}\n"
    )
    text, _ = postbag.status()
    assert f"(approval_policy {shown})" in text


def test_a_newest_settings_record_that_states_no_policy_wakes_nothing_though_an_older_said_never(
    postbag, damaged, codex
):
    write_lines(damaged["codex rollout"], [{"type": "turn_context", "payload": {"cwd": "/work", "model": "m"}}])
    sent = postbag.ok("send", "codex", "Still asleep?", inside="claude")
    assert "postbag does not wake it, since its rollout does not say whether a woken turn could stop" in sent
    assert codex.resumed()[-1] is False


def test_a_warning_after_long_logs_from_codex_queue_is_still_told_apart(postbag, damaged, codex):
    logs = "".join(f"2026-12-04T10:00:00.{n:06d}Z  INFO codex_core::queue: polling the queue\n" for n in range(200))
    warning = f"Warning: message was queued, but could not resume thread {codex.thread}: start a local daemon\n"
    codex.behave(say=logs + warning)
    assert len(logs) > 8192
    sent = postbag.ok("send", "codex", "Wake up.", inside="claude")
    assert sent.endswith(
        "and codex's daemon, which wakes it, is not running: once the human runs codex app-server "
        "daemon start, the next letter wakes the thread, with any letters waiting for it\n"
    )
    codex.behave(say=logs)  # its log alone: the daemon took the thread
    again = postbag.ok("send", "codex", "Again.", inside="claude")
    assert again.endswith("; codex's daemon woke the thread to take it\n")
    codex.behave(say="Warning: something postbag has never seen\n")
    assert postbag.ok("send", "codex", "Once more.", inside="claude").endswith(
        "; but whether codex's daemon woke the thread is not known: codex queue said what postbag does not know\n"
    )


def test_receipts_open_and_send_take_the_exchanges_wake_switch_from_one_place(postbag, damaged, codex):
    """An exchange opened --no-wake: every word says the letter waits, none that it wakes."""
    postbag.ok("open", "5", "--no-wake")
    codex.behave(say="")
    sent = postbag.ok("send", "codex", "Asleep?", inside="claude")
    assert "this exchange wakes no thread (it was opened with --no-wake)" in sent and codex.resumed()[-1] is False
    with sqlite3.connect(damaged["codex queue"]) as db:
        db.execute(
            "UPDATE queued_items SET payload_json = ?",
            (json.dumps({"UserInput": {"content": [{"type": "text", "text": codex.envelopes()[-1]}]}}),),
        )
    db.close()
    [receipt] = postbag.receipts(inside="claude")
    assert "this exchange wakes no thread (it was opened with --no-wake)" in receipt
    assert "wakes it through" not in receipt
    assert "this exchange wakes no thread" in postbag.run("open", "5", "--no-wake").stderr


# Whatever hypothesis makes, in every place a reader looks

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80) | st.floats() | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "pid",
                    "sessionId",
                    "cwd",
                    "procStart",
                    "type",
                    "payload",
                    "timestamp",
                    "content",
                    "crossSessionInbound",
                    "permissionMode",
                    "approval_policy",
                    "thread_settings",
                    "startTicks",
                    "processIdentity",
                    "operation",
                    "role",
                    "text",
                    "version",
                    "cli_version",
                    "dialogExpiry",
                ]
            )
            | st.text(max_size=8),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)
CONTENT = st.one_of(
    st.binary(max_size=300).map(lambda data: ("bytes", data)),
    JSON.map(lambda value: ("json", json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))),
    st.lists(JSON, max_size=4).map(lambda values: ("lines", b"\n".join(json.dumps(v).encode() for v in values))),
    st.sampled_from(["pipe", "directory", "link to nothing", "link to a pipe", "huge"]).map(lambda kind: (kind, b"")),
)


def remove(path):
    """Whatever stands at `path`, gone."""
    if os.path.isdir(path) and not os.path.islink(path):
        os.rmdir(path)
    elif os.path.lexists(path):
        os.remove(path)


def plant(path, kind, data):
    """Put what `kind` names at `path`, whatever stood there."""
    remove(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if kind == "pipe":
        os.mkfifo(path)
    elif kind == "directory":
        os.mkdir(path)
    elif kind == "link to nothing":
        os.symlink(path + ".nowhere", path)
    elif kind == "link to a pipe":
        if not os.path.exists(path + ".pipe"):
            os.mkfifo(path + ".pipe")
        os.symlink(path + ".pipe", path)
    elif kind == "huge":
        with open(path, "wb") as file:
            file.truncate(2 << 20)  # sparse: more than a settings file or a record of a process holds
    else:
        with open(path, "wb") as file:
            file.write(data)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(place=st.sampled_from(PLACES), content=CONTENT)
@example(place="claude settings", content=("json", b'{"crossSessionInbound": [], "dialogExpiry": {}}'))  # unhashable
def test_whatever_stands_in_a_vendors_file_every_verb_ends_and_says_what_it_knows(
    postbag, damaged, within, place, content
):
    from postbag import jsonrpc, mcp
    from postbag.mcp_tools import Toolbox

    path = damaged[place]
    try:
        with open(path, "rb") as file:
            kept = file.read()
    except OSError:
        kept = None
    plant(path, *content)
    try:
        for args, inside in [(("open", "100"), None), (("receipts", "3"), None), (("receipts", "--json"), "codex")]:
            result = postbag.run(*args, inside=inside)
            assert result.returncode == 0, result.stderr
            said(result)
        for recipient, sender in (("claude", "codex"), ("codex", "claude")):
            before = postbag.ledger_bytes().count(b"\n")
            result = postbag.run("send", recipient, "checking", inside=sender)
            text = said(result)
            if postbag.ledger_bytes().count(b"\n") > before:  # recorded, and so said
                assert result.returncode == 0 and f"letter {before + 1} delivered to {recipient}" in text
            else:
                assert result.returncode == 1 and text.endswith("; stop and ask the human\n"), text
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "status", "arguments": {}}}
        reply = jsonrpc.answer(json.dumps(call).encode(), mcp.methods_of(postbag.place("claude"), Toolbox()))
        [status] = reply["result"]["content"]
        assert reply["result"]["isError"] is False and not (set(status["text"]) & UNSAFE)
    finally:
        remove(path)
        if kept is not None:
            plant(path, "bytes", kept)


LINE = st.one_of(
    st.builds(lambda n, pad: json.dumps({"n": n, "mark": 1, "pad": "x" * pad}), st.integers(0, 99), st.integers(0, 40)),
    st.builds(lambda pad: json.dumps({"pad": "y" * pad}), st.integers(0, 40)),
    st.binary(max_size=30).map(lambda raw: raw.replace(b"\n", b" ").decode("latin-1")),
)


@settings(max_examples=examples(200), deadline=None)
@given(lines=st.lists(LINE, max_size=30), block=st.integers(1, 64), look_back=st.integers(0, 2000), end=st.booleans())
def test_the_search_from_the_end_finds_what_reading_every_line_backwards_finds(lines, block, look_back, end):
    """find_back reads a file in blocks from its end: a record cut by a block's edge is read
    whole with the next, whatever the size of the blocks; what lies before look_back is not read."""
    import tempfile
    from unittest import mock

    from postbag import vendor_files

    data = "\n".join(lines).encode("latin-1") + (b"\n" if end else b"")
    with tempfile.NamedTemporaryFile() as file:
        file.write(data)
        file.flush()
        with mock.patch.object(vendor_files, "_BLOCK", block):
            found, why = vendor_files.find_back(file.name, "a file", b'"mark"', lambda r: "n" in r, None, look_back)
    read = data[max(0, len(data) - look_back) :]
    whole = read.split(b"\n")[1:] if len(data) > look_back else read.split(b"\n")  # the first is cut, or may be
    expected = None
    for line in reversed(whole):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if type(record) is dict and b'"mark"' in line and "n" in record:
            expected = record
            break
    assert found == expected
    assert why == ("a file is longer than postbag reads back" if len(data) > look_back and found is None else None)


def test_a_vendors_file_is_read_whole_however_few_bytes_each_read_gives(tmp_path, monkeypatch):
    """A read may give fewer bytes than asked (a network file system does): the file is read
    until its end, or past its bound, and never taken for the part one read gave."""
    from postbag import vendor_files

    path = tmp_path / "settings.json"
    path.write_text('{"crossSessionInbound": "accept", "permissions": {"defaultMode": "default"}}')
    read = os.read
    monkeypatch.setattr(os, "read", lambda fd, size: read(fd, min(size, 7)))
    assert vendor_files.read_json(str(path)) == {
        "crossSessionInbound": "accept",
        "permissions": {"defaultMode": "default"},
    }
    with pytest.raises(OSError, match="it is longer than postbag reads"):
        vendor_files.read_regular(str(path), limit=20)
