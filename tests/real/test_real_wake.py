"""Waking a Codex thread nobody has loaded, on the real clients: Codex's own daemon loads
a thread whose exec run ended when `codex queue --resume` asks it to, and its model
answers through postbag's MCP server; a thread that may ask for approvals, a stopped
daemon and the human's --no-wake leave the letter waiting, each said with what to do."""

import re

import pytest
from helpers import TIMESTAMP
from sessions_helpers import NO_DAEMON, WAKING, claude_variables, join_both, mcp_server

from postbag.codex.files import TURN_AT_A_CALL, latest_turn, turn_now
from postbag.codex.wake import RUNS, STOPPED, daemon_runs

pytestmark = pytest.mark.since(**WAKING)  # an older pair's codex queue has no --resume

RESUMED = "(in the app or editor, or with codex resume)"
WOKEN = "codex's daemon woke the thread to take it"
ASKS = (
    "postbag does not wake it: the thread asks for approvals (approval_policy on-request), and nobody could give "
    f"one to a woken turn; it is taken when the thread is resumed where a person can approve {RESUMED}"
)


@pytest.fixture
def daemon(real, codex_home, codex_model):
    """Starts Codex's app-server daemon for the test's Codex home; stopped, every process of it, after."""
    started = []

    def start():
        codex_home.start_daemon(real.env, codex_model)
        started.append(True)

    yield start
    if started:
        codex_home.stop_daemon(real.env)


def door_line(real, peer, *args, env=None):
    said = real.run("open", *args, env=env).stderr.splitlines()
    [line] = [line for line in said if line.startswith((f"postbag: {peer}", f"postbag: whether {peer}"))]
    return line.removeprefix("postbag: ")


def receipts(real, env):
    return real.ok("receipts", env=env).splitlines()


def test_a_thread_whose_codex_exec_ended_is_woken_and_answers_through_the_mcp_door(
    real, claude, codex_home, codex_model, daemon
):
    session = claude()
    inside_claude = claude_variables(session)
    real.ok("join", "claude", env=inside_claude)
    codex_home.register_postbag(*mcp_server(real))
    codex_home.finished_thread(real.env, codex_model, "Call: join")  # it joins through the door, and ends
    daemon()
    assert daemon_runs(codex_home.home) == RUNS  # its record, as 0.169.0 writes it
    assert latest_turn(codex_home.rollouts()[0])[2] == "never"  # as exec leaves its thread
    assert door_line(real, "codex", "2") == (
        "codex can take a letter now: no running codex has its thread loaded, and the next letter wakes it through "
        "codex's daemon, with any letters waiting for it"
    )
    sent = real.ok("send", "codex", "Where does the parser drop errors?", env=inside_claude)
    assert sent == f"letter 4 delivered to codex, 1 left; {WOKEN}\n"
    # The woken turn's model answers with the door's tool, from the server the daemon started.
    answer = "\n\n" + codex_model.agent.answer
    session.wait_for(lambda: any(text.endswith(answer) for text in session.letters()), "codex's answer")
    [line] = receipts(real, inside_claude)
    assert re.fullmatch(rf"letter 4 claude -> codex: answered by letter 5, taken at {TIMESTAMP}", line), line
    codex_home.stop_daemon(real.env)
    assert daemon_runs(codex_home.home) == STOPPED  # the record is gone with the daemon


def test_with_codexs_daemon_stopped_the_letter_waits_with_what_to_do_and_is_taken_once_it_runs(
    real, claude, codex_home, codex_model, daemon
):
    session = claude()
    thread = codex_home.finished_thread(real.env, codex_model)
    join_both(real, session, thread)
    inside_claude = claude_variables(session)
    assert door_line(real, "codex", "2") == (
        f"codex's letters will wait: no running codex has its thread loaded, and {NO_DAEMON}"
    )
    # The words come from codex queue's own warning, which names the thread: never shown.
    sent = real.ok("send", "codex", "First, while nothing can wake you.", env=inside_claude)
    assert sent == (
        f"letter 4 delivered to codex, 1 left; but it waits in codex's queue: no running codex has the thread "
        f"loaded, and {NO_DAEMON}\n"
    )
    assert len(codex_home.queued(thread)) == 1
    assert receipts(real, inside_claude) == [
        f"letter 4 claude -> codex: waiting: in codex's queue for the thread, which no running codex has loaded: "
        f"{NO_DAEMON}"
    ]
    daemon()  # as the human was told; the waiting letter goes with the next one
    assert daemon_runs(codex_home.home) == RUNS
    sent = real.ok("send", "codex", "Second, the last.", env=inside_claude)
    assert sent == f"letter 5 delivered to codex, 0 left; {WOKEN}\n"

    taken = rf"letter \d claude -> codex: taken at {TIMESTAMP}"

    def both_taken():
        lines = real.ok("receipts", "2", env=inside_claude).splitlines()
        return len(lines) == 2 and all(re.fullmatch(taken, line) for line in lines)

    # Codex drops a row from its queue a moment before the rollout records the turn: the
    # receipts, read from the rollout, are what says the letters were taken.
    session.wait_for(both_taken, "both letters taken, as the thread's rollout records them")
    assert codex_home.queued(thread) == []


def test_a_thread_that_may_ask_for_an_approval_and_an_exchange_opened_not_to_wake_leave_letters_waiting(  # noqa: PLR0917
    real, claude, codex_home, codex_model, codex_session, daemon
):
    session = claude()
    inside_claude = claude_variables(session)
    daemon()
    # A thread the person worked in, asking for approvals as Codex's terminal does; then closed.
    terminal = codex_home.new_thread(real.env)
    codex_session(terminal, approval="on-request", sandbox="workspace-write").stop()
    join_both(real, session, terminal)
    unloaded = "no running codex has its thread loaded"
    assert door_line(real, "codex", "4") == f"codex's letters will wait: {unloaded}, and {ASKS}"
    sent = real.ok("send", "codex", "Would you hang?", env=inside_claude)
    assert sent == (
        f"letter 4 delivered to codex, 3 left; but it waits in codex's queue: no running codex has the thread "
        f"loaded, and {ASKS}\n"
    )
    assert len(codex_home.queued(terminal)) == 1  # nothing was asked of the daemon: nothing can take it
    # The human's switch: a thread the daemon could wake, left waiting all the same.
    ended = codex_home.finished_thread(real.env, codex_model)
    real.ok("join", "codex", env={"CODEX_THREAD_ID": ended})
    not_waking = (
        "this exchange wakes no thread (it was opened with --no-wake): it is taken when the thread is resumed "
        f"{RESUMED}"
    )
    assert door_line(real, "codex", "2", "--no-wake") == (
        f"codex's letters will wait: no running codex has its thread loaded, and {not_waking}"
    )
    sent = real.ok("send", "codex", "Wait for the person.", env=inside_claude)
    assert sent == (
        f"letter 7 delivered to codex, 1 left; but it waits in codex's queue: no running codex has the thread "
        f"loaded, and {not_waking}\n"
    )
    assert len(codex_home.queued(ended)) == 1


def test_a_loaded_threads_turn_at_a_tool_call_is_told_from_its_rollout_and_the_letter_follows_it(
    real, claude, codex_home, codex_session, tmp_path
):
    session = claude()
    thread = codex_home.new_thread(real.env)
    join_both(real, session, thread)
    real.open("--limit", "1")
    inside_claude = claude_variables(session)
    codex = codex_session(thread)  # approvals never, as codex_session starts it
    release = tmp_path / "release"
    codex.say(f"Run: while [ ! -e {release} ]; do sleep 0.05; done")
    [rollout] = codex_home.rollouts(thread)
    codex.wait_for(lambda: turn_now(rollout) == TURN_AT_A_CALL, "the turn's tool call")
    # Loaded, so the send says nothing more, though no daemon runs to answer its resume.
    assert real.ok("send", "codex", "After your command.", env=inside_claude) == "letter 4 delivered to codex, 0 left\n"
    assert receipts(real, inside_claude) == [
        "letter 4 claude -> codex: waiting: in codex's queue for the thread, which a running codex has loaded: its "
        "turn is running a tool call, and it takes the letter when the turn ends"
    ]
    release.touch()
    codex.wait_for(lambda: len(codex.user_messages()) == 2, "the letter's turn, after the command's")
    [line] = receipts(real, inside_claude)
    assert re.fullmatch(rf"letter 4 claude -> codex: taken at {TIMESTAMP}", line), line
