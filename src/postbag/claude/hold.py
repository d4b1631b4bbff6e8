"""What becomes of a letter Claude Code holds for the person's review: where a person can answer it, by the
app the session runs in, and when Claude drops it unanswered. A hold its crossSessionInbound setting makes
lasts as long as the session; one on permission classes expires after the session's
CLAUDE_CODE_USER_DIALOG_TIMEOUT_MS, else dialogExpiry, else 5 minutes, and from 2.1.336 a session that can
ask a person waits for the answer unless one of those is set."""

from postbag.claude.files import DIALOG_TIMEOUT, dialog_timeout
from postbag.receipts import NOT_TAKEN, UNKNOWN, Receipt
from postbag.versions import numbers

EXPIRIES = {"60s": 60, "5m": 300, "10m": 600, "never": None}
DEFAULT_EXPIRY = "5m"


# Where a person answers a letter Claude holds on permission classes (None: nobody can be asked), by how the
# session's app, its file's "entrypoint", begins, from the version where that was seen (None: every version
# postbag is proven on). Any other app, a terminal among them, asks in a dialog.
ASKED_IN = (
    ("claude-desktop", None, None),  # no dialog: anthropics/claude-code#92027
    ("sdk-", None, None),  # claude -p, the SDK: no screen to ask on
    ("claude-vscode", "2.1.333", "with the Deliver button VS Code shows beside it"),
)


# From this version a session that can ask a person keeps such a letter until they answer it, unless dialogExpiry
# or its DIALOG_TIMEOUT sets a time (the 2.1.336 and 2.1.337 binaries' code); 2.1.271 drops it after the default,
# as every session that can ask nobody does.
UNTIL_ANSWERED_SINCE = "2.1.336"


class Hold:
    """What becomes of a letter Claude holds: `asked_in`, where a person answers it (None: nobody can be
    asked); `seconds`, after which Claude drops it unanswered (None: never, while the session lives), and `by`,
    what sets that, in words; `untold`, why another time postbag cannot see may apply, or None."""

    __slots__ = ("asked_in", "by", "seconds", "untold")

    def __init__(self, asked_in, seconds, by, untold=None):
        self.asked_in, self.seconds, self.by, self.untold = asked_in, seconds, by, untold

    def fate(self, sent, clock):
        """What becomes of a letter held since `sent` (seconds since the epoch; None: any), in words."""
        if self.seconds is None:
            if self.asked_in is None:
                fate = f"it waits, undelivered, until the person lets letters in or the session ends ({self.by})"
            else:
                fate = f"it waits until a person answers it {self.asked_in} ({self.by})"
        else:
            at = f"{self.seconds:g} s after it arrives" if sent is None else f"by {clock.stamp(self.ends(sent))}"
            if self.asked_in is None:
                fate = f"nobody can be asked there, so it expires unanswered {at} ({self.by})"
            else:
                fate = f"unless a person approves it {self.asked_in}, it expires unanswered {at} ({self.by})"
        return fate + self.another_time()

    def ends(self, sent):
        """When a letter stamped `sent` has surely expired unanswered: seconds since the epoch,
        or None. The ledger stamps a letter to the second, just after Claude took it in, and
        Claude's timer fires a little late (0.1 s seen): two seconds cover both."""
        return None if self.seconds is None or sent is None else sent + self.seconds + 2

    def another_time(self):
        """What a time postbag cannot see may change, in words that follow a fate; or nothing."""
        if self.untold is None:
            return ""
        return f"; where {DIALOG_TIMEOUT} in the session's environment sets another time, that one holds: {self.untold}"


def hold(settings, session, *, by_setting):
    """The Hold of a letter Claude holds in `session` (a files.Session; None: not known), given its
    `settings`; `by_setting`, where its crossSessionInbound setting holds it (a notice, no dialog)."""
    if by_setting:
        return Hold(None, None, "a hold its settings make does not expire")
    asked_in, untold = _asked_in(session), None
    try:
        if session is None or session.pid is None:
            raise ValueError("its process is not known")
        timeout = dialog_timeout(session.pid)
        if timeout is not None:
            by = f"{DIALOG_TIMEOUT} {timeout} in its environment"
            return Hold(asked_in, timeout / 1000 if timeout else None, by)
    except ValueError as error:
        untold = str(error)
    named = settings.dialog_expiry()
    if named is not None:
        return Hold(asked_in, EXPIRIES[named], f"dialogExpiry {named}", untold)
    version = session.version if session is not None else None
    if asked_in is not None and _at_least(version, UNTIL_ANSWERED_SINCE):
        return Hold(asked_in, None, "no dialogExpiry is set", untold)
    return Hold(asked_in, EXPIRIES[DEFAULT_EXPIRY], f"dialogExpiry {DEFAULT_EXPIRY}, the default", untold)


def _asked_in(session):
    """Where a person answers a letter Claude holds in `session` (a files.Session, or None), by ASKED_IN."""
    app = session.app if session is not None else None
    for begins, since, asked_in in ASKED_IN:
        if app is not None and app.startswith(begins) and (since is None or _at_least(session.version, since)):
            return asked_in
    return "in that session's dialog"


def _at_least(version, since):
    found = numbers(version)
    return found is not None and found >= numbers(since)


def held_receipt(found, sent, clock):
    """The Receipt of a letter Claude held, sent at `sent` (seconds since the epoch), as `found` (the Verdict
    its records give) foretold: not taken while it waits; once its time has passed, expired unanswered, or
    unknown where a time postbag cannot see may apply."""
    held, ends = found.hold, found.hold.ends(sent)
    if ends is None or clock.now() < ends:
        fate = held.fate(sent, clock)
        return Receipt(NOT_TAKEN, f"claude holds it for the person's review, since {found.why}; {fate}")
    expired = f"nobody let it in within {held.by}: it expired unanswered by {clock.stamp(ends)}"
    if held.untold is not None:
        return Receipt(
            UNKNOWN, f"claude held it for the person's review, since {found.why}; {expired}{held.another_time()}"
        )
    return Receipt(NOT_TAKEN, f"claude held it for the person's review, since {found.why}, and {expired}")
