"""`postbag setup`: from the downloaded file to a first letter in one command, the human's.

It registers this very postbag, by its absolute path, as the MCP server `postbag` of each
client installed here, through the client's own command, and lets the agent call its
tools without asking, as each room's plan says; it carries POSTBAG_LEDGER where the
terminal sets it. It changes no setting that decides what an agent lets in: where one
would stop letters, it says so and names the setting. Every plan is made before any
change, so that a client whose configuration setup cannot change safely leaves every
client as it was; `--dry-run` says the changes and makes none; a second run finds
nothing to change; `--remove` takes out what setup puts in.
"""

from postbag.human import require_human
from postbag.ledger import locate
from postbag.peers import room
from postbag.refusal import Refusal
from postbag.room import Server
from postbag.sessions import PEERS
from postbag.verbs import Done


def server_of(here, program):
    """postbag's MCP server as the clients are to start it: `program` (this postbag, by its
    absolute path), `mcp`, and the ledger the terminal names, if it names one."""
    named = {"POSTBAG_LEDGER": locate(here.env)} if here.env.get("POSTBAG_LEDGER") else {}
    return Server([*program, "mcp"], named)


def setup(here, program, *, removing=False, dry_run=False):
    """What setup does, or, `dry_run`, would do, for this postbag, `program`."""
    require_human("setup", here.env)
    server = server_of(here, program)
    rooms = [room(peer, here) for peer in PEERS]
    clients = [(each, each.client()) for each in rooms]
    found = [each for each, client in clients if client.program is not None]
    absent = [f"{client.name} is not installed here ({client.missing})" for _, client in clients if not client.program]
    if not found:
        raise Refusal(f"{'; '.join(absent)}: install them, then run postbag setup again")
    plans = [(each, each.setup(server, removing=removing)) for each in found]
    blocked = [plan.blocked for _, plan in plans if plan.blocked]
    if blocked:
        raise Refusal(f"setup changed nothing: {'; '.join(blocked)}")
    changes = [(each.NAME, change) for each, plan in plans for change in plan.changes]
    notes = [f"{line}: setup leaves it alone" for line in absent]
    notes += [note for _, plan in plans for note in plan.notes]
    if not changes:
        return Done("setup finds nothing to take out" if removing else "setup finds nothing to change", *notes)
    steps = [f"{peer:<7}{change.said}" for peer, change in changes]
    many = f"{len(changes)} change{'s' if len(changes) > 1 else ''}"
    if dry_run:
        return Done("\n".join([*steps, f"setup would make these {many} (--dry-run: nothing was changed)"]), *notes)
    for made, (_, change) in enumerate(changes):
        try:
            change.make()
        except Refusal as failed:
            before = f"; the {made} before it were made" if made else "; nothing was changed"
            raise Refusal(f"{failed}{before}") from None
    changed = list(dict.fromkeys(each.CLIENT for each, plan in plans if plan.changes))
    reads = "each reads its" if len(changed) > 1 else "it reads its"
    restart = f"start {' and '.join(changed)} again: {reads} MCP servers as it starts"
    return Done("\n".join([*steps, f"setup made these {many}; {restart}"]), *notes)
