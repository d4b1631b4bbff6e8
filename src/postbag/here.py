"""What postbag takes from the process it runs in. The entry point reads it once (cli.main) and everything
below is given it, so that a test, or the MCP server for each call, can give another. Below it, the process is
read only for what no test gives otherwise: its id, in the names of files no other process may take; its user,
and the password database, for whose a folder is and for a home that HOME does not name (~NAME, or HOME
unset); and the monotonic timer that measures its own waits."""

import os

from postbag.times import Clock


class Here:
    """The process's inputs: `env` (a mapping of its variables), `cwd` (the working directory, or the function
    that reads it), `clock`, `root` (where the system's own files are, "/" but in tests), `platform` (as
    sys.platform gives it; None: not known, and what depends on it cannot be told), `streams` (stdin, stdout
    and stderr, text streams, each None where the process was started without it), `started` (the Python
    executable, the path it ran, and whether it ran as `python -m postbag`, from which envelope.program_of
    makes the words that start it again), `throttles` (what this process remembers of its own knocks, by room:
    a process is the sender a vendor counts, and the MCP server one process for all its calls) and
    `for_a_child`, which makes of an environment what a vendor's program gets (vendors.for_a_child, given by
    the entry point, which knows the vendors)."""

    __slots__ = (
        "_cwd",
        "_for_a_child",
        "clock",
        "env",
        "platform",
        "root",
        "started",
        "stderr",
        "stdin",
        "stdout",
        "throttles",
    )

    def __init__(  # noqa: PLR0913
        self,
        env,
        cwd,
        *,
        clock=None,
        root="/",
        platform=None,
        streams=(None, None, None),
        started=None,
        throttles=None,
        for_a_child=None,
    ):
        self.env, self._cwd, self.clock, self.root, self.platform = env, cwd, clock or Clock(), root, platform
        self.stdin, self.stdout, self.stderr = streams
        self.started, self._for_a_child = started, for_a_child
        self.throttles = {} if throttles is None else throttles

    @property
    def cwd(self):
        """The working directory, absolute; None where it is gone. Given as a function, it is read each time:
        a server that lives as long as its session follows its folder when the folder is moved."""
        return self._cwd() if callable(self._cwd) else self._cwd

    def child_env(self):
        """The environment a vendor's program gets: this one less every session's variables
        and the ledger's path, so that no token reaches the other vendor."""
        if self._for_a_child is None:
            raise TypeError("this Here was made without for_a_child: it cannot start a vendor's program")
        return self._for_a_child(self.env)

    def home(self):
        """HOME, else the user's home from the password database; a Refusal where HOME is relative, which would
        put the ledgers wherever a command runs."""
        home = self.env.get("HOME")
        if not home:
            import pwd  # only without HOME, which a person's shell always sets

            home = pwd.getpwuid(os.getuid()).pw_dir
        if not os.path.isabs(home):
            from postbag.refusal import Refusal

            raise Refusal(
                f"HOME is a relative path ({home}), and postbag keeps its ledgers in it: set HOME to your home "
                "folder's absolute path"
            )
        return home.rstrip("/") or "/"

    def absolute(self, path):
        """`path` made absolute against the working directory, as the process would open it."""
        return os.path.normpath(os.path.join(self.cwd or "/", path))

    def system(self, path):
        """The system-wide file at the absolute `path`, under the root."""
        return os.path.join(self.root, path.lstrip("/"))

    def with_env(self, env):
        """The same place, with another environment: what a client gives a server it starts."""
        return self._like(env, self._cwd)

    def within(self, cwd):
        """The same place, in another working directory: a session's, for the MCP server it calls."""
        return self._like(self.env, cwd)

    def _like(self, env, cwd):
        streams = (self.stdin, self.stdout, self.stderr)
        kept = {"clock": self.clock, "root": self.root, "platform": self.platform, "started": self.started}
        return Here(env, cwd, streams=streams, throttles=self.throttles, for_a_child=self._for_a_child, **kept)
