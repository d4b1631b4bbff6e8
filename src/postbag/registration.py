"""What a room tells setup and doctor of its client: the Installation each room's client.py makes, and what it
gives. Both rooms make these and the verbs above read them; nothing here knows a vendor.
"""

import abc

from postbag import processes
from postbag.escape import shell_word
from postbag.refusal import Refusal

COMMAND_TIMEOUT = 60.0  # seconds one of a client's own commands may take: they start a whole client
OK, FIX, NOTE = "ok", "fix", "note"  # a check: fine; blocks a first exchange, with its one fix; worth knowing
RUN_SETUP = "run postbag setup"  # the fix for whatever setup puts right
CLIENT_SAID = 240  # characters of a client's own message shown: its error and cause, not its backtrace


class Installation(abc.ABC):
    """A vendor's client as a person installed it, asked through its own commands and files: each room's
    client.py has its own, which only the human's verbs import."""

    def __init__(self, here):
        self.here = here
        self._client = None

    @property
    def client(self):
        """The Client, as this process finds it (found once)."""
        if self._client is None:
            self._client = self.find()
        return self._client

    @property
    @abc.abstractmethod
    def installing(self):
        """How a person installs a version the room proves: a command to paste, and what it needs."""

    @abc.abstractmethod
    def find(self):
        """The Client, found on PATH or where the vendor's own variable says."""

    @abc.abstractmethod
    def version(self):
        """The version the client's own --version says, or None (None too where it is not installed)."""

    @abc.abstractmethod
    def registered(self):
        """The Registration the client starts as postbag's MCP server, or None; a Refusal where that cannot be told."""

    @abc.abstractmethod
    def registering(self, registration):
        """The Change by which the client starts `registration` as postbag's MCP server."""

    @abc.abstractmethod
    def unregistering(self, removing=False):
        """The Change by which the client stops starting postbag's MCP server; `removing`, as
        `setup --remove` takes it out for good, giving back what setup kept of its files."""

    @abc.abstractmethod
    def allowing_tools(self, removing=False):
        """The Change by which the client lets its agent call postbag's tools without asking, or, `removing`,
        stops; None where there is nothing to change. A Refusal, raised, where its settings cannot be changed safely."""

    @abc.abstractmethod
    def checks(self):
        """What doctor checks of the client beyond its version and registration: Checks."""

    @abc.abstractmethod
    def notes(self, removing=False):
        """What setup tells the person of this client and leaves to them, in words."""


class Client:
    """A vendor's program: `name` (as its vendor names it), `command` (as a person types it) and `path`
    (None where it is not to be found, with `missing` saying why)."""

    __slots__ = ("command", "missing", "name", "path")

    def __init__(self, name, command, path=None, missing=None):
        self.name, self.command, self.path, self.missing = name, command, path, missing


class Registration:
    """How a client starts postbag's server: `argv`, command and arguments, and `variables`, the variables it sets."""

    __slots__ = ("argv", "variables")

    def __init__(self, argv, variables=None):
        self.argv, self.variables = list(argv), dict(variables or {})

    def __eq__(self, other):
        return isinstance(other, Registration) and (self.argv, self.variables) == (other.argv, other.variables)

    def __hash__(self):
        return hash(tuple(self.argv))

    def words(self):
        """The command, as a person would type it."""
        return " ".join(map(shell_word, self.argv))


class Change:
    """One change setup makes: `does`, what it does, in words that start with a verb; `make`, which makes it,
    and `undo`, which undoes it once made (each raises a Refusal where it fails); `shown`, for one of a
    client's commands, the command as a person types it; `news`, what the person should know of it besides."""

    __slots__ = ("does", "make", "news", "shown", "undo")

    def __init__(self, does, make, *, undo=None, shown=None, news=()):
        self.does, self.make, self.undo, self.shown, self.news = does, make, undo, shown, list(news)


class Check:
    """One line of doctor: `state` (OK, FIX or NOTE), `what` it looked at, and `finding`, what it found or the fix."""

    __slots__ = ("finding", "state", "what")

    def __init__(self, state, what, finding):
        self.state, self.what, self.finding = state, what, finding


def command(client, env, does, argv):
    """A Change that runs `client`'s own command `argv` (after its program) in `env`; its words are `does`
    followed by the command, each word quoted for a shell so that it can be pasted."""
    shown = " ".join(map(shell_word, [client.command, *argv]))

    def make():
        status, _, err = processes.ask([client.path, *argv], env, COMMAND_TIMEOUT)
        if status != 0:
            raise failed(shown, status, err)

    return Change(f"{does}: {shown}", make, shown=shown)


def failed(shown, status, err):
    """The Refusal of a client's command `shown` that ended with `status` (None: past COMMAND_TIMEOUT),
    quoting its stderr `err` on one line, less warnings and credentials, capped so that a backtrace is cut."""
    from postbag.escape import without_credentials
    from postbag.vendor_files import quoted

    why = f"no answer within {COMMAND_TIMEOUT:g} s" if status is None else f"exit {status}"
    lines = [" ".join(line.split()) for line in err.splitlines()]  # a caret's padding is no word
    message = without_credentials(" / ".join(line for line in lines if line and not line.lower().startswith("warning")))
    return Refusal(f"{shown} failed ({why}): {quoted(message or 'it said nothing', CLIENT_SAID)}")


def registration_from(command, args, env):
    """The Registration a client's own record names, from its `command`, `args` and `env`;
    None where they are not text, a list of text and a table of text."""
    words = args if type(args) is list else [None]
    if type(command) is not str or not all(type(each) is str for each in [*words, *env.values()]):
        return None
    return Registration([command, *words], env)


def version_check(client, installed, proven, installing):
    """doctor's line on the version `installed` of `client` (None: its --version does not tell), against
    `proven`, the oldest and newest the real-client tier proves; `installing`, how to get a proven one."""
    from postbag.versions import numbers

    oldest, newest = proven
    within = f"{oldest} to {newest}"
    get = f"install a proven one with {installing}"
    if numbers(installed or "") is None:
        return Check(NOTE, client.name, f"its version cannot be told; postbag is proven on {within}")
    if numbers(installed) < numbers(oldest):
        return Check(FIX, client.name, f"{installed} is older than postbag works with ({within}): {get}")
    if numbers(installed) > numbers(newest):
        return Check(NOTE, client.name, f"{installed} is newer than postbag is proven on ({within}): {get}")
    return Check(OK, client.name, f"{installed}, within the versions postbag is proven on ({within})")


def version_words(client, env):
    """The words `client`'s own --version prints, or none where it fails."""
    status, out, _ = processes.ask([client.path, "--version"], env, COMMAND_TIMEOUT)
    return out.split() if status == 0 else []
