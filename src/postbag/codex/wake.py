"""Waking a thread that no running Codex has loaded: `codex queue --resume` asks Codex's own app-server daemon to
load it, and the thread takes the letter, and any waiting for it (queue.py). postbag starts no daemon, and wakes a
thread only where the latest settings its rollout records say approval_policy never, as `codex exec` leaves a thread,
so that a woken turn cannot stop to ask a person for an approval (CONCEPT.md, "Waking, and when not to"); else the
letter waits until a person resumes the thread.

The daemon's file of its process, app-server-daemon/daemon.pid under CODEX_HOME ({"pid": N, "processIdentity":
{"startTicks": T}, ...}, removed when it stops), says whether it runs: its pid lives and, on Linux, /proc/N/stat gives
the same start time.
"""

import os

from postbag.codex.files import INTERRUPTED, latest_turn, version_of
from postbag.processes import PID_MOST, runs
from postbag.room import CANNOT_TELL
from postbag.vendor_files import quoted, read_json, record, table, whole
from postbag.versions import numbers

WAKES_SINCE = "0.166.0"  # the first Codex whose codex queue has --resume
NEVER_ASKS = "never"  # the one approval policy under which a turn cannot stop to ask a person
RUNS, STOPPED = "runs", "stopped"  # the daemon, else CANNOT_TELL
WILL_WAKE, WAITS = "will wake", "waits"  # what becomes of a letter to a thread nobody has loaded
CODEX_WITHOUT_RESUME = (
    "this codex cannot wake a thread (its codex queue has no --resume, which came "
    f"in Codex {WAKES_SINCE}): it is taken when the thread is resumed (in the app "
    "or editor, or with codex resume)"
)  # what a codex from before --resume waits for


DAEMON_STOPPED = (
    "codex's daemon, which wakes it, is not running: once the human runs codex app-server daemon start, the next "
    "letter wakes the thread, with any letters waiting for it"
)
# What Codex 0.171.0 does with a thread whose last turn, begun for a queued letter, was interrupted (files.INTERRUPTED).
# A turn interrupted otherwise, as a person's Esc does, is not known to do the same.
STALLED = (
    "its last turn was interrupted, and Codex runs no queued letter in such a thread, loaded again or woken, "
    "until someone starts a turn in it"
)


def why_not_woken(turn, wakes):
    """Why, in words, a letter must not wake the thread whose latest turn (files.latest_turn) is `turn`; None where
    it may. `wakes`: whether the exchange lets letters wake a thread. A woken turn has nobody to answer an approval:
    codex holds it there unseen, and every later letter behind it."""
    if not wakes:
        return (
            "this exchange wakes no thread (it was opened with --no-wake): it is taken when "
            "the thread is resumed (in the app or editor, or with codex resume)"
        )
    trigger, ended, policy = turn
    if (trigger, ended) == ("queue", INTERRUPTED):
        return f"{STALLED}: it is taken when a person starts one (a prompt in codex resume)"
    if policy is None:
        return (
            "postbag does not wake it, since its rollout does not say whether a woken turn "
            "could stop for an approval: it is taken when the thread is resumed (in the app "
            "or editor, or with codex resume)"
        )
    if policy != NEVER_ASKS:
        named = quoted(policy) if type(policy) is str else "granular"
        return (
            f"postbag does not wake it: the thread asks for approvals (approval_policy {named}), "
            "and nobody could give one to a woken turn; it is taken when the thread is resumed "
            "where a person can approve (in the app or editor, or with codex resume)"
        )
    return None


def unloaded(home, rollout, wakes):
    """What becomes of a letter to a thread that no running codex has loaded, whose newest
    rollout is `rollout`: (WILL_WAKE or WAITS, in words)."""
    why_not = why_not_woken(latest_turn(rollout), wakes)
    if why_not is not None:
        return WAITS, why_not
    wrote = version_of(rollout)
    if numbers(wrote) is not None and numbers(wrote) < numbers(WAKES_SINCE):
        return WAITS, (
            f"the codex that wrote its rollout, {wrote}, cannot wake a thread (codex queue "
            f"--resume came in Codex {WAKES_SINCE}): it is taken when the thread is resumed "
            "(in the app or editor, or with codex resume)"
        )
    if daemon_runs(home) == STOPPED:
        return WAITS, DAEMON_STOPPED
    return WILL_WAKE, "the next letter wakes it through codex's daemon, with any letters waiting for it"


def daemon_runs(home):
    """Whether codex's app-server daemon for `home` RUNS, is STOPPED, or CANNOT_TELL, from the file of its process.
    Nothing is connected to or signalled but with signal 0, which only asks."""
    try:
        kept = record(read_json(os.path.join(home, "app-server-daemon", "daemon.pid")))
    except FileNotFoundError:
        return STOPPED
    except (OSError, ValueError):
        return CANNOT_TELL
    pid = whole(kept.get("pid"), 1, PID_MOST)
    if pid is None:
        return CANNOT_TELL
    started = whole(table(kept, "processIdentity").get("startTicks"), 0, 2**63 - 1)
    return RUNS if runs(pid, started) else STOPPED
