"""What Claude Code does with a postbag letter in the sessions people run, on the real
client, and what postbag says of it, word for word: `open` before it, the send at once
(Claude's own word, heard where it holds one), and the receipt after. A session that
bypasses permission prompts with crossSessionInbound unset holds the letter; with
accept, or in a session that prompts, it takes it. And Claude's inbound limit, which
postbag's knocks keep to."""

import time

import pytest
from sessions_helpers import HELD_WAITS, held_waits, join_both

from postbag.claude.room import HOLDS_SINCE
from postbag.times import Clock, moment

BYPASS = ["--dangerously-skip-permissions"]
AS_ROOT = {"IS_SANDBOX": "1"}  # Claude Code lets root bypass prompts only with this set
WAITS = HELD_WAITS
BYPASSES = (
    "it bypasses permission prompts (it was started in permission mode bypassPermissions), and a letter from postbag "
    "claims no permission mode, which such a session holds while crossSessionInbound is unset"
)
HOLDING = pytest.mark.since(versions={"claude": HOLDS_SINCE}, needs="a held letter kept from the model")


@pytest.mark.parametrize(
    ("args", "settings", "door"),
    [
        pytest.param(
            BYPASS,
            {},
            f"claude will not act on a letter at once: it holds each for the person's review, since {BYPASSES}; "
            f"{WAITS}; the person can let letters in by setting crossSessionInbound to accept in claude's "
            "settings.json",
            marks=HOLDING,
            id="bypassing, unset",
        ),
        pytest.param(
            BYPASS,
            {"crossSessionInbound": "accept"},
            "claude can take a letter now: its session runs, and its settings let letters from other sessions in "
            "(crossSessionInbound accept)",
            id="bypassing, accept",
        ),
        pytest.param(
            [],
            {},
            "claude can take a letter now: its session runs, and it prompts for permissions (it was started with no "
            "permission mode, and its settings set none), so letters get in while crossSessionInbound is unset",
            id="prompting",
        ),
    ],
)
def test_what_claude_does_with_a_letter_is_what_postbag_says_at_every_step(  # noqa: PLR0917
    real, claude, codex_home, args, settings, door
):
    session = claude(args=args, env=AS_ROOT, **settings)
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    person = {"HOME": session.home}  # the person's own home, where Claude keeps its records
    opened = real.run("open", "3", env=person)
    assert f"postbag: {door}\n" in opened.stderr, opened.stderr
    inside_codex = {"CODEX_THREAD_ID": thread, "HOME": session.home}
    sent = real.ok("send", "claude", "Are you there?", env=inside_codex)
    letter = real.records()[-1]
    if door.startswith("claude will not act"):  # held: Claude said so at once, and keeps it from the model
        held = f"claude holds it for the person's review, since {BYPASSES}; {held_waits(letter)}"
        assert sent == f"letter 4 delivered to claude, 2 left; but {held}\n"
        assert letter["recipient_said"] == "held"
        holds = [e for e in session.stream() if e.get("subtype") == "peer_message_hold"]
        assert [hold["cause"] for hold in holds] == ["no-mode-asserted"]
        assert real.ok("receipts", env=inside_codex) == f"letter 4 codex -> claude: not taken: {held}\n"
        session.say("Run: true")  # a turn of the person's own, after which a taken letter would show
        session.wait_for(lambda: any(e.get("type") == "result" for e in session.stream()), "the person's turn")
        assert session.letters() == []
    else:  # taken: nothing to hear, and the session takes it as a turn
        assert sent == "letter 4 delivered to claude, 2 left\n" and "recipient_said" not in letter
        session.wait_for(session.letters, "the letter's enqueue")
        assert real.ok("receipts", env=inside_codex).startswith("letter 4 codex -> claude: ")


@HOLDING
def test_a_held_letter_nobody_lets_in_expires_by_the_time_postbag_named_and_its_receipt_says_so(
    real, claude, codex_home
):
    """The session's own CLAUDE_CODE_USER_DIALOG_TIMEOUT_MS, read from its process, sets the
    time: while it runs the letter is held, not waiting; once it has passed, the receipt says
    the letter expired unanswered, and by when. Claude's stream, where it tells holds,
    shows the expiry came before that time."""
    session = claude(args=BYPASS, env={**AS_ROOT, "CLAUDE_CODE_USER_DIALOG_TIMEOUT_MS": "3000"})
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    real.ok("open", "3", env={"HOME": session.home})
    inside_codex = {"CODEX_THREAD_ID": thread, "HOME": session.home}
    sent = real.ok("send", "claude", "Are you there?", env=inside_codex)
    letter = real.records()[-1]
    by = "CLAUDE_CODE_USER_DIALOG_TIMEOUT_MS 3000 in its environment"
    held = f"claude holds it for the person's review, since {BYPASSES}; {held_waits(letter, 3, by)}"
    assert sent == f"letter 4 delivered to claude, 2 left; but {held}\n"
    assert real.ok("receipts", env=inside_codex) == f"letter 4 codex -> claude: not taken: {held}\n"
    ends = moment(letter["at"]) + 3 + 2
    session.wait_for(lambda: time.time() >= ends, "the time postbag named", timeout=10)
    expired = f"nobody let it in within {by}: it expired unanswered by {Clock().stamp(ends)}"
    told = f"claude held it for the person's review, since {BYPASSES}, and {expired}"
    assert real.ok("receipts", env=inside_codex) == f"letter 4 codex -> claude: not taken: {told}\n"
    holds = {e.get("state"): e for e in session.stream() if e.get("subtype") == "peer_message_hold"}
    if holds:  # the versions that tell a hold in the stream tell its end
        assert holds["dropped"]["outcome"] == "expired", holds
        told = holds["dropped"].get("written_at")  # stamped from 2.1.33x
        assert told is None or moment(told) <= ends, holds
        assert session.letters() == []


def test_a_process_that_knocks_more_than_claude_takes_at_once_paces_its_letters_and_none_is_dropped(real, claude):
    """Claude Code takes about 30 letters at once from one sender (a process), then one
    every two seconds, and drops the rest at its inbox without a word: the MCP server's
    server is one such process. Its knocks keep to that rate: all 33 letters are taken."""
    from postbag.claude import inbox
    from postbag.here import Here

    session = claude()
    variables = session.session_env()
    fields = {"socket": variables["CLAUDE_CODE_MESSAGING_SOCKET"], "token": variables["CLAUDE_CODE_MESSAGING_TOKEN"]}
    here = Here({}, "/", platform="linux")  # one process's knocks, as a server's are
    last = "It is the last letter of the exchange; do not reply."
    for number in range(4, 37):
        inbox.knock(fields, f"Letter {number} from codex via postbag. {last}\n\nnumber {number}", here=here)
    session.wait_for(lambda: len(session.letters()) == 33, "all 33 letters", timeout=60)
