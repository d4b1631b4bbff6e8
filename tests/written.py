"""The vendors' records, written here as Claude Code 2.1.328 and Codex 0.169.0 write them
(the real tier checks that they still do): what receipts and `open` read. Each writer
works under a test's HOME, for the session or thread of the suite's fake doors."""

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timezone

WHEN = "2026-12-02T02:30:41.226Z"  # how both vendors stamp their records


def local(stamp):
    """A vendor's time as postbag shows it: local, to the second, with the offset."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone().isoformat(timespec="seconds")


def now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@contextlib.contextmanager
def a_session_process(*flags, env=None):
    """The pid of a process started with `flags` and `env` (default: none of this one's),
    standing for a session's until the block ends. It is handed over once it has printed a
    line: until its exec is done, /proc shows its parent's command line and environment, or none."""
    command = [sys.executable, "-c", "import sys; print(flush=True); sys.stdin.read()", *flags]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env or {}) as process:
        assert process.stdout.readline() == b"\n", "the stand-in session ended before it ran"
        try:
            yield process.pid
        finally:
            process.communicate(b"")


_STANDING = contextlib.ExitStack()


def session_pid():
    """The process a Claude session's file names unless a test names another: one started
    with no environment, never this one, whose environment is whatever the shell that ran
    the suite set (a CLAUDE_CODE_USER_DIALOG_TIMEOUT_MS among it). It runs until this
    process ends."""
    if not hasattr(session_pid, "pid"):
        import atexit

        atexit.register(_STANDING.close)
        session_pid.pid = _STANDING.enter_context(a_session_process())
    return session_pid.pid


def write_lines(path, records):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a") as file:
        for record in records:
            file.write((record if isinstance(record, str) else json.dumps(record)) + "\n")


class Claude:
    """Claude Code's records for the fake inbox's session, under the test's HOME."""

    def __init__(self, home, session):
        self.config, self.session = os.path.join(home, ".claude"), session
        self.transcript = os.path.join(self.config, "projects", "-work-repo", f"{session}.jsonl")

    def took(self, envelope, at=WHEN):
        write_lines(
            self.transcript,
            [
                {"type": "summary"},
                {
                    "type": "queue-operation",
                    "operation": "enqueue",
                    "timestamp": at,
                    "sessionId": self.session,
                    "content": envelope,
                },
                {"type": "queue-operation", "operation": "dequeue", "timestamp": at},
            ],
        )

    def turn(self, mode, at=None):
        """A user's turn, which records the permission mode the session ran it in."""
        record = {"type": "user", "message": {"role": "user", "content": "go on"}, "permissionMode": mode}
        write_lines(self.transcript, [{**record, "timestamp": at or now(), "version": "2.1.332"}])

    def runs(self, cwd, pid=None, **more):
        """The session's file, as Claude Code writes it while the session runs: its process
        (default session_pid()), its folder, and `more` (procStart, the process's start time)."""
        record = {"pid": pid or session_pid(), "sessionId": self.session, "cwd": str(cwd), "version": "2.1.328", **more}
        path = os.path.join(self.config, "sessions", f"{record['pid']}.json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as file:  # written whole, as Claude Code writes it
            json.dump(record, file)

    def settings(self, directory, inbound=None, *, since_sent=False, **more):
        """crossSessionInbound (None: unset) and `more` in the settings.json of `directory`,
        as it stood an hour before now (before any letter of the test), or, `since_sent`,
        written after every letter so far (a second on: the ledger's time is to the second)."""
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "settings.json")
        with open(path, "w") as file:
            json.dump({**({"crossSessionInbound": inbound} if inbound is not None else {}), **more}, file)
        written = time.time() + 2 if since_sent else time.time() - 3600
        os.utime(path, (written, written))


class Codex:
    """Codex's records for the fake codex's thread, under the test's HOME."""

    def __init__(self, home, thread, source=None):
        """`source`: what made the thread, as its first record says ("exec": codex exec)."""
        self.home, self.thread = os.path.join(home, ".codex"), thread
        name = f"rollout-2026-12-02T02-30-40-{thread}.jsonl"
        self.rollout = os.path.join(self.home, "sessions", "2026", "12", "02", name)
        meta = {"id": thread, **({"source": source, "originator": f"codex_{source}"} if source else {})}
        write_lines(self.rollout, [{"timestamp": WHEN, "type": "session_meta", "payload": meta}])

    def took(self, envelope, at=WHEN):
        payload = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": envelope}]}
        write_lines(self.rollout, [{"timestamp": at, "type": "response_item", "payload": payload}])

    def queued(self, envelope):
        with sqlite3.connect(os.path.join(self.home, "queue_1.sqlite")) as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS queued_items (id TEXT PRIMARY KEY NOT NULL, thread_id TEXT NOT NULL, "
                "payload_json TEXT NOT NULL, queue_order INTEGER NOT NULL, created_at_ms INTEGER NOT NULL, "
                "updated_at_ms INTEGER NOT NULL)"
            )
            payload = {"UserInput": {"content": [{"type": "text", "text": envelope, "text_elements": []}]}}
            db.execute("INSERT INTO queued_items VALUES (?, ?, ?, 0, 0, 0)", ("id1", self.thread, json.dumps(payload)))
        db.close()

    def settings(self, approval_policy):
        """What codex records of the settings a resumed turn of the thread runs with."""
        payload = {"type": "thread_settings_applied", "thread_settings": {"approval_policy": approval_policy}}
        write_lines(self.rollout, [{"timestamp": WHEN, "type": "event_msg", "payload": payload}])

    def turn_context(self, approval_policy):
        """A turn's context, the only record of the thread's settings a Codex 0.153 rollout has."""
        payload = {"turn_id": "t1", "cwd": "/work", "approval_policy": approval_policy, "model": "stand-in"}
        write_lines(self.rollout, [{"timestamp": WHEN, "type": "turn_context", "payload": payload}])

    def turn(self, *items, ended=False, trigger=None, interrupted=False):
        """A turn of the thread: its start (begun by `trigger`: "exec", "queue", "user"),
        `items` (response_item payloads), and its end if `ended`, or, `interrupted`, its
        abort, as Codex 0.171.0 writes one (openai/codex#41060)."""
        started = {"type": "task_started", **({"turn_attribution": {"turn_trigger": trigger}} if trigger else {})}
        records = [{"type": "event_msg", "payload": started}]
        records += [{"type": "response_item", "payload": item} for item in items]
        records += [{"type": "event_msg", "payload": {"type": "task_complete"}}] if ended else []
        if interrupted:
            marker = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<turn_aborted>"}]}
            records += [
                {"type": "response_item", "payload": marker},
                {"type": "event_msg", "payload": {"type": "turn_aborted", "reason": "interrupted"}},
            ]
        write_lines(self.rollout, [{"timestamp": WHEN, **record} for record in records])

    def daemon(self, pid=None):
        """Codex's app-server daemon for this home, as its pid record says: running as the
        process `pid` (default this one), or, with pid 0, stopped."""
        folder = os.path.join(self.home, "app-server-daemon")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "daemon.pid")
        if pid == 0:
            if os.path.exists(path):
                os.remove(path)
            return
        pid = pid or os.getpid()
        with open(f"/proc/{pid}/stat", "rb") as file:
            ticks = int(file.read().rpartition(b")")[2].split()[19])
        with open(path, "w") as file:
            json.dump({"pid": pid, "processIdentity": {"startTicks": ticks}}, file)

    def lock_file(self):
        path = os.path.join(self.home, "thread-writer-locks", f"{self.thread}.lock")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()
        return path
