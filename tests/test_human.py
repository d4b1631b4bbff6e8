"""The human's seat: close pulls the brake at once, read --follow watches the exchange live,
and read on a terminal says where the bag stands."""

import json
import os
import pty
import re
import select
import signal
import subprocess
import threading

import pytest
from helpers import AFRESH, TIMESTAMP

# open


@pytest.mark.shipped
def test_open_tells_the_human_once_who_has_yet_to_join(postbag):
    opened = postbag.run("open", "--limit", "6")
    assert (opened.stdout, opened.stderr) == (
        "exchange open: 6 letters\n",
        f"postbag: created the ledger {postbag.ledger}, and the directory {os.path.dirname(postbag.ledger)} for it\n"
        "postbag: neither agent has joined yet: no letter can reach them until each joins from its own session\n",
    )
    postbag.ok("join", "claude", inside="claude")
    claude_now = (
        "postbag: whether claude can take a letter now cannot be told: its client keeps no session files here\n"
    )
    assert postbag.run("open").stderr == (
        f"{postbag.wrote}"
        "postbag: this replaces the open exchange, which still had 6 of its 6 letters\n"
        "postbag: codex has not joined yet: no letter can reach it until it joins from its own session\n"
        f"{claude_now}"
    )
    postbag.ok("join", "codex", inside="codex")
    postbag.ok("send", "codex", "one", inside="claude")
    opened = postbag.run("open")
    codex_now = (
        "postbag: whether codex can take a letter now cannot be told: whether a running codex has its thread loaded "
        "is unknown here\n"
    )
    replaced = "postbag: this replaces the open exchange, which still had 11 of its 12 letters\n"
    said = postbag.wrote + replaced + claude_now + codex_now
    assert (opened.stdout, opened.stderr) == ("exchange open: 12 letters\n", said)
    postbag.ok("close")
    assert postbag.run("open").stderr == postbag.wrote + claude_now + codex_now  # a closed one is not replaced


# which ledger


def test_each_writer_names_a_ledger_that_is_not_the_default_and_the_first_says_it_created_it(postbag, tmp_path):
    """The person who opened one ledger while the sessions write another sees it at once."""
    ledger = tmp_path / "elsewhere" / "deeper" / "ledger.jsonl"
    elsewhere = {"POSTBAG_LEDGER": str(ledger)}
    opened = postbag.run("open", "3", env=elsewhere)
    assert opened.stdout == "exchange open: 3 letters\n"
    assert opened.stderr.splitlines()[0] == (
        f"postbag: created the ledger {ledger}, and the directory {tmp_path / 'elsewhere'} for it"
    )
    wrote = f"postbag: wrote to the ledger {ledger}, which POSTBAG_LEDGER names\n"
    for peer in ("claude", "codex"):
        joined = postbag.run("join", peer, inside=peer, env=elsewhere)
        assert (joined.stdout, joined.stderr) == (f"{peer} joined\n", wrote)
    sent = postbag.run("send", "codex", "hi", inside="claude", env=elsewhere)
    assert (sent.stdout, sent.stderr) == ("letter 4 delivered to codex, 2 left\n", wrote)
    closed = postbag.run("close", env=elsewhere)
    assert (closed.stdout, closed.stderr) == ("exchange closed: 1 of 3 letters sent\n", wrote)
    quiet = postbag.run("join", "claude", "--quiet", inside="claude", env=elsewhere)
    assert (quiet.stdout, quiet.stderr) == ("", "")  # a session-start hook wants silence


def test_a_session_on_another_ledger_is_told_which_ledger_holds_no_exchange(postbag, tmp_path):
    """The mismatch the person meets: they opened the default ledger, the session names
    another; the refusal names the session's, and the person's open named none."""
    home = tmp_path / "home"
    default = {"POSTBAG_LEDGER": None, "HOME": str(home)}
    opened = postbag.run("open", "3", env=default)
    assert opened.stderr.startswith(f"postbag: created the ledger {home}/.postbag/ledger.jsonl, and the directory ")
    again = postbag.run("open", "3", env=default).stderr  # open names the ledger it acted on, every time
    assert again.startswith(
        f"postbag: wrote to the ledger outside repositories, {home}/.postbag/ledger.jsonl\n"
        "postbag: this replaces the open exchange, which still had 3 of its 3 letters\n"
    )
    postbag.ok("join", "codex", inside="codex")
    assert postbag.refused("send", "codex", "hi", inside="claude") == "no exchange is open" + postbag.named
    assert postbag.refused("send", "codex", "hi", inside="claude", env=default) == "codex has not joined"


@pytest.mark.shipped
@pytest.mark.parametrize("relative", ["ledger.jsonl", "./bag/ledger.jsonl", "../ledger.jsonl"])
def test_a_relative_ledger_is_refused_by_every_verb_and_nothing_is_created(postbag, tmp_path, relative):
    before = sorted(os.listdir(tmp_path))  # the doubles' files, and the zipapp's python3
    for args, inside in [(("open", "2"), None), (("join", "codex"), "codex"), (("read",), None)]:
        reason = postbag.refused(*args, inside=inside, env={"POSTBAG_LEDGER": relative}, cwd=tmp_path)
        assert reason == (
            f"POSTBAG_LEDGER is a relative path ({relative}); give the ledger's absolute path, the same in both "
            "sessions and in your terminal"
        )
    assert sorted(os.listdir(tmp_path)) == before


def test_a_ledger_under_home_is_named_by_its_whole_path(postbag, tmp_path):
    home = tmp_path / "home"
    opened = postbag.run("open", "2", env={"POSTBAG_LEDGER": "~/bags/l.jsonl", "HOME": str(home)})
    assert opened.stderr.startswith(f"postbag: created the ledger {home}/bags/l.jsonl, and the directory {home}")
    assert (home / "bags" / "l.jsonl").exists()


def test_open_takes_its_number_as_read_does_or_as_an_option_but_not_both(postbag):
    assert postbag.open("4") == "exchange open: 4 letters\n"
    assert postbag.open("--limit", "5") == "exchange open: 5 letters\n"
    both = postbag.run("open", "4", "--limit", "5")
    assert both.returncode == 2
    assert both.stderr.endswith("postbag open: error: give the number of letters once: open N, or open --limit N\n")
    assert postbag.run("open", "0").stderr == (
        "usage: postbag open [N] [--limit N] [--afresh] [--no-wake]\n"
        "postbag open: error: the number of letters is a whole number of at least 1, not '0'\n"
    )
    assert [record["limit"] for record in postbag.records()] == [4, 5]


# close


@pytest.mark.shipped
def test_close_ends_the_exchange_at_once_and_the_next_send_is_refused(postbag, codex):
    postbag.ready(limit=6)
    postbag.ok("send", "codex", "one", inside="claude")
    assert postbag.ok("close") == "exchange closed: 1 of 6 letters sent\n"
    last = json.loads(postbag.ledger_bytes().splitlines()[-1])
    assert set(last) == {"n", "at", "kind"} and (last["n"], last["kind"]) == (5, "close")
    assert postbag.refused("send", "claude", "two", inside="codex") == "the human closed the exchange"
    assert len(codex.envelopes()) == 1
    assert re.fullmatch(rf"   5  {TIMESTAMP}  close  by the human\n", postbag.ok("read", "1"))
    assert json.loads(postbag.ok("read", "--json", "1")) == {"n": 5, "at": last["at"], "kind": "close"}
    postbag.open("--limit", "2")
    assert postbag.ok("send", "codex", "again", inside="claude") == "letter 7 delivered to codex, 1 left\n"


@pytest.mark.parametrize(
    ("setup", "said"),
    [
        ([], "no exchange is open; nothing was closed\n"),
        ([("open", "--limit", "1"), ("close",)], "the exchange is already closed; nothing was recorded\n"),
        ([("open", "--limit", "1"), ("send",)], "the exchange's letters are already spent; nothing was recorded\n"),
    ],
)
def test_close_with_nothing_to_close_says_so_and_records_nothing(postbag, setup, said):
    postbag.ok("join", "claude", inside="claude")
    postbag.ok("join", "codex", inside="codex")
    for step in setup:
        if step == ("send",):
            postbag.ok("send", "codex", "the only one", inside="claude")
        else:
            postbag.ok(*step)
    before = postbag.ledger_bytes()
    closed = postbag.run("close")
    assert (closed.returncode, closed.stdout, closed.stderr) == (0, said, f"postbag: looked in {postbag.named[2:-1]}\n")
    assert postbag.ledger_bytes() == before


def test_close_racing_senders_lets_each_letter_through_before_it_or_refuses_it_after(postbag, codex):
    postbag.ready(limit=100)
    environment = {**postbag.env, **postbag.session("claude")}
    senders = [
        subprocess.Popen(
            [*postbag.command, "send", "codex", f"racer {i}"],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(12)
    ]
    closing = postbag.run("close")
    outcomes = [(sender.wait(60), *sender.communicate()) for sender in senders]
    assert closing.returncode == 0 and closing.stdout.startswith("exchange closed: ")
    records = postbag.records()
    closed_at = next(r["n"] for r in records if r["kind"] == "close")
    recorded = [r["body"] for r in records if r["kind"] == "letter"]
    assert all(r["n"] < closed_at for r in records if r["kind"] == "letter")
    for status, out, err in outcomes:
        if status == 0:
            assert re.fullmatch(r"letter \d+ delivered to codex, \d+ left\n", out) and err == postbag.wrote
        else:
            assert (status, out, err) == (1, "", "postbag: the human closed the exchange; stop and ask the human\n")
    delivered = [envelope.rpartition("\n\n")[2] for envelope in codex.envelopes()]
    assert sorted(delivered) == sorted(recorded)  # never both delivered and refused
    assert sum(status == 0 for status, _, _ in outcomes) == len(recorded)


def test_close_help_warns_that_1_0_cannot_read_a_closed_ledger(postbag):
    assert "can no longer be read by postbag 1.0" in " ".join(postbag.ok("close", "--help").split())


# read --follow


@pytest.fixture
def follow(postbag):
    """Start `postbag read --follow ARGS`; whatever happens in the test, it is stopped after."""
    started = []

    def start(*args):
        started.append(Follower(postbag, *args))
        return started[-1]

    yield start
    for follower in started:
        if follower.process.poll() is None:
            follower.process.kill()
            follower.process.wait()


class Follower:
    """`postbag read --follow` running, its output read line by line as it comes."""

    def __init__(self, postbag, *args):
        self.process = subprocess.Popen(
            [*postbag.command, "read", "--follow", *args],
            env=postbag.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.pending = b""

    def lines(self, count, seconds=20):
        got, fd = [], self.process.stdout.fileno()  # read raw: a buffered reader would hide lines from select
        while len(got) < count:
            if b"\n" not in self.pending:
                ready, _, _ = select.select([fd], [], [], seconds)
                assert ready, f"read --follow printed {len(got)} lines, expected {count}: {got}"
                chunk = os.read(fd, 1 << 20)
                assert chunk, f"read --follow ended after {got}"
                self.pending += chunk
                continue
            line, _, self.pending = self.pending.partition(b"\n")
            got.append(line.decode() + "\n")
        return got

    def end(self):
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(20), self.process.stderr.read().decode()


@pytest.mark.shipped
def test_follow_prints_what_read_prints_then_every_new_record_once_whole_in_order(postbag, inbox, codex, follow):
    postbag.ready(limit=40)
    follower = follow("--json")
    assert [json.loads(line)["n"] for line in follower.lines(3)] == [1, 2, 3]

    def write(peer, recipient):
        for i in range(10):
            postbag.ok("send", recipient, f"{peer} {i}\n" + "x" * (i * 5000), inside=peer)

    writers = [threading.Thread(target=write, args=pair) for pair in (("claude", "codex"), ("codex", "claude"))]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    followed = [json.loads(line) for line in follower.lines(20)]
    assert followed == [json.loads(line) for line in postbag.ok("read", "--json").splitlines()][3:]
    assert [r["n"] for r in followed] == list(range(4, 24))
    assert follower.end() == (130, "")  # Ctrl-C ends it quietly


def test_follow_with_a_count_starts_from_the_last_n_records(postbag, follow):
    postbag.ready()
    follower = follow("2")
    assert [line.split()[2] for line in follower.lines(2)] == ["join", "open"]
    postbag.open("--limit", "5")
    assert follower.lines(1)[0].endswith("  open   5 letters\n")
    assert follower.end() == (130, "")


def test_follow_uses_the_human_format_and_shows_no_door(postbag, inbox, codex, follow):
    postbag.ready()
    follower = follow()
    follower.lines(3)
    postbag.ok("join", "claude", inside="claude")
    postbag.ok("send", "codex", "line one\nline two", inside="claude")
    new = "".join(follower.lines(3))
    assert re.fullmatch(
        rf"   4  {TIMESTAMP}  join   claude\n   5  {TIMESTAMP}  letter claude -> codex\n      line one\n",
        new,
    )
    assert follower.lines(1) == ["      line two\n"]
    status, said = follower.end()
    assert inbox.token not in new and inbox.path not in new and (status, said) == (130, "")


def test_follow_waits_for_a_ledger_that_does_not_exist_yet(postbag, follow):
    follower = follow()
    assert select.select([follower.process.stderr], [], [], 20)[0], "read --follow said nothing"
    said = follower.process.stderr.readline().decode()
    assert said == f"postbag: there is no ledger at {postbag.ledger} yet\n"
    postbag.open("--limit", "3")
    assert re.fullmatch(rf"   1  {TIMESTAMP}  open   3 letters\n", follower.lines(1)[0])
    assert follower.end() == (130, "")


def test_follow_into_a_closed_pipe_ends_quietly(postbag, codex, follow):
    postbag.ready()
    follower = follow()
    follower.lines(3)
    follower.process.stdout.close()
    postbag.ok("send", "codex", "nobody reads this", inside="claude")
    assert follower.process.wait(20) == 141
    assert follower.process.stderr.read() == b""


@pytest.mark.parametrize("how", ["replaced", "moved", "cut short"])
def test_follow_stops_with_a_refusal_when_the_ledger_changes_under_it(postbag, how, follow):
    postbag.ready()
    follower = follow()
    follower.lines(3)
    if how == "replaced":
        os.rename(_copy(postbag.ledger), postbag.ledger)
    elif how == "moved":
        os.rename(postbag.ledger, postbag.ledger + ".old")
    else:
        os.truncate(postbag.ledger, 10)
    status = follower.process.wait(20)
    said = follower.process.stderr.read().decode()
    word = "cut short" if how == "cut short" else "moved or replaced"
    expected = f"postbag: the ledger was {word} while read followed it ({postbag.ledger})\n"  # the person's words
    assert (status, said, follower.process.stdout.read()) == (1, expected, b"")


def _copy(path):
    with open(path, "rb") as source, open(path + ".new", "wb") as target:
        target.write(source.read())
    return path + ".new"


def test_following_sleeps_between_its_looks_at_the_file_rather_than_spinning(postbag, monkeypatch):
    """What a follower spends while nothing comes: one look, then its interval asleep."""
    from postbag import ledger, ledger_position

    postbag.ready()
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        if len(slept) == 3:
            raise KeyboardInterrupt  # as the person ends it

    monkeypatch.setattr(ledger_position.time, "sleep", sleep)
    with ledger.Ledger(postbag.ledger) as bag:
        position = bag.position()
    with pytest.raises(KeyboardInterrupt):
        list(position.follow(0.25))
    assert slept == [0.25, 0.25, 0.25]


# Where the bag stands


def read_on_a_terminal(postbag, *args, status=0):
    """`postbag read ARGS` with stdout on a terminal, which must exit `status`; returns (stdout, stderr)."""
    leader, terminal = pty.openpty()
    try:
        result = subprocess.run(
            [*postbag.command, "read", *args], env=postbag.env, stdout=terminal, stderr=subprocess.PIPE, check=False
        )
    finally:
        os.close(terminal)
    shown = b""
    while select.select([leader], [], [], 0.5)[0]:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # Linux says EIO once the terminal's other end is gone
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert result.returncode == status
    return shown.decode().replace("\r\n", "\n"), result.stderr.decode()


def test_read_on_a_terminal_ends_with_where_the_bag_stands(postbag, codex):
    postbag.ready(limit=6)
    postbag.ok("send", "codex", "one", inside="claude")
    shown, said = read_on_a_terminal(postbag)
    assert shown == postbag.ok("read")  # stdout as 1.0 prints it
    assert re.fullmatch(
        rf"postbag: {re.escape(postbag.standing)}: exchange of 6 letters, 1 sent, 5 left; "
        rf"claude joined {TIMESTAMP} from {re.escape(postbag.cwd)}, "
        rf"codex joined {TIMESTAMP} from {re.escape(postbag.cwd)}\n",
        said,
    )
    _, said = read_on_a_terminal(postbag, "2")
    assert said.startswith(f"postbag: {postbag.standing}: exchange of 6 letters, 1 sent, 5 left; ")
    postbag.ok("close")
    assert ": exchange of 6 letters, 1 sent, closed by the human; " in read_on_a_terminal(postbag)[1]
    assert read_on_a_terminal(postbag, "--json") == (postbag.ok("read", "--json"), "")


def test_a_damaged_line_the_last_line_relies_on_is_named_after_the_records(postbag):
    postbag.ready(limit=6)
    first, rest = postbag.ledger_bytes().split(b"\n", 1)
    postbag.write_ledger(first.replace(b'"peer": "claude"', b'"peer": "claude') + b"\n" + rest)
    shown, said = read_on_a_terminal(postbag, "1", status=1)
    assert shown == postbag.ok("read", "1")  # the last record, which is sound
    assert said == f"postbag: ledger line 1 is not a record ({postbag.ledger}){AFRESH}\n"  # the person's words


def test_read_on_a_terminal_names_a_peer_that_never_joined(postbag):
    postbag.ok("join", "codex", inside="codex")
    _, said = read_on_a_terminal(postbag)
    assert re.fullmatch(
        rf"postbag: ledger \S+, which POSTBAG_LEDGER names: no exchange opened; claude has not joined, "
        rf"codex joined {TIMESTAMP} from \S+\n",
        said,
    )


def test_a_count_of_one_is_said_in_the_singular(postbag):
    assert postbag.open("1") == "exchange open: 1 letter\n"
    replaced = postbag.run("open", "2").stderr
    assert "this replaces the open exchange, which still had 1 of its 1 letter\n" in replaced
    assert postbag.run("close").stdout == "exchange closed: 0 of 2 letters sent\n"
