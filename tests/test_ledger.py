"""The ledger file: private modes, locks, links and pipes, legacy and damaged contents, appends
that fail or must reach the disk (macOS's full flush, checked on any system)."""

import json
import os
import resource
import stat
import subprocess
import sys

import pytest
from helpers import AFRESH, AT, line, many_opens

from postbag import ledger, ledger_file
from postbag.refusal import Refusal
from postbag.times import Clock


def legacy_ledger(thread="0f0e0d0c-0b0a-4999-8888-777766665555", at=AT):
    return (
        line(n=1, at=at, kind="join", peer="codex", thread=thread)
        + line(n=2, at=at, kind="open", limit=4)
        + line(n=3, at=at, kind="letter", **{"from": "codex", "to": "claude", "body": "hi"})
    )


@pytest.mark.shipped
def test_a_new_ledger_and_each_new_directory_is_named_durably_before_the_first_record(postbag, tmp_path):
    """Maildir's rule: a name lives in its directory, so each directory that gains a name
    (the new directories' parents, the ledger's own directory) is flushed, and only then
    the record; a ledger that exists already gains no name, and only its record is."""
    log = tmp_path / "flushed.log"
    ledger = tmp_path / "a" / "b" / "ledger.jsonl"
    faulty = postbag.with_faults(f"flushes={log}")
    faulty.open("2", env={"POSTBAG_LEDGER": str(ledger)})
    identity = {
        (os.stat(p).st_dev, os.stat(p).st_ino): name
        for name, p in [("tmp", tmp_path), ("a", tmp_path / "a"), ("b", tmp_path / "a" / "b"), ("ledger", ledger)]
    }
    flushes = [identity.get(tuple(map(int, entry.split()))) for entry in log.read_text().splitlines()]
    assert flushes == ["tmp", "a", "b", "ledger"]
    log.unlink()
    faulty.open("2", env={"POSTBAG_LEDGER": str(ledger)})
    assert [identity.get(tuple(map(int, entry.split()))) for entry in log.read_text().splitlines()] == ["ledger"]


@pytest.mark.process  # a umask of its own
def test_created_private_whatever_the_umask(postbag, tmp_path):
    postbag.env["POSTBAG_LEDGER"] = str(tmp_path / "deep" / "er" / "ledger.jsonl")
    postbag.open(umask=0)
    for directory in (tmp_path / "deep", tmp_path / "deep" / "er"):
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(tmp_path / "deep" / "er" / "ledger.jsonl").st_mode) == 0o600


@pytest.mark.process  # a umask of its own
def test_a_loosened_ledger_is_made_private_again_on_write(postbag):
    postbag.open()
    os.chmod(postbag.ledger, 0o644)
    postbag.ok("read")
    assert stat.S_IMODE(os.stat(postbag.ledger).st_mode) == 0o644  # reading changes nothing
    postbag.open(umask=0)
    assert stat.S_IMODE(os.stat(postbag.ledger).st_mode) == 0o600


def test_an_existing_directory_keeps_its_mode(postbag, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    postbag.env["POSTBAG_LEDGER"] = str(shared / "ledger.jsonl")
    postbag.open()
    assert stat.S_IMODE(os.stat(shared).st_mode) == 0o755


@pytest.mark.shipped
def test_a_symlinked_ledger_is_refused_and_its_target_untouched(postbag, tmp_path):
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("")
    os.makedirs(os.path.dirname(postbag.ledger))
    os.symlink(target, postbag.ledger)
    expected = f"cannot open the ledger (it is a symbolic link: {postbag.ledger})"
    assert postbag.refused("open") == expected
    assert postbag.refused("read") == expected
    assert postbag.refused("join", "codex", inside="codex") == expected
    assert target.read_text() == ""


def test_a_fifo_ledger_is_refused_without_hanging(postbag):
    os.makedirs(os.path.dirname(postbag.ledger))
    os.mkfifo(postbag.ledger)
    expected = f"the ledger is not a regular file ({postbag.ledger})"
    assert postbag.refused("read", timeout=20) == expected
    assert postbag.refused("open", timeout=20) == expected
    assert postbag.refused("send", "codex", "hi", inside="claude", timeout=20) == expected


def test_records_are_1_0_json_lines(postbag):
    postbag.ready()
    raw = postbag.ledger_bytes().decode()
    for number, text in enumerate(raw.splitlines(), 1):
        record = json.loads(text)
        assert text == json.dumps(record)  # 1.0's own serialisation: default separators, ASCII
        assert list(record)[:3] == ["n", "at", "kind"] and record["n"] == number


def test_a_1_0_ledger_reads_and_continues(postbag, inbox, codex):
    postbag.write_ledger(legacy_ledger(thread=codex.thread))
    postbag.ok("join", "claude", inside="claude")
    assert postbag.ok("send", "codex", "and back", inside="claude") == "letter 5 delivered to codex, 2 left\n"
    assert "   3  2026-09-08T10:02:11+02:00  letter codex -> claude\n      hi\n" in postbag.ok("read")


@pytest.mark.parametrize("at", ["2026-09-08T10:02:11", "2026-09-08T10:02:11.123456", "2026-09-08T10:02:11Z"])
def test_older_timestamps_without_offset_still_read(postbag, codex, at):
    postbag.write_ledger(legacy_ledger(thread=codex.thread, at=at))
    assert f"   1  {at}  join   codex\n" in postbag.ok("read")
    postbag.open()


GOOD_LETTER = {"n": 4, "at": AT, "kind": "letter", "from": "claude", "to": "codex", "body": "x"}
DAMAGED = {
    "bad JSON": '{"n": 4, "at": ',
    "an array": "[4]",
    "a string": '"letter"',
    "null": "null",
    "unknown kind": json.dumps({**GOOD_LETTER, "kind": "note"}),
    "no kind": json.dumps({k: v for k, v in GOOD_LETTER.items() if k != "kind"}),
    "n as text": json.dumps({**GOOD_LETTER, "n": "4"}),
    "n as true": json.dumps({**GOOD_LETTER, "n": True}),
    "n as a float": json.dumps({**GOOD_LETTER, "n": 4.0}),
    "n out of sequence": json.dumps({**GOOD_LETTER, "n": 5}),
    "n past the digit limit": '{"n": 4' + "0" * 5000 + ', "at": "' + AT + '", "kind": "open", "limit": 3}',
    "limit past the digit limit": '{"n": 4, "at": "' + AT + '", "kind": "open", "limit": 1' + "0" * 5000 + "}",
    "limit as true": json.dumps({"n": 4, "at": AT, "kind": "open", "limit": True}),
    "limit of zero": json.dumps({"n": 4, "at": AT, "kind": "open", "limit": 0}),
    "limit as NaN": '{"n": 4, "at": "' + AT + '", "kind": "open", "limit": NaN}',
    "at missing": json.dumps({k: v for k, v in GOOD_LETTER.items() if k != "at"}),
    "at as a number": json.dumps({**GOOD_LETTER, "at": 20260908}),
    "at empty": json.dumps({**GOOD_LETTER, "at": ""}),
    "a letter to itself": json.dumps({**GOOD_LETTER, "to": "claude"}),
    "a letter from a stranger": json.dumps({**GOOD_LETTER, "from": "gemini"}),
    "an empty body": json.dumps({**GOOD_LETTER, "body": ""}),
    "a body that is a list": json.dumps({**GOOD_LETTER, "body": ["x"]}),
    "a join without token": json.dumps({"n": 4, "at": AT, "kind": "join", "peer": "claude", "socket": "/s"}),
    "a join with a NUL thread": json.dumps({"n": 4, "at": AT, "kind": "join", "peer": "codex", "thread": "a\0b"}),
    "a join of a stranger": json.dumps({"n": 4, "at": AT, "kind": "join", "peer": "gemini", "thread": "t"}),
    "deep nesting": "[" * 100000 + "]" * 100000,
    "an empty line": "",
}


@pytest.mark.parametrize("damage", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_last_line_is_refused_by_number_and_left_as_it_was(tmp_path, damage):
    path = tmp_path / "ledger.jsonl"
    written = (legacy_ledger() + damage + "\n").encode()
    path.write_bytes(written)
    for write in (False, True):
        with pytest.raises(Refusal) as refused:
            ledger.Ledger(str(path), write=write)
        assert str(refused.value) == f"ledger line 4 is not a record ({path})"
    assert path.read_bytes() == written


@pytest.mark.shipped
@pytest.mark.parametrize("damage", ["bad JSON", "n out of sequence", "deep nesting"])
def test_a_damaged_line_is_refused_by_number_by_every_verb_before_any_knock(postbag, codex, damage):
    postbag.write_ledger(legacy_ledger(thread=codex.thread) + DAMAGED[damage] + "\n")
    expected = f"ledger line 4 is not a record ({postbag.ledger})"
    assert postbag.refused("read", "1") == expected + AFRESH  # in the person's terminal, the person's words
    assert postbag.refused("read", "1", inside="codex") == expected
    assert postbag.refused("send", "codex", "hi", inside="claude") == expected
    assert postbag.refused("open") == expected + AFRESH
    assert codex.calls() == []


def test_invalid_utf8_in_the_file_is_refused(postbag, codex):
    damaged = legacy_ledger(thread=codex.thread).encode().replace(b'"hi"', b'"h\xffi"')
    postbag.write_ledger(damaged)
    assert postbag.refused("read", "1") == f"ledger line 3 is not a record ({postbag.ledger})" + AFRESH


def test_a_deleted_line_anywhere_is_refused(postbag, codex):
    lines = legacy_ledger(thread=codex.thread).splitlines(keepends=True)
    postbag.write_ledger(lines[0] + lines[2])
    assert postbag.refused("open") == f"ledger line 2 is not a record ({postbag.ledger})" + AFRESH
    assert (
        postbag.refused("send", "codex", "hi", inside="claude") == f"ledger line 2 is not a record ({postbag.ledger})"
    )


def test_an_inserted_line_is_refused(postbag, codex):
    lines = legacy_ledger(thread=codex.thread).splitlines(keepends=True)
    postbag.write_ledger(lines[0] + lines[0] + "".join(lines[1:]))
    # Line 2 repeats line 1: it is the first line that is not a record in its place.
    assert postbag.refused("read", "2") == f"ledger line 2 is not a record ({postbag.ledger})" + AFRESH


def test_a_damaged_record_the_verb_does_not_rely_on_is_left_alone(postbag, codex):
    damaged = legacy_ledger(thread=codex.thread).replace('"limit": 4', '"limit": true')
    postbag.write_ledger(damaged + line(n=4, at=AT, kind="open", limit=2))
    postbag.ok("join", "claude", inside="claude")
    postbag.ok("send", "codex", "still works", inside="claude")
    assert postbag.refused("read", streamed=postbag.run("read").stdout) == (
        f"ledger line 2 is not a record ({postbag.ledger})" + AFRESH
    )


def test_extra_fields_from_other_versions_are_kept_out_of_read(postbag, codex):
    postbag.write_ledger(legacy_ledger(thread=codex.thread).replace('"body": "hi"', '"body": "hi", "mood": "calm"'))
    assert "calm" not in postbag.ok("read") + postbag.ok("read", "--json")


# What is not ours is not touched


@pytest.mark.shipped
@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_a_ledger_of_another_user_is_refused_by_name_untouched(postbag):
    import pwd

    postbag.ready()
    os.chmod(postbag.ledger, 0o644)
    nobody = pwd.getpwnam("nobody")
    os.chown(postbag.ledger, nobody.pw_uid, nobody.pw_gid)
    before = postbag.ledger_bytes()
    expected = f"the ledger belongs to another user, nobody ({postbag.ledger})"
    for args, inside in [(("read",), None), (("open",), None), (("join", "claude"), "claude")]:
        assert postbag.refused(*args, inside=inside) == expected
    assert postbag.refused("send", "codex", "hi", inside="claude") == expected
    status = os.stat(postbag.ledger)
    assert (postbag.ledger_bytes(), stat.S_IMODE(status.st_mode), status.st_uid) == (before, 0o644, nobody.pw_uid)


def test_a_file_that_is_no_ledger_keeps_its_mode_and_content(postbag):
    postbag.write_ledger("my notes\n")
    os.chmod(postbag.ledger, 0o644)
    assert postbag.refused("open") == f"ledger line 1 is not a record ({postbag.ledger})" + AFRESH
    assert postbag.ledger_bytes() == b"my notes\n"
    assert stat.S_IMODE(os.stat(postbag.ledger).st_mode) == 0o644


def test_a_ledger_a_thousand_directories_deep_is_created(postbag, tmp_path):
    deep = os.path.join(str(tmp_path), *["d"] * 1000, "ledger.jsonl")
    postbag.env["POSTBAG_LEDGER"] = deep
    try:
        opened = postbag.run("open")
        assert (opened.returncode, opened.stdout) == (0, "exchange open: 12 letters\n")
        assert deep not in opened.stderr  # named, and cut short in its middle
        assert stat.S_IMODE(os.stat(os.path.dirname(deep)).st_mode) == 0o700
    finally:  # from the bottom up: a recursive removal would exhaust pytest's own stack
        if os.path.exists(deep):
            os.unlink(deep)
        directory = os.path.dirname(deep)
        while directory != str(tmp_path) and os.path.isdir(directory):
            os.rmdir(directory)
            directory = os.path.dirname(directory)


@pytest.mark.parametrize(
    "field",
    [{"token": "tok\\udc80"}, {"socket": "/tmp/\\ud800.sock"}, {"body": "\\udfff"}, {"at": "\\ud83d"}],
    ids=["token", "socket", "body", "at"],
)
def test_a_lone_surrogate_in_any_field_is_not_a_record(postbag, field):
    records = [
        {"n": 1, "at": AT, "kind": "join", "peer": "claude", "socket": "/tmp/in.sock", "token": "tok"},
        {"n": 2, "at": AT, "kind": "open", "limit": 3},
        {"n": 3, "at": AT, "kind": "letter", "from": "codex", "to": "claude", "body": "hi"},
    ]
    target = next(r for r in records if next(iter(field)) in r)
    lines = []
    for record in records:
        text = json.dumps(record)
        if record is target:
            name, value = next(iter(field.items()))
            text = text.replace(json.dumps(record[name]), f'"{value}"')
        lines.append(text + "\n")
    postbag.write_ledger("".join(lines))
    bad = records.index(target) + 1
    assert postbag.refused("read") == f"ledger line {bad} is not a record ({postbag.ledger})" + AFRESH


def test_an_emoji_written_as_a_surrogate_pair_is_text(postbag):
    postbag.write_ledger(
        line(n=1, at=AT, kind="open", limit=2)
        + line(n=2, at=AT, kind="letter", **{"from": "codex", "to": "claude", "body": "ok \U0001f600"})
    )
    assert postbag.ok("read", "1").endswith("      ok \U0001f600\n")


PEAK_OF_CHILD = """\
import os, subprocess, sys
with open(os.devnull, "wb") as sink:
    child = subprocess.Popen(sys.argv[1:], stdout=sink)
    _, status, usage = os.wait4(child.pid, 0)
print(status, usage.ru_maxrss)
"""


def peak_memory(postbag, *args, inside=None):
    """The peak memory, in bytes, of `postbag ARGS` run inside `inside`'s session."""
    # A child's peak RSS starts at its parent's (Linux keeps it across exec), so postbag runs
    # under a small helper rather than under this test process.
    env = {**postbag.env, **(postbag.session(inside) if inside else {})}
    measured = subprocess.run(  # the helper without `site`, whose .pth files would load coverage into it
        [sys.executable, "-S", "-c", PEAK_OF_CHILD, *postbag.command, *args], env=env, capture_output=True, text=True
    )
    status, kilobytes = map(int, measured.stdout.split())
    assert status == 0, measured.stderr
    return kilobytes * (1 if sys.platform == "darwin" else 1024)


def test_a_hostile_line_costs_memory_in_proportion_to_its_length(postbag, tmp_path):
    """A 20 MB line of escaped control characters: what it adds to the peak memory of `read`
    stays a few times its size. The same interpreter reading a tiny ledger is the baseline."""
    opened = line(n=1, at=AT, kind="open", limit=2)
    postbag.write_ledger(opened + line(n=2, at=AT, kind="letter", **{"from": "codex", "to": "claude", "body": "x"}))
    baseline = max(peak_memory(postbag, "read"), peak_memory(postbag, "read", "1"))
    body = "\\u0001" * (20 * 1024 * 1024 // 6)
    record = f'{{"n": 2, "at": "{AT}", "kind": "letter", "from": "codex", "to": "claude", "body": "{body}"}}\n'
    postbag.write_ledger(opened + record)
    for args in (("read",), ("read", "1")):
        grown = peak_memory(postbag, *args) - baseline
        assert grown < 6 * len(record), (args, grown, baseline)


def test_a_send_or_a_short_read_does_not_hold_a_long_ledger_in_memory(postbag):
    """Both peers joined at the start of a 25 MB ledger: a send looks back through all of it
    for the door, and `read 1` counts every line, yet neither holds the file in memory."""
    postbag.ready()
    baseline = max(peak_memory(postbag, "read", "1"), peak_memory(postbag, "send", "codex", "hi", inside="claude"))
    postbag.write_ledger(postbag.ledger_bytes() + many_opens(5, 340_000))
    size = len(postbag.ledger_bytes())
    assert size > 25_000_000
    for args, inside in ((("read", "1"), None), (("send", "codex", "hi"), "claude")):
        grown = peak_memory(postbag, *args, inside=inside) - baseline
        assert grown < size // 8, (args, grown, baseline)
    assert postbag.ok("read", "1").startswith("340000  ")


def test_a_ledger_object_stays_true_after_each_append(tmp_path):
    from postbag.ledger import Ledger

    path = str(tmp_path / "ledger.jsonl")
    with Ledger(path, write=True, create=True, clock=Clock()) as bag:
        bag.append("open", limit=3)
        bag.append("join", peer="codex", thread="0f0e0d0c-0b0a-4999-8888-777766665555")
        assert (bag.count, bag.position().offset) == (2, os.path.getsize(path))
        assert [r["kind"] for r in bag.records()] == ["open", "join"]
        assert [r["kind"] for r in bag.tail(2)] == ["open", "join"]
        assert bag.exchange().left == 3 and bag.latest_join("codex")["thread"] == "0f0e0d0c-0b0a-4999-8888-777766665555"


NOT_RECORDED = (
    "letter 4 was submitted to {peer}'s door but not recorded ({reason}); "
    "do not resend before checking {peer}'s session"
)


def test_a_ledger_whose_directory_cannot_be_made_is_refused_as_unopenable(postbag, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    postbag.env["POSTBAG_LEDGER"] = str(blocker / "ledger.jsonl")
    reason = postbag.refused("open")
    assert reason.startswith("cannot open the ledger (")


def test_a_directory_at_the_ledgers_path_is_refused_as_no_regular_file(postbag, tmp_path):
    os.makedirs(postbag.ledger)
    assert postbag.refused("open") == f"the ledger is not a regular file ({postbag.ledger})"
    assert postbag.refused("read") == f"the ledger is not a regular file ({postbag.ledger})"


def test_an_appended_line_that_is_no_record_is_refused_by_every_verb(postbag):
    postbag.ready()
    postbag.write_ledger(postbag.ledger_bytes() + b'{"n": 4, "at": "x", "kind": "open", "limit": 0}\n')
    expected = f"ledger line 4 is not a record ({postbag.ledger})"
    assert postbag.refused("read") == expected + AFRESH
    assert postbag.refused("read", "1", inside="claude") == expected
    assert postbag.refused("open") == expected + AFRESH
    assert postbag.refused("send", "codex", "hi", inside="claude") == expected


def test_a_last_line_that_is_no_record_of_ours_is_refused_as_truncated(postbag):
    postbag.ready()
    postbag.write_ledger(postbag.ledger_bytes() + b"garbage without its newline")
    expected = f"ledger is truncated after line 3 ({postbag.ledger})"
    before = postbag.ledger_bytes()
    for args, inside in [(("read",), "codex"), (("send", "codex", "hi"), "claude")]:
        assert postbag.refused(*args, inside=inside) == expected
    assert postbag.refused("read") == postbag.refused("open") == expected + AFRESH
    assert postbag.ledger_bytes() == before  # nothing but an unfinished record is ever cut


@pytest.mark.shipped
@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("write=ENOSPC", "No space left on device"),
        ("write=EIO", "Input/output error"),
        ("write=EFBIG", "File too large"),
        ("fsync=EIO", "Input/output error"),
        ("short-write", "the disk took only part of the record"),
    ],
)
def test_an_append_that_fails_after_delivery_leaves_no_partial_record(postbag, codex, fault, reason):
    postbag.ready()
    before = postbag.ledger_bytes()
    refusal = postbag.with_faults(fault).refused("send", "codex", "hi", inside="claude")
    assert refusal == NOT_RECORDED.format(peer="codex", reason=reason)
    assert len(codex.calls()) == 1
    assert postbag.ledger_bytes() == before
    assert postbag.ok("send", "codex", "next", inside="claude") == "letter 4 delivered to codex, 11 left\n"


def test_a_file_size_limit_is_a_refusal_not_a_crash(postbag, codex):
    postbag.ready()
    # A long ledger, so the limit just past its end leaves room for every other file written.
    postbag.write_ledger(postbag.ledger_bytes() + many_opens(4, 20_000))
    before = postbag.ledger_bytes()

    def cap_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 10, resource.RLIM_INFINITY))

    env = {**postbag.env, **postbag.session("claude")}
    result = subprocess.run(
        [*postbag.command, "send", "codex", "hi"], env=env, capture_output=True, text=True, preexec_fn=cap_file_size
    )
    assert result.returncode == 1
    assert result.stderr.startswith("postbag: letter 20000 was submitted to codex's door but not recorded (")
    assert postbag.ledger_bytes() == before
    postbag.ok("read")


def test_join_and_open_that_cannot_write_say_so(postbag):
    postbag.open()
    before = postbag.ledger_bytes()
    refusal = postbag.with_faults("write=ENOSPC").refused("open")
    assert refusal == "cannot write the ledger (No space left on device)"
    assert postbag.ledger_bytes() == before


def test_a_ledger_that_cannot_be_locked_is_refused_untouched(postbag, codex):
    postbag.ready()
    before = postbag.ledger_bytes()
    faulty = postbag.with_faults("lock=ENOLCK")
    expected = f"cannot lock the ledger (No locks available: {postbag.ledger})"
    assert faulty.refused("read") == expected
    assert faulty.refused("send", "codex", "hi", inside="claude") == expected
    assert codex.calls() == [] and postbag.ledger_bytes() == before


@pytest.mark.parametrize("path", ["/tmp/bag\n.jsonl", "/tmp/\x1b]0;owned\x07.jsonl", "/tmp/\u202eldgr.jsonl"])
def test_a_ledger_path_with_control_characters_is_refused(postbag, path):
    postbag.env["POSTBAG_LEDGER"] = path
    assert postbag.refused("open") == "POSTBAG_LEDGER holds a control character"
    assert not os.path.exists(path)


def test_the_latest_door_is_found_wherever_the_blocks_of_the_pass_end(tmp_path):
    """A verb reads the ledger in blocks: for every block size, the latest join is found,
    though its line, or its quoted kind, lies across the edge of a block, and a join of
    the other peer lies between."""
    thread = "0f0e0d0c-0b0a-4999-8888-777766665555"
    text = (
        line(n=1, at=AT, kind="join", peer="claude", socket="/run/old.sock", token="old")
        + line(n=2, at=AT, kind="join", peer="claude", socket="/run/new.sock", token="new")
        + line(n=3, at=AT, kind="join", peer="codex", thread=thread)
        + line(n=4, at=AT, kind="open", limit=3)
    )
    path = tmp_path / "ledger.jsonl"
    path.write_text(text)
    for size in range(1, len(text) + 1):
        with ledger.Ledger(str(path), block=size) as bag:
            joins = bag.latest_joins()
            found = ({peer: joined["n"] for peer, joined in joins.items()}, bag.latest_join("claude")["token"])
        assert found == ({"claude": 2, "codex": 3}, "new"), size


def flushed(fd, calls, how):
    calls.append(("directory" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file", how))


def test_appends_and_new_names_use_the_full_flush_where_the_system_has_one(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(ledger_file.fcntl, "F_FULLFSYNC", 51, raising=False)
    monkeypatch.setattr(ledger_file.fcntl, "fcntl", lambda fd, command: flushed(fd, calls, command))
    monkeypatch.setattr(ledger_file.os, "fsync", lambda fd: flushed(fd, calls, "fsync"))
    with ledger.Ledger(str(tmp_path / "ledger.jsonl"), write=True, create=True, clock=Clock()) as bag:
        bag.append("open", limit=3)
    assert calls == [("directory", 51), ("file", 51)]  # the new file's name, then the record


def test_a_file_system_without_the_full_flush_falls_back_to_fsync(tmp_path, monkeypatch):
    calls = []

    def refuse(fd, command):
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(ledger_file.fcntl, "F_FULLFSYNC", 51, raising=False)
    monkeypatch.setattr(ledger_file.fcntl, "fcntl", refuse)
    monkeypatch.setattr(ledger_file.os, "fsync", lambda fd: flushed(fd, calls, "fsync"))
    with ledger.Ledger(str(tmp_path / "ledger.jsonl"), write=True, create=True, clock=Clock()) as bag:
        bag.append("open", limit=3)
    assert calls == [("directory", "fsync"), ("file", "fsync")]


def test_a_closed_ledger_keeps_what_it_read_and_refuses_to_read_more(tmp_path):
    """Ledger.close releases the file: lines already in hand stay readable, and asking for
    lines it would have to read again fails as a closed file does, not with a TypeError."""
    from postbag.ledger import Ledger

    path = tmp_path / "ledger.jsonl"
    path.write_bytes(many_opens(1, 5000))  # longer than the end a ledger keeps in hand
    with Ledger(str(path)) as bag:
        last = bag.tail(1)
    assert bag.tail(1) == last
    with pytest.raises(ValueError, match="the ledger was closed"):
        bag.tail(4999)


def test_an_append_holds_every_signal_while_it_writes_and_leaves_the_mask_as_it_found_it(tmp_path, monkeypatch):
    import signal

    during, write = [], os.write

    def watched_write(fd, data):
        during.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))
        return write(fd, data)

    before = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])  # a caller's own mask
    try:
        with ledger.Ledger(str(tmp_path / "ledger.jsonl"), write=True, create=True, clock=Clock()) as bag:
            monkeypatch.setattr(ledger_file.os, "write", watched_write)
            bag.append("open", limit=3)
            monkeypatch.undo()
        after = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
    unblockable = {signal.SIGKILL, signal.SIGSTOP}
    assert [set(signal.valid_signals()) - unblockable <= mask for mask in during] == [True]
    assert after == before | {signal.SIGUSR1}


def test_an_append_gives_back_the_file_size_signal_it_found(tmp_path):
    """An append ignores SIGXFSZ while it writes, so that a file-size limit is a refusal;
    afterwards a long-lived caller (the MCP server) has its own handling back."""
    import signal

    from postbag.ledger import Ledger

    def handler(number, frame):
        pass

    previous = signal.signal(signal.SIGXFSZ, handler)
    try:
        with Ledger(str(tmp_path / "ledger.jsonl"), write=True, create=True, clock=Clock()) as bag:
            bag.append("open", limit=3)
        assert signal.getsignal(signal.SIGXFSZ) is handler
    finally:
        signal.signal(signal.SIGXFSZ, previous)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to a user with no name")
def test_a_ledger_of_a_user_with_no_name_is_refused_naming_the_uid(postbag):
    postbag.write_ledger(b"")
    unnamed = next(uid for uid in range(54321, 64000) if not _named(uid))
    os.chown(postbag.ledger, unnamed, -1)
    assert postbag.refused("read") == f"the ledger belongs to another user, uid {unnamed} ({postbag.ledger})"


def _named(uid):
    import pwd

    try:
        return pwd.getpwuid(uid)
    except KeyError:
        return None


def test_without_home_a_persons_home_is_the_one_the_password_database_holds():
    import pwd

    from postbag.here import Here

    assert Here({}, "/").home() == pwd.getpwuid(os.getuid()).pw_dir
    assert Here({"HOME": ""}, "/").home() == pwd.getpwuid(os.getuid()).pw_dir
    assert Here({"HOME": "/home/elsewhere"}, "/").home() == "/home/elsewhere"


@pytest.mark.shipped
def test_lines_that_are_no_records_before_a_last_one_cut_short_are_named_by_the_first(postbag):
    postbag.ok("join", "claude", inside="claude")
    postbag.ok("join", "codex", inside="codex")
    postbag.write_ledger(postbag.ledger_bytes() + b"garbage one\ngarbage two\npartial")
    expected = f"ledger line 3 is not a record ({postbag.ledger})"
    before = postbag.ledger_bytes()
    for args, inside in [(("read", "1"), "codex"), (("send", "codex", "hi"), "claude"), (("join", "claude"), "claude")]:
        assert postbag.refused(*args, inside=inside) == expected
    assert postbag.refused("read", "1") == postbag.refused("open") == expected + AFRESH
    assert postbag.ledger_bytes() == before


def test_a_number_of_records_past_any_ledger_reads_them_all(postbag):
    postbag.ready()
    assert postbag.ok("read", "9" * 5000) == postbag.ok("read")
