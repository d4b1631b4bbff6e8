"""Run postbag's command line inside the test's own process, as a subprocess would run it.

The logic beneath the command line is tested once, on the tree, and a child Python for
each command costs more than the command itself: about 0.1 s, and 0.3 s with coverage
measuring it. `cli.main(argv, env, program)` reads nothing of the process it runs in, so
here it gets what a child would have had: the environment, stdin, a working directory
and a umask; stdout and stderr are caught as a pipe would catch them. What only a process
of its own shows (signals, its memory and descriptors, locks against another process,
a closed stdout) stays with tests marked `process`, which get a real one.
"""

import io
import os
import signal
import subprocess
import sys

from postbag.claude import door as claude_door
from postbag.cli import main
from postbag.envelope import program_of
from postbag.here import Here
from postbag.times import Clock


def run_cli(argv, env, *, input=None, cwd=None, umask=-1, text=True, root="/"):
    """`postbag ARGV` run in-process in `env`, with the system's files under `root`; a
    CompletedProcess, as subprocess.run gives."""
    streams = sys.stdin, sys.stdout, sys.stderr
    interrupt = signal.getsignal(signal.SIGINT)
    was_in = os.getcwd()
    mask = os.umask(umask) if umask != -1 else None
    given = input.encode() if isinstance(input, str) else input or b""
    stdout, stderr = _pipe("strict"), _pipe("backslashreplace")
    sys.stdin, sys.stdout, sys.stderr = io.TextIOWrapper(io.BytesIO(given), encoding="utf-8"), stdout, stderr
    try:
        if cwd is not None:
            os.chdir(cwd)
        # the place a child would have had: TZ from its environment, and what `python -m
        # postbag` finds of itself
        claude_door.PACE = claude_door.Pace()  # as a process of its own starts: the sender Claude counts
        here = Here(env, os.getcwd(), _clock(env), root)
        returncode = main(list(argv), here=here, program=program_of(sys.executable, "", True, here))
    except SystemExit as ended:  # argparse ends a usage error, --help and --version so
        returncode = ended.code if isinstance(ended.code, int) else (0 if ended.code is None else 1)
    finally:
        for stream in (stdout, stderr):
            stream.flush()
        sys.stdin, sys.stdout, sys.stderr = streams
        signal.signal(signal.SIGINT, interrupt)  # a send ignores interrupts once it hands over
        os.chdir(was_in)
        if mask is not None:
            os.umask(mask)
    said = [stream.buffer.getvalue() for stream in (stdout, stderr)]
    if text:  # as subprocess.run(text=True) decodes: universal newlines
        said = [out.decode().replace("\r\n", "\n").replace("\r", "\n") for out in said]
    return subprocess.CompletedProcess(["postbag", *argv], returncode, *said)


def _clock(env):
    """The clock a child would have read with `env`'s TZ, which the C library takes only
    from the process's own environment."""
    if "TZ" not in env:
        return Clock()
    from zoneinfo import ZoneInfo

    return Clock(ZoneInfo(env["TZ"]))


def _pipe(errors):
    """A text stream over bytes, as Python makes of a pipe in a UTF-8 locale."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors=errors, line_buffering=False)
