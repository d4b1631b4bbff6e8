"""Run postbag's command line inside the test's own process, as a subprocess would run it.

The logic beneath the command line is tested once, on the tree, and a child Python for
each command costs more than the command itself: about 0.1 s, and 0.3 s with coverage
measuring it. `cli.main(argv, here=...)` reads nothing of the process it runs in, so here
it is given what a child would have had: the environment, a working directory, stdin,
and stdout and stderr caught as a pipe would catch them. What only a process of its own
shows (signals, a umask, its memory and descriptors, locks against another process, a
closed stdout) stays with tests marked `process`, which get a real one.
"""

import io
import os
import subprocess
import sys

from postbag.cli import main
from postbag.here import Here
from postbag.times import Clock
from postbag.vendors import for_a_child


def run_cli(argv, env, *, input=None, cwd=None, umask=-1, text=True, root="/"):
    """`postbag ARGV` run in-process in `env`, in `cwd`, with the system's files under
    `root`: a CompletedProcess, as subprocess.run gives. Nothing of this process is changed
    or read by the command: it is given a place (here.Here) of its own, its streams pipes
    as a child's would be. A umask is a process's own: a test that needs one is marked
    `process`."""
    assert umask == -1, "a umask is the process's own: mark the test process"
    given = input.encode() if isinstance(input, str) else input or b""
    stdin = io.TextIOWrapper(io.BytesIO(given), encoding="utf-8")
    stdout, stderr = _pipe("strict"), _pipe("backslashreplace")
    streams = (stdin, stdout, stderr)
    started = (sys.executable, "", True)  # as `python -m postbag`
    place = {"clock": _clock(env), "root": root, "platform": sys.platform, "streams": streams, "started": started}
    returncode = main(list(argv), here=Here(env, cwd or os.getcwd(), for_a_child=for_a_child, **place))
    for stream in (stdout, stderr):
        stream.flush()
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
