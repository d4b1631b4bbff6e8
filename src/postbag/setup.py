"""`postbag setup`: from the downloaded file to a first letter in one command, the human's.

It registers this very postbag, by its absolute path, as the MCP server `postbag` of each client installed here,
through the client's own command, and lets the agent call its tools without asking, as each room says (a rule of
the person's that asks first or denies stays theirs); it carries POSTBAG_LEDGER where
the terminal names a ledger, and else names none, so that each session finds its repository's. It changes no
setting that decides what an agent lets in: where one would stop letters, it says so. Every plan is made before
any change, so that a client whose configuration setup cannot change safely leaves every client as it was; a
person's own file is changed first, so that a write the disk refuses leaves everything as it was. A second run
finds nothing to change; `--remove` takes out what setup puts in.
"""

from postbag.escape import shell_word
from postbag.guards import require_human
from postbag.location import VARIABLE
from postbag.refusal import Refusal
from postbag.registering import (
    ANOTHER,
    ELSEWHERE,
    NONE,
    ledger_of,
    registration_of,
    registration_standing,
)
from postbag.registration import OK, Change, Registration, version_check
from postbag.vendor_files import quoted
from postbag.vendors import PEERS, room
from postbag.words import Done


class Plan:
    """What setup does with one client: its `changes`; `blocked`, why it must change nothing anywhere (in words, or
    None); and `notes`, what the person should know, a setting setup leaves to them among them."""

    __slots__ = ("blocked", "changes", "notes")

    def __init__(self, changes=(), *, blocked=None, notes=()):
        self.changes, self.blocked, self.notes = [each for each in changes if each], blocked, list(notes)


def setup(here, *, removing=False, dry_run=False):
    """What setup does, or, `dry_run`, would do, for this postbag, as `here` was started."""
    require_human("setup", here)
    wanted = registration_of(here)
    rooms = [(peer_room, peer_room.installation()) for peer_room in (room(peer, here) for peer in PEERS)]
    found = [(peer_room, installed) for peer_room, installed in rooms if installed.client.path is not None]
    absent = [f"{i.client.name} is not installed here ({i.client.missing})" for _, i in rooms if not i.client.path]
    if not found:
        raise Refusal(f"{'; '.join(absent)}: install them, then run postbag setup again")
    plans = [(peer_room, _plan(peer_room, installed, wanted, here, removing)) for peer_room, installed in found]
    blocked = [plan.blocked for _, plan in plans if plan.blocked]
    if blocked:
        raise Refusal(f"setup changed nothing: {'; '.join(blocked)}")
    changes = [(peer_room.NAME, change) for peer_room, plan in plans for change in plan.changes]
    notes = [f"{line}: setup leaves it alone" for line in absent]
    notes += [_version_note(peer_room, installed) for peer_room, installed in found]
    notes += [note for _, plan in plans for note in plan.notes]
    notes += list(dict.fromkeys(news for _, change in changes for news in change.news))  # moving says it twice
    if not changes:
        return Done("setup finds nothing to take out" if removing else "setup finds nothing to change", *notes)
    steps = [f"{peer:<7}{change.does}" for peer, change in changes]
    many = "this change" if len(changes) == 1 else f"these {len(changes)} changes"
    if dry_run:
        return Done("\n".join([*steps, f"setup would make {many} (--dry-run: nothing was changed)"]), *notes)
    _make_all([change for _, change in changes], here)
    changed = list(dict.fromkeys(peer_room.CLIENT for peer_room, plan in plans if plan.changes))
    reads = "each reads its" if len(changed) > 1 else "it reads its"
    restart = f"start {' and '.join(changed)} again: {reads} MCP servers as it starts"
    return Done("\n".join([*steps, f"setup made {many}; {restart}"]), *notes)


def _version_note(peer_room, installed):
    """A note on the version of `installed`, `peer_room`'s client, where doctor would not call it ok; else None."""
    check = version_check(installed.client, installed.version(), peer_room.PROVEN, installed.installing)
    return None if check.state == OK else f"{installed.client.name}: {check.finding}"


def _make_all(changes, here):
    """Make each of `changes` in turn; where one fails, or a signal asks the process to end, undo those made and the
    one under way, then refuse, or end as the signal asks."""
    from postbag.refusal import say
    from postbag.signals import Held, Stopped, Stopping, end_as

    made = []
    try:
        with Stopping():
            for change in changes:
                made.append(change)
                change.make()
    except Refusal as failed:
        raise Refusal(f"{failed}; {_undone(made[:-1])}") from None
    except (KeyboardInterrupt, Stopped) as stopped:
        with Held():  # nothing stops the undoing
            undone = _undone(made[:-1], under_way=made[-1])
        say(f"setup was interrupted; {undone}", here.stderr)
        if isinstance(stopped, Stopped):
            end_as(stopped.number)
        raise


def _undone(made, under_way=None):
    """Undo the changes `made`, the last first, after `under_way` (which a signal stopped, made or not), so that a
    failed setup leaves all as it was; in words, what came of it."""
    if under_way is not None:
        try:
            under_way.undo()
        except Refusal:  # it had not been made: nothing to undo
            pass
    for change in reversed(made):
        try:
            change.undo()
        except Refusal as failed:
            return f"the {len(made)} before it were made, and undoing them failed ({failed})"
    return "nothing was changed"


def _plan(peer_room, installed, wanted, here, removing):
    """The Plan for the client of `peer_room`, as `installed`: the person's file first, then the client's commands."""
    try:
        registered = installed.registered()
        allowing = installed.allowing_tools(removing=removing)
    except Refusal as refusal:
        return Plan(blocked=str(refusal))
    state = registration_standing(registered, wanted, here)
    if state == ANOTHER:
        starts = quoted(registered.words(), 200)
        if removing:
            left = f"{peer_room.CLIENT}'s MCP server postbag starts {starts}, not this postbag: left"
            return Plan([allowing], notes=[left, *installed.notes(removing=True)])
        return Plan(
            blocked=f"{peer_room.CLIENT}'s MCP server postbag starts {starts}, not this postbag: take "
            f"it out with {installed.unregistering().shown}, or run setup from the postbag "
            "it starts"
        )
    if removing:
        taking_out = None
        if registered:
            taking_out = _undone_by(installed.unregistering(removing=True), installed.registering(registered))
        return Plan([allowing, taking_out], notes=installed.notes(removing=True))
    registering = None
    if state == NONE:
        registering = _undone_by(installed.registering(wanted), installed.unregistering())
    elif state == ELSEWHERE:
        registering = _moving(installed, registered, wanted, here)
    return Plan([allowing, registering], notes=installed.notes())


def _moving(installed, registered, wanted, here):
    """The Change that points the client's registration of this postbag at the ledger this terminal names (or none),
    where it names another: taken out and made again, with whatever else it names, and put back if that fails."""
    others = {name: value for name, value in registered.variables.items() if name != VARIABLE}
    moved = Registration(wanted.argv, {**others, **wanted.variables})
    out = _undone_by(installed.unregistering(), installed.registering(registered))
    back_in = _undone_by(installed.registering(moved), installed.unregistering())

    def make():
        out.make()
        try:
            back_in.make()
        except Refusal:
            try:
                out.undo()  # the registration back as it was, so that nothing is lost
            except Refusal:
                pass  # what failed first is what the person must hear
            raise

    def undo():
        back_in.undo()
        out.undo()

    target = ledger_of(wanted, here)
    if target is None:
        does = (
            "lets postbag's MCP server find each session's own ledger (its repository's, "
            f"or the default), where it named {shell_word(ledger_of(registered, here))}"
        )
    else:
        does = f"points postbag's MCP server at the ledger this terminal names, {shell_word(target)}"
    moves = f"{does}: {out.shown}, then {back_in.shown}"
    return Change(moves, make, undo=undo, news=[*out.news, *back_in.news])


def _undone_by(change, opposite):
    """`change`, undone by making its `opposite`, where it brings no undo of its own."""
    if change.undo is None:
        change.undo = opposite.make
    return change
