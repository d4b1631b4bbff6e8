"""What a room is: what postbag asks of a vendor, written once.

Each vendor has a room, the package of its name (claude, codex), holding all that postbag
knows of that client, so that a client release changes files of its room alone. A room's
__init__ names its session's variables and door fields and imports nothing (sessions.py
lists them); its room.py offers a subclass of Room, below, the one way anything above the
rooms reaches that vendor's door and records (peers.py has the table). Nothing above the
rooms names a vendor, its variables, its files or its configuration.
"""

import abc


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

    # What setup and doctor ask of the client, through its own commands and files, as
    # registration.py's Client, Server, Change and Check: only the human's verbs ask it.

    @abc.abstractmethod
    def client(self):
        """This vendor's Client, as this process finds it."""

    @abc.abstractmethod
    def version(self):
        """The version of the client installed, as its own --version says it, or None."""

    @abc.abstractmethod
    def registered(self):
        """The Server the client starts as postbag's MCP server; None where it starts none;
        a Refusal (made, not raised) where that cannot be told."""

    @abc.abstractmethod
    def registering(self, server):
        """The Change by which the client starts `server` as postbag's MCP server."""

    @abc.abstractmethod
    def unregistering(self):
        """The Change by which the client stops starting postbag's MCP server."""

    def allowing_tools(self, *, removing=False):
        """The Change by which the client lets its agent call postbag's tools without
        asking, or, `removing`, stops; None where there is nothing to change. A Refusal,
        raised, where the client's settings cannot be changed safely."""
        return None

    def setup_notes(self):
        """What setup tells the person of this client and leaves to them, in words."""
        return []

    def checks(self):
        """What doctor checks of the client beyond its version and registration: Checks."""
        return []
