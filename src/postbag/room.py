"""What a room is: what postbag asks of a vendor, written once.

Each vendor has a room, the package of its name (claude, codex), holding all that postbag
knows of that client, so that a client release changes files of its room alone. The
contract has three parts: what must load fast, the package's __init__ (the names
vendors.py reads of it, which tests/test_rooms.py holds to their types); everything else
of its doors and files, its Room, below, the one way anything above the rooms reaches
that vendor (vendors.py finds each); and what setup and doctor ask of its client, the
Installation its client.py makes (registration.py). Above the rooms, no code branches on a vendor, and every rule
and limit of one (how long a letter its door carries, what its sessions are called)
comes from its room; the peers' names stand only in the words people and agents read:
examples in help, and 1.0's wording of a refusal.

A step that cannot go on raises a Refusal; a question whose answer may be "no" answers in
its own terms (a Reach, a Receipt, None).
"""

import abc

# What every room says where its records cannot answer a question (whether a thread is
# loaded, whether a daemon runs, whether a session can take a letter...).
CANNOT_TELL = "cannot tell"
# Whether a session can take a letter now, as Reach says it.
TAKES, WILL_NOT = "takes", "will not"


class Reach:
    """Whether the session behind a door can take a letter now: `state` (TAKES; WILL_NOT,
    for now or at once; or CANNOT_TELL), and `words`, what `open` and doctor say of it."""

    __slots__ = ("state", "words")

    def __init__(self, state, words):
        self.state, self.words = state, words


class Room(abc.ABC):
    """A vendor, as postbag asks of it: made for one verb with `here` (what the process
    gives: the environment above all) and `switches`, the values the human set, in opening
    the exchange, of the switches its package declares (by field). Every method reads the
    vendor's files fresh; none writes them."""

    # Each room's own: the MCP server's send tool as its client names it to its model, and
    # the oldest and newest versions of its client the real-client tier proves.
    SEND_TOOL = ""
    PROVEN = ("", "")
    # Taken from the vendor's light part, its package's __init__, which each room names as it is
    # declared, `class Claude(Room, vendor=claude)`: the peer's name, its vendor's name for
    # its client, and what one of its sessions is called.
    NAME = CLIENT = SESSION_NAME = ""

    def __init_subclass__(cls, vendor=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if vendor is not None:
            cls.NAME, cls.CLIENT, cls.SESSION_NAME = vendor.NAME, vendor.CLIENT, vendor.SESSION_NAME

    def __init__(self, here, switches=None):
        self.here, self.switches = here, switches or {}

    @abc.abstractmethod
    def door_of_session(self):
        """What `join` records of the session this process runs in: the door's fields, and
        what else finds its records. A step of `join`, which cannot go on where the
        session has no door: it raises a Refusal."""

    @abc.abstractmethod
    def calls(self, meta):
        """Whether an MCP call, given its `_meta`, comes from a session of this vendor whose
        MCP server this is."""

    @abc.abstractmethod
    def caller(self, meta):
        """The door of the session an MCP call comes from (`calls` says it is one of this
        vendor's), given the call's `_meta`: a dict. A Refusal, raised, where it gives no door."""

    @abc.abstractmethod
    def directory(self, door):
        """The directory the session behind `door` (a door of `caller`'s) works in, as the
        vendor's own files record it, or None where they do not say: the MCP server's own
        directory is the one its client chose to start it in, which may be another."""

    @abc.abstractmethod
    def delivery(self, joined):
        """A Delivery of one letter to the door of the join record `joined`."""

    @abc.abstractmethod
    def receipt(self, letter, joined):
        """The Receipt of `letter`, sent through the door of the join record `joined`."""

    @abc.abstractmethod
    def reachability(self, joined):
        """Whether the session behind the door of `joined` can take a letter now: a Reach."""

    @abc.abstractmethod
    def installation(self):
        """What setup and doctor ask of this vendor's client, through its own commands and
        files: its registration.Installation, from the room's client.py, imported now (only
        the human's verbs ask it)."""
