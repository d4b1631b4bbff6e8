"""What a room is: what postbag asks of a vendor, written once.

Each vendor has a room, the package of its name (claude, codex), holding all that postbag
knows of that client, so that a client release changes files of its room alone. What
must load fast is the package's __init__, the light part of the contract (vendors.py
declares what it holds, and lists the vendors); everything else is its Room, below: the
one way anything above the rooms reaches that vendor's doors, its files and its client
(rooms.py has the table). Above the rooms, no code branches on a vendor, and every rule
and limit of one (how long a letter its door carries, what its sessions are called)
comes from its room; the peers' names stand only in the words people and agents read:
examples in help, and 1.0's wording of a refusal.

A question whose answer may be "no" returns a Refusal, made and not raised, and the
caller decides (doctor tells it as a line, setup gathers every client's before it
refuses, the MCP guard weighs both rooms'); a step that cannot go on raises one.
"""

import abc

from postbag.refusal import Refusal

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


def not_answered(peer, reason):
    """The refusal of a knock that handed nothing over: after the peer rejoins, sending
    again is safe."""
    return Refusal(
        f"{peer}'s door did not answer ({reason}); if its session restarted it must run: postbag join {peer}"
    )


def maybe_delivered(peer, reason):
    """The refusal of a knock that failed after the door may have taken the letter: a
    second send could deliver it twice. Neither door says whether the agent read it."""
    return Refusal(
        f"{peer}'s door failed after taking the letter ({reason}): it may already have reached {peer}, "
        f"and it was not recorded; do not resend before checking {peer}'s session and postbag read"
    )


class Post(abc.ABC):
    """One letter on its way through a room's door. Made before the knock, when it may read
    the recipient's records and go on reading beside the knock; then `knock`; then, once
    the letter is recorded, `said`; and `finish` in any case, so that whatever it reads
    beside the knock ends with the send, even a refused one."""

    @abc.abstractmethod
    def knock(self, envelope, sandbox):
        """Hand `envelope` to the door; `sandbox` is the Sandbox around the sender, or None.
        A Refusal where it fails: `maybe_delivered` where the door may have taken the
        letter; any other (`not_answered`, a sandbox that blocks the knock, a client that
        cannot be run, a letter too long to pass) where nothing was handed over."""

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
    the exchange, of the switches its package declares (by field). Every method reads the
    vendor's files fresh; none writes them."""

    NAME = ""  # the peer's name in the ledger, its package's
    CLIENT = ""  # its vendor's name for its program: "Claude Code"
    SESSION_NAME = ""  # what a session of this vendor is called, after "a" or "an": "a Claude Code session"
    SEND_TOOL = ""  # the MCP server's send tool as this client names it to its model
    PROVEN = ("", "")  # the oldest and newest versions the real-client tier proves

    def __init__(self, here, switches=None):
        self.here, self.switches = here, switches or {}

    @abc.abstractmethod
    def door_of_session(self):
        """What `join` records of the session this process runs in: the door's fields, and
        what else finds its records. A step of `join`, which cannot go on where the
        session has no door: it raises a Refusal."""

    @abc.abstractmethod
    def caller(self, meta):
        """The door of a session of this vendor whose MCP server this is, given an MCP
        call's `_meta`: a dict; None where the call comes from none of this vendor's
        sessions; a Refusal (made, not raised) where it does, but gives no door."""

    @abc.abstractmethod
    def directory(self, door):
        """The directory the session behind `door` (a door of `caller`'s) works in, as the
        vendor's own files record it, or None where they do not say: the MCP server's own
        directory is the one its client chose to start it in, which may be another."""

    @abc.abstractmethod
    def post(self, joined):
        """A Post of one letter to the door of the join record `joined`."""

    @abc.abstractmethod
    def receipt(self, letter, joined):
        """The Receipt of `letter`, sent through the door of the join record `joined`."""

    @abc.abstractmethod
    def reachability(self, joined):
        """Whether the session behind the door of `joined` can take a letter now: a Reach."""

    # What setup and doctor ask of the client, through its own commands and files, as
    # registration.py's Client, Registration, Change and Check. Only the human's verbs ask
    # it, so it lives in the room's client.py, imported when asked, which offers each of
    # CLIENT_FUNCTIONS; every room answers through it alike.

    @abc.abstractmethod
    def client_module(self):
        """This vendor's client.py, imported now."""

    def client(self):
        """This vendor's Client, as this process finds it."""
        return self.client_module().find(self.here)

    def version(self):
        """The version of the client installed, as its own --version says it, or None."""
        found = self.client()
        return None if found.program is None else self.client_module().version(self.here, found)

    def installing(self):
        """How a person gets a version of the client in PROVEN: the command to paste, and what it needs."""
        return self.client_module().installing(self.here)

    def registered(self):
        """The Registration the client starts as postbag's MCP server; None where it starts none;
        a Refusal (made, not raised) where that cannot be told."""
        return self.client_module().registered(self.here, self.client())

    def registering(self, registration):
        """The Change by which the client starts `registration` as postbag's MCP server."""
        return self.client_module().registering(self.here, self.client(), registration)

    def unregistering(self, *, removing=False):
        """The Change by which the client stops starting postbag's MCP server; `removing`,
        as `setup --remove` takes it out, giving back what setup kept of the client's files."""
        return self.client_module().unregistering(self.here, self.client(), removing)

    def allowing_tools(self, *, removing=False):
        """The Change by which the client lets its agent call postbag's tools without
        asking, or, `removing`, stops; None where there is nothing to change. A Refusal,
        raised, where the client's settings cannot be changed safely."""
        return self.client_module().allowing_tools(self.here, removing)

    def setup_notes(self, *, removing=False):
        """What setup tells the person of this client and leaves to them, in words."""
        return self.client_module().notes(self.here, removing)

    def checks(self):
        """What doctor checks of the client beyond its version and registration: Checks."""
        return self.client_module().checks(self.here)


# What each room's client.py offers, every function given `here` first (tests/test_rooms.py
# holds each to it).
CLIENT_FUNCTIONS = {
    "installing": "(here): how a person installs a version in PROVEN, a command to paste and what it needs",
    "find": "(here): the Client, found on PATH or where the vendor's own variable says",
    "version": "(here, client): the version its --version says, or None",
    "registered": "(here, client): the Registration it starts as postbag's server, None, or a Refusal",
    "registering": "(here, client, registration): the Change that registers `registration`",
    "unregistering": "(here, client, removing): the Change that takes postbag's server out (removing: for good)",
    "allowing_tools": "(here, removing): the Change that lets postbag's tools run unasked, or None",
    "checks": "(here): what doctor checks besides, as Checks",
    "notes": "(here, removing): what setup leaves to the person, in words",
}
