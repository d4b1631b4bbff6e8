"""What a room is: what postbag asks of a vendor, written once.

Each vendor has a room, the package of its name (claude, codex), holding all that postbag
knows of that client, so that a client release changes files of its room alone. A room's
__init__ names its session's variables and door fields and imports nothing (sessions.py
lists them); its room.py offers a subclass of Room, below, the one way anything above the
rooms reaches that vendor's door and records (peers.py has the table). Nothing above the
rooms names a vendor, its variables, its files or its configuration.
"""

import abc

from postbag import children
from postbag.refusal import Refusal


class Switch:
    """A choice the human makes in opening an exchange, which one room honours: `flag` on
    `open`'s command line (with its `help`) records `field` as `value` in the open record,
    and `opened` and `standing` are what `open` and `read`'s status line add of it."""

    __slots__ = ("field", "flag", "help", "opened", "standing", "value")

    def __init__(self, flag, field, value, *, help, opened, standing):  # noqa: PLR0913
        self.flag, self.field, self.value, self.help = flag, field, value, help
        self.opened, self.standing = opened, standing

    def set_in(self, chosen):
        """Whether `chosen` (fields and values, as an open record holds them) sets this switch."""
        value = chosen.get(self.field)
        return type(value) is type(self.value) and value == self.value


class Sandbox:
    """What a vendor's sandbox around an agent's commands keeps postbag from, in the words
    a refusal adds: `name`; `allow_connecting`, how the human lets a command reach the
    other agent's door; `allow_writing`, how the human lets it write the ledger."""

    __slots__ = ("allow_connecting", "allow_writing", "name")

    def __init__(self, name, *, allow_connecting, allow_writing):
        self.name, self.allow_connecting, self.allow_writing = name, allow_connecting, allow_writing


class Server:
    """postbag's MCP server as a client starts it: `argv`, its command and arguments, and
    `env`, the variables the client gives it."""

    __slots__ = ("argv", "env")

    def __init__(self, argv, env=None):
        self.argv, self.env = list(argv), dict(env or {})

    def __eq__(self, other):
        return isinstance(other, Server) and (self.argv, self.env) == (other.argv, other.env)

    def __hash__(self):
        return hash(tuple(self.argv))

    def words(self):
        """The command, as a person would type it."""
        import shlex

        return " ".join(map(shlex.quote, self.argv))


class Change:
    """One change setup makes to a client's configuration: `said`, what it does, in words
    that start with a verb, and `make`, which makes it (a Refusal where it fails)."""

    __slots__ = ("make", "said")

    def __init__(self, said, make):
        self.said, self.make = said, make


class Plan:
    """What setup does with one client: its `changes`; `blocked`, why it must change
    nothing anywhere (in words, or None); and `notes`, what the person should know, a
    setting setup leaves to them among them."""

    __slots__ = ("blocked", "changes", "notes")

    def __init__(self, changes=(), *, blocked=None, notes=()):
        self.changes, self.blocked, self.notes = list(changes), blocked, [note for note in notes if note]


COMMAND_TIMEOUT = 60.0  # seconds one of a client's own commands may take: they start a whole client
OK, FIX, NOTE = "ok", "fix", "note"  # a check: fine; blocks a first exchange, with its one fix; worth knowing
RUN_SETUP = "run postbag setup"  # the fix for whatever setup puts right


class Check:
    """One line of doctor: `state` (OK, FIX or NOTE), `what` it looked at, and `said`, what
    it found, or the one fix."""

    __slots__ = ("said", "state", "what")

    def __init__(self, state, what, said):
        self.state, self.what, self.said = state, what, said


class Client:
    """A vendor's program as a person installed it: `name` (as its vendor names it), `word`
    (as a person types it) and `program` (its path, or None where it is not to be found,
    with `missing` saying why)."""

    __slots__ = ("missing", "name", "program", "word")

    def __init__(self, name, word, program=None, missing=None):
        self.name, self.word, self.program, self.missing = name, word, program, missing


def command(client, env, said, argv):
    """A Change that runs one of `client`'s own commands, `argv` after its program, in
    `env`: `said`, what it does, is followed by the command as a person would type it."""
    from postbag.vendor_files import quoted

    shown = " ".join([client.word, *(word if word.isprintable() else quoted(word) for word in argv)])

    def make():
        status, _, err = children.ask([client.program, *argv], env, COMMAND_TIMEOUT)
        if status != 0:
            raise Refusal(f"{shown} failed ({failure(status)}): {quoted(err.strip()[-200:] or 'it said nothing')}")

    return Change(f"{said}: {shown}", make)


def failure(status):
    """Why one of a client's commands failed, given its exit `status` (None: it ran past COMMAND_TIMEOUT)."""
    return f"no answer within {COMMAND_TIMEOUT:g} s" if status is None else f"exit {status}"


def server_from(command, args, env):
    """The Server a client's registration names, from its `command`, `args` and `env` as
    read from the client's own record; None where they are not text, a list of text and
    a table of text."""
    words = args if type(args) is list else [None]
    if type(command) is not str or not all(type(each) is str for each in [*words, *env.values()]):
        return None
    return Server([command, *words], env)


def version_words(client, env):
    """The words `client`'s own --version prints, or none where it fails."""
    status, said, _ = children.ask([client.program, "--version"], env, COMMAND_TIMEOUT)
    return said.split() if status == 0 else []


class Post(abc.ABC):
    """One letter on its way through a room's door. Made before the knock, when it may read
    the recipient's records and go on reading beside the knock; then `knock`; then, once
    the letter is recorded, `said`; and `finish` in any case, so that whatever it reads
    beside the knock ends with the send, even a refused one."""

    @abc.abstractmethod
    def knock(self, envelope, sandbox):
        """Hand `envelope` to the door; `sandbox` is the Sandbox around the sender, or None.
        A Refusal made by doors.not_answered or doors.maybe_delivered when it fails."""

    def recorded(self):
        """What the letter's record keeps of the door's answer, as fields: none by default."""
        return {}

    def said(self):
        """What the send adds to its receipt, in words, or None."""
        return None

    def finish(self):
        """End whatever the post still reads: nothing, by default."""
        return


class Room(abc.ABC):
    """A vendor, as postbag asks of it: made for one verb with `here` (what the process
    gives: the environment above all) and `switches`, the values the human set, in opening
    the exchange, of this room's own SWITCHES (by field). Every method reads the vendor's
    records fresh; none writes them."""

    NAME = ""  # the peer's name in the ledger, its package's
    CLIENT = ""  # its vendor's name for its program: "Claude Code"
    SESSION_NAME = ""  # what a session of this vendor is called, after "a" or "an": "a Claude Code session"
    SEND_TOOL = ""  # the MCP door's send tool as this client names it to its model
    PROVEN = ("", "")  # the oldest and newest versions the real-client tier proves
    SWITCHES = ()  # the human's switches for an exchange that this room honours
    # The name of its setup module: how its client is found (find), asked its version
    # (version), asked what it starts as postbag's MCP server (registered), made to start
    # this postbag (plan) and looked over (checks), each given `here` (and the Client found,
    # but checks). Imported when first asked, which only the human's setup and doctor do.
    SETUP = ""

    def __init__(self, here, switches=None):
        self.here, self.switches = here, switches or {}

    @abc.abstractmethod
    def door_of_session(self):
        """What `join` records of the session this process runs in: the door's fields, and
        what else finds its records. A Refusal where the session has no door."""

    @abc.abstractmethod
    def caller(self, meta):
        """The door of a session of this vendor whose MCP server this is, given an MCP
        call's `_meta`: a dict; None where the call comes from none of this vendor's
        sessions; a Refusal (made, not raised) where it does, but gives no door."""

    @abc.abstractmethod
    def post(self, joined):
        """A Post of one letter to the door of the join record `joined`."""

    @abc.abstractmethod
    def receipt(self, letter, joined):
        """The Receipt of `letter`, sent through the door of the join record `joined`."""

    @abc.abstractmethod
    def reachability(self, joined):
        """Whether the session behind the door of `joined` can take a letter now, in words."""

    def sandbox(self):
        """The Sandbox this vendor runs this process's commands in, or None."""
        return None

    def _setup(self):
        import importlib

        return importlib.import_module(self.SETUP)

    def client(self):
        """This vendor's Client, as this process finds it."""
        return self._setup().find(self.here)

    def version(self):
        """The version of the client that is installed, as its own --version says it, or None."""
        found = self.client()
        return None if found.program is None else self._setup().version(self.here, found)

    def registered(self):
        """The Server the client starts as postbag's MCP server; None where it starts none;
        a Refusal (made, not raised) where that cannot be told."""
        return self._setup().registered(self.here, self.client())

    def setup(self, server, *, removing=False):
        """The Plan by which the client starts `server` as postbag's MCP server, and lets
        the agent call its tools, or, `removing`, by which it stops doing what setup made it do."""
        return self._setup().plan(self.here, self.client(), server, removing=removing)

    def checks(self):
        """What doctor checks of the client beyond its version and registration: Checks."""
        return self._setup().checks(self.here)
