"""The vendors, the lower half of their registry: the one list of the peers, and what each
vendor's package declares of its sessions in its __init__, which imports nothing. What
must load fast (a human's verb refused in a session, the agents' verbs' words) and what
lies below the rooms (the ledger's records) asks here; what postbag asks of a peer's
doors, files and client, it asks of its room (rooms.py, the upper half).
"""

import abc

from postbag import claude, codex


class Light(abc.ABC):
    """The light part of a vendor's contract: what its package's __init__ holds, as module
    attributes, and loads at every start. It is said as an abstract class, as room.Room
    and registration.Installation say the rest, and tests/test_rooms.py holds each package
    to it as it holds each room to those."""

    @property
    @abc.abstractmethod
    def NAME(self):
        """The peer's name in the ledger, and its package's."""

    @property
    @abc.abstractmethod
    def CLIENT(self):
        """Its vendor's name for the client: Claude Code."""

    @property
    @abc.abstractmethod
    def PROGRAM(self):
        """The client's program, as a person types it."""

    @property
    @abc.abstractmethod
    def SESSION_NAME(self):
        """What one of its sessions is called, after a or an."""

    @property
    @abc.abstractmethod
    def FILES(self):
        """The files receipts read of a session, as help names them."""

    @property
    @abc.abstractmethod
    def DELIVERED(self):
        """What delivered means at its door."""

    @property
    @abc.abstractmethod
    def VARIABLES(self):
        """postbag's own variables for the vendor, and what each names."""

    @property
    @abc.abstractmethod
    def DOOR_VARIABLES(self):
        """The variables its sessions export that name their door."""

    @property
    @abc.abstractmethod
    def MARKS(self):
        """What else marks a shell as one of its sessions."""

    @property
    @abc.abstractmethod
    def DOOR_FIELDS(self):
        """What a join record holds of the door."""

    @property
    @abc.abstractmethod
    def LETTER_MOST(self):
        """The longest letter, in bytes, its door carries; None: any postbag sends."""

    @property
    @abc.abstractmethod
    def SWITCHES(self):
        """The human's switches for an exchange that its room honours, each the words of a Switch."""

    @property
    @abc.abstractmethod
    def SANDBOX(self):
        """The words of the Sandbox around its commands, or None where it has none."""

    @staticmethod
    @abc.abstractmethod
    def is_session_variable(name):
        """Whether a variable's name is one it sets for its sessions: a family, not a list."""

    @staticmethod
    @abc.abstractmethod
    def inside(env):
        """Whether an environment is one of its sessions', with its door."""

    @staticmethod
    @abc.abstractmethod
    def door_in(env):
        """The door fields of the session whose environment it is, or None."""

    @staticmethod
    @abc.abstractmethod
    def in_sandbox(env):
        """Whether an environment is one of the commands its sandbox runs."""


class Switch:
    """A choice the human makes in opening an exchange, which one room honours: `flag` on
    `open`'s command line (with its `help`) records `field` as `value` in the open record,
    and `opened` and `standing` are what `open` and `read`'s status line add of it. `peer`
    is the room that honours it."""

    __slots__ = ("field", "flag", "help", "opened", "peer", "standing", "value")

    def __init__(self, peer, flag, field, value, *, help, opened, standing):  # noqa: PLR0913
        self.peer, self.flag, self.field, self.value, self.help = peer, flag, field, value, help
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


VENDORS = {claude.NAME: claude, codex.NAME: codex}
# postbag's own variable in every session alike: the ledger, wherever it is set, over each
# repository's own (location.py); a vendor's program a door runs gets none of it.
LEDGER_VARIABLE = "POSTBAG_LEDGER"
PEERS = tuple(VENDORS)  # the ledger's names for the peers, in its order
# The variables that mark a shell as living inside an agent's session, in the order a
# refusal names them: every session's door variables, then what else marks one.
VARIABLES = (
    *(name for each in VENDORS.values() for name in each.DOOR_VARIABLES),
    *(name for each in VENDORS.values() for name in each.MARKS),
)
CLIENTS = " and ".join(each.CLIENT for each in VENDORS.values())  # "Claude Code and Codex"
# The longest letter, in bytes, that every door carries: a letter goes either way, and
# 1.0 took one cap for both.
LETTER_MOST = min(each.LETTER_MOST for each in VENDORS.values() if each.LETTER_MOST is not None)
# Every room's switches, in the order of the peers.
SWITCHES = tuple(Switch(each.NAME, **words) for each in VENDORS.values() for words in each.SWITCHES)


def other(peer):
    return next(name for name in PEERS if name != peer)


def inside(peer, env):
    """Whether the shell runs inside `peer`'s own session."""
    return VENDORS[peer].inside(env)


def whose(env):
    """The peer whose session the shell runs in, or None."""
    return next((peer for peer in PEERS if inside(peer, env)), None)


def door_in(peer, env):
    """The door fields of `peer`'s session whose environment `env` is, or None."""
    return VENDORS[peer].door_in(env)


def door_fields(peer):
    """The fields of a join record that reach `peer`'s session, which no output shows."""
    return VENDORS[peer].DOOR_FIELDS


def is_session_variable(name):
    """Whether `name` belongs to either vendor's session: none may reach the other's process."""
    return any(each.is_session_variable(name) for each in VENDORS.values())


def sandbox_of(env):
    """The Sandbox around this process's commands, as the vendor whose sandbox runs it says; or None."""
    found = next((each for each in VENDORS.values() if each.in_sandbox(env)), None)
    return None if found is None else Sandbox(**found.SANDBOX)


def for_a_child(env):
    """`env` less every vendor session variable and the ledger's path, for a vendor's
    program a door runs: a token must not reach the other vendor."""
    return {name: value for name, value in env.items() if name != LEDGER_VARIABLE and not is_session_variable(name)}
