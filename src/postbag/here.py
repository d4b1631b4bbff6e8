"""What postbag takes from the process it runs in: its environment, its working directory,
the zone of its clock and the root under which the system keeps what an administrator
sets. The entry point reads them once (cli.main) and everything below is given them,
so that a test, or the MCP server for each call, can give others; nothing below reads
the process itself."""

import os

from postbag.times import Clock


class Here:
    """The process's inputs: `env` (a mapping of its variables), `cwd` (its working
    directory), `clock` and `root` (where the system's own files are, "/" but in tests)."""

    __slots__ = ("clock", "cwd", "env", "root")

    def __init__(self, env, cwd, clock=None, root="/"):
        self.env, self.cwd, self.clock, self.root = env, cwd, clock or Clock(), root

    def absolute(self, path):
        """`path` made absolute against the working directory, as the process would open it."""
        return os.path.normpath(os.path.join(self.cwd, path))

    def system(self, path):
        """The system-wide file at the absolute `path`, under the root."""
        return os.path.join(self.root, path.lstrip("/"))

    def with_env(self, env):
        """The same place, with another environment: what a client gives a server it starts."""
        return Here(env, self.cwd, self.clock, self.root)


def home_of(env):
    """The HOME of `env`, else the user's home directory from the password database."""
    home = env.get("HOME")
    if not home:
        import pwd  # only without HOME, which a person's shell always sets

        home = pwd.getpwuid(os.getuid()).pw_dir
    return home
