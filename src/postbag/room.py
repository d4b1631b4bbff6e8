"""What a room is: what postbag asks of a vendor, written once.

Each vendor has a room, the package of its name (claude, codex), holding all that postbag knows of that
client, so that a client release changes files of its room alone. The contract has three parts: what must
load fast, the package's __init__ (the names vendors.py reads of it, which tests/test_rooms.py holds to their
types); everything else of its doors and files, its Room, below, the one way anything above the rooms
reaches that vendor; and what setup and doctor ask of its client, the Installation its client.py makes
(registration.py). Above the rooms no code branches on a vendor, and every rule and limit of one comes from
its room; the peers' names stand only in words people and agents read: examples in help, and 1.0's wording
of a refusal.

A step that cannot go on raises a Refusal; a question whose answer may be "no" answers in its own terms (a
Reach, a Receipt, None).
"""

import abc

CANNOT_TELL = "cannot tell"  # what every room says where its records cannot answer a question
TAKES, WILL_NOT = "takes", "will not"  # whether a session can take a letter now, as Reach says it


class Reach:
    """Whether the session behind a door can take a letter now: `state` (TAKES; WILL_NOT,
    for now or at once; or CANNOT_TELL), and `words`, what `open` and doctor say of it."""

    __slots__ = ("state", "words")

    def __init__(self, state, words):
        self.state, self.words = state, words


class Room(abc.ABC):
    """A vendor, as postbag asks of it, made for one verb with `here` and `switches`: by field, the values the
    human set at open for the switches its package declares. Every method reads the vendor's files fresh; none
    writes them."""

    SEND_TOOL = ""  # the MCP server's send tool as the room's client names it to its model
    PROVEN = ("", "")  # the oldest and newest versions of its client the real-client tier proves
    # From the package's __init__, which a room names as it is declared: `class Claude(Room, vendor=claude)`.
    NAME = CLIENT = SESSION_NAME = ""

    def __init_subclass__(cls, vendor=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if vendor is not None:
            cls.NAME, cls.CLIENT, cls.SESSION_NAME = vendor.NAME, vendor.CLIENT, vendor.SESSION_NAME

    def __init__(self, here, switches=None):
        self.here, self.switches = here, switches or {}

    @abc.abstractmethod
    def door_of_session(self):
        """What `join` records of the session this process runs in: the door's fields, and what else finds
        its records. A Refusal, raised, where the session has no door."""

    @abc.abstractmethod
    def calls(self, meta):
        """Whether an MCP call, given its `_meta`, comes from a session of this vendor whose MCP server this is."""

    @abc.abstractmethod
    def caller(self, meta):
        """The door of the session an MCP call of this vendor's comes from, given its `_meta` dict; else a Refusal."""

    @abc.abstractmethod
    def directory(self, door):
        """The directory the session behind `door` (a door of `caller`'s) works in, as the vendor's files
        record it, or None: the MCP server's own is the one its client chose to start it in, which may differ."""

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
        """This vendor's registration.Installation, from the room's client.py, imported now: only human verbs ask it."""
