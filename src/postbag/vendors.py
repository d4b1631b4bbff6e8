"""The vendors: the one list of the peers, what each vendor's package declares in its __init__ (which imports
nothing, so that a human's verb refused in a session loads no more), and each peer's Room, through which everything
above reaches a vendor, never by branching on its name. A room is imported when first asked for, so that a send to
one vendor loads nothing of the other's.

What a package declares (tests/test_rooms.py holds each to it): NAME, the peer's name in the ledger; CLIENT, its
vendor's name for the client; PROGRAM, as a person types it; SESSION_NAME, what one of its sessions is called after
"a"; FILES, what receipts read, as help names them; DELIVERED, what delivered means at its door; VARIABLES, postbag's
own variables for it; DOOR_VARIABLES, what its sessions export that names their door; MARKS, what else marks one of
its sessions; LETTER_MOST, the longest letter its door carries (None: any); SWITCHES, the words of each Switch its
room honours; SANDBOX, the words of the Sandbox around its commands and the variables that mark them (None: none);
and the functions is_session_variable(name), inside(env) and door_in(env).
"""

from postbag import claude, codex, contract
from postbag.contract import LEDGER_VARIABLE, PEERS
from postbag.refusal import Refusal


class Switch:
    """A choice the human makes in opening an exchange, which one room, `peer`, honours: `flag` on `open`'s command
    line (with its `help`) records `field` as `value` in the open record; `said_at_open` and `said_in_status` are
    what `open` and `read`'s status line add of it."""

    __slots__ = ("field", "flag", "help", "peer", "said_at_open", "said_in_status", "value")

    def __init__(self, peer, flag, field, value, *, help, said_at_open, said_in_status):  # noqa: PLR0913
        self.peer, self.flag, self.field, self.value, self.help = peer, flag, field, value, help
        self.said_at_open, self.said_in_status = said_at_open, said_in_status

    @property
    def dest(self):
        """Where the command line's parsed arguments keep it."""
        return f"switch_{self.field}"

    def set_in(self, chosen):
        """Whether `chosen` (fields and values, as an open record holds them) sets this switch."""
        value = chosen.get(self.field)
        return type(value) is type(self.value) and value == self.value


class Sandbox:
    """A vendor's sandbox around an agent's commands, in the words a refusal adds: `name`; `allow_connecting`, how
    the human lets a command reach the other agent's door; `allow_writing`, how the human lets it write the ledger.
    `marks`: the variables it sets in every command it runs, any one of which tells it."""

    __slots__ = ("allow_connecting", "allow_writing", "marks", "name")

    def __init__(self, name, *, allow_connecting, allow_writing, marks):
        self.name, self.allow_connecting, self.allow_writing = name, allow_connecting, allow_writing
        self.marks = marks


VENDORS = {claude.NAME: claude, codex.NAME: codex}
assert tuple(VENDORS) == PEERS  # one list of the vendors, in the ledger's order
AGENTS = " and ".join(PEERS)  # as the command line names them
# The variables that mark a shell as inside an agent's session, in the order a refusal names them.
VARIABLES = (
    *(name for each in VENDORS.values() for name in each.DOOR_VARIABLES),
    *(name for each in VENDORS.values() for name in each.MARKS),
)
CLIENTS = " and ".join(each.CLIENT for each in VENDORS.values())  # "Claude Code and Codex"
# The longest letter, in bytes, that every door carries: a letter goes either way, and 1.0 took one cap for both.
LETTER_MOST = min(each.LETTER_MOST for each in VENDORS.values() if each.LETTER_MOST is not None)
SWITCHES = tuple(Switch(each.NAME, **words) for each in VENDORS.values() for words in each.SWITCHES)


def other(peer):
    return next(name for name in PEERS if name != peer)


def inside(peer, here):
    """Whether the shell runs inside `peer`'s own session."""
    return VENDORS[peer].inside(here.env)


def whose(here):
    """The peer whose session the shell runs in, or None."""
    return next((peer for peer in PEERS if inside(peer, here)), None)


def door_in(peer, here):
    """The door fields of `peer`'s session whose environment `here` is, or None."""
    return VENDORS[peer].door_in(here.env)


def is_session_variable(name):
    """Whether `name` belongs to either vendor's session: none may reach the other's process."""
    return any(each.is_session_variable(name) for each in VENDORS.values())


def in_a_persons_terminal(here):
    """Whether `here` is a terminal of no agent's session. A verb refused there was typed by the person, who is told
    why and what to do, not the agents' "stop and ask the human"."""
    return not any(name in here.env for name in VARIABLES)


def session_door(peer, verb, here):
    """The door of `peer`'s session this process runs in, as a join records it; outside
    it, a Refusal of `verb`, which says inside the other peer's session what was meant."""
    door = door_in(peer, here)
    if door is not None:
        return door
    reason = contract.peers_verb(verb, peer)
    the_other = other(peer)
    if inside(the_other, here):
        reason += f" (this is a {the_other} session: to write to {peer}, run postbag send {peer})"
    elif in_a_persons_terminal(here):
        reason += f" ({in_no_session(peer)})"
    raise Refusal(reason)


def in_no_session(peer):
    """What a person who runs `peer`'s verb in their own terminal is told to do instead."""
    return f"this terminal is in no agent's session: ask {peer} to do it, or run it in {peer}'s session"


def sandbox_of(here):
    """The Sandbox around this process's commands, as its vendor's marking variables say; or None."""
    for each in VENDORS.values():
        if each.SANDBOX is not None and any(here.env.get(name) for name in each.SANDBOX["marks"]):
            return Sandbox(**each.SANDBOX)
    return None


def for_a_child(env):
    """`env` less the ledger's path and every vendor's session variables: a token must not reach the other vendor."""
    return {name: value for name, value in env.items() if name != LEDGER_VARIABLE and not is_session_variable(name)}


def _claude():
    from postbag.claude.room import Claude

    return Claude


def _codex():
    from postbag.codex.room import Codex

    return Codex


_ROOMS = {claude.NAME: _claude, codex.NAME: _codex}


def room_class(peer):
    """`peer`'s Room, the class."""
    return _ROOMS[peer]()


def all_rooms():
    """Every peer's Room class, by its name, in the ledger's order."""
    return {peer: room_class(peer) for peer in PEERS}


def room(peer, here, exchange=None):
    """`peer`'s room for `here`, with the switches set in `exchange` (an exchange.Exchange) that it honours."""
    fields = {switch.field for switch in SWITCHES if switch.peer == peer}
    switches = {} if exchange is None else {k: v for k, v in exchange.switches.items() if k in fields}
    return room_class(peer)(here, switches)


def reach(peer, joined, here, exchange):
    """Whether `peer`'s session behind the door of `joined`, its join record, can take a letter now: a room.Reach."""
    from postbag.room import CANNOT_TELL, Reach

    try:
        return room(peer, here, exchange).reachability(joined)
    except OSError as error:  # a record that cannot be read is something not known, not a failure
        return Reach(CANNOT_TELL, f"whether {peer} can take a letter now cannot be told ({error.strerror})")
