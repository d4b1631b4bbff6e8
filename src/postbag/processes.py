"""Running a vendor's program: as a door, started in a session of its own, its stderr read only to tell failures
apart (never shown: it can hold a door field), and waited for no longer than a door may take; or, for setup and
doctor, one of its own commands whose output is read."""

import os

from postbag.signals import start_beside

TIMEOUT = 30.0  # seconds: what a door may take before the knock gives up on it
PID_MOST = 2**31 - 1  # a pid_t: a pid a vendor's record names past it names no process
# The end of stderr that is kept, however much a program writes: a warning comes last, after its logs.
STDERR_KEPT = 256 << 10


def run_for_status(argv, env):
    """Run `argv` with `env`, stdin from /dev/null and stdout discarded: its exit status (negative: the signal that
    killed it; None: still running past TIMEOUT, and killed) and the end of its stderr. OSError when it cannot start."""
    import subprocess

    child = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    status, said = _finish(child)
    if status is None:
        import signal

        try:
            os.killpg(child.pid, signal.SIGKILL)  # codex may have started helpers of its own
        except OSError:
            child.kill()
        child.wait()
    return status, said


def ask(argv, env, seconds):
    """Run one of a client's own commands, `argv`, with `env` and stdin from /dev/null, for at most `seconds`: (its
    exit status, or None past them; its stdout; its stderr), decoded with replacement. OSError when it cannot start."""
    import subprocess

    try:
        done = subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=seconds, check=False
        )
    except subprocess.TimeoutExpired as late:
        said = [part or b"" for part in (late.stdout, late.stderr)]
        return None, *(part.decode(errors="replace") for part in said)
    return done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")


def _finish(child):
    """The child's exit status and the end of its stderr, or (None, ...) past TIMEOUT. A thread blocks in waitpid
    and wakes this one through a pipe the moment the child exits: Popen.wait(timeout) would poll with growing sleeps,
    and a helper of codex's that kept stderr open would hide the exit."""
    import select
    import time

    deadline = time.monotonic() + TIMEOUT
    wake, woken = os.pipe()

    def wait_for_exit():
        child.wait()
        try:
            os.write(woken, b"x")
        except OSError:  # the knock gave up waiting and closed its end
            pass
        finally:
            os.close(woken)

    start_beside(wait_for_exit)
    said, streams = b"", [child.stderr.fileno(), wake]
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            ready = select.select(streams, [], [], remaining)[0]
            if not ready:
                return None, said
            if wake in ready:
                if len(streams) == 2:  # stderr still open: take what the exit left in it
                    said = (said + _rest(streams[0]))[-STDERR_KEPT:]
                return child.returncode, said
            chunk = os.read(streams[0], 65536)
            if chunk:
                said = (said + chunk)[-STDERR_KEPT:]
            else:
                streams.pop(0)  # codex closed stderr; its exit follows
        return None, said
    finally:
        child.stderr.close()
        os.close(wake)  # the writing end stays with the thread, which may still be waiting


def _rest(stream):
    """What is left in a pipe whose writer has exited, without waiting for a helper that kept it."""
    os.set_blocking(stream, False)
    said = b""
    try:
        while chunk := os.read(stream, 65536):
            said = (said + chunk)[-STDERR_KEPT:]
    except BlockingIOError:
        pass
    return said


def signal_name(number):
    import signal

    try:
        return f"signal {number} ({signal.Signals(number).name})"
    except ValueError:
        return f"signal {number}"


def runs(pid, started=None):
    """Whether the process `pid` runs (asked with signal 0), and, where /proc tells (Linux) and `started` is given
    (its start in clock ticks since boot, /proc/PID/stat's 22nd field, as a vendor's record of it keeps it), is that
    very process, not another given the same pid since."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it runs
        pass
    if started is None:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rpartition(b")")[2].split()
    except OSError:
        return True  # no /proc here (macOS): the pid lives
    return fields[19:20] == [b"%d" % started]  # field 22, counted after the name


def which(name, search):
    """The program `name` (a path, or a name looked for in `search`, a PATH), or None, as shutil.which finds it on a
    POSIX system (test_doors.py holds it to it); importing shutil would cost a send more (docs/performance.md)."""
    if os.path.dirname(name):
        return name if _is_program(name) else None
    for directory in search.split(os.pathsep) if search else ():
        candidate = os.path.join(directory, name)
        if _is_program(candidate):
            return candidate
    return None


def _is_program(path):
    return os.path.exists(path) and os.access(path, os.X_OK) and not os.path.isdir(path)
