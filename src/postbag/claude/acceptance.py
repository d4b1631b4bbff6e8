"""Whether Claude Code lets a letter from another session in: its acceptance policy, as
the versions room.PROVEN names apply it (read from their binaries, and shown on the real
clients by tests/real), worked out here from the files a session leaves.

1. crossSessionInbound. An administrator's managed settings, else the person's
   settings.json, decide it; the project's .claude/settings.json and
   .claude/settings.local.json may only make it stricter. accept lets a letter in; hold
   keeps it for the person's review; refuse drops it; a value Claude Code does not know
   holds.
2. Left unset, the permission classes decide: a session that bypasses permission prompts
   holds a letter whose sender claims no permission mode of its own, and postbag claims
   none (the hold protects such a session from a sender with fewer rights: lifting it is
   the person's decision); a session that prompts lets it in.

A held letter waits for a person to approve it in that session, where the app the session
runs in can ask one; unapproved within dialogExpiry (5m unless the settings say 60s, 10m
or never), Claude drops it.

The session's permission class is read, in order, from the mode its latest turn ran in
(each user turn of its transcript records permissionMode), and before its first turn
from the flags its process started with (/proc/PID/cmdline, on Linux) and the settings'
permissions.defaultMode. Where none of these can be read, it is not known, and neither
is whether a letter gets in while crossSessionInbound is unset.
"""

import os

from postbag.claude.files import DIALOG_TIMEOUT, dialog_timeout, mode_at
from postbag.room import CANNOT_TELL
from postbag.vendor_files import LIMIT, json_of, quoted, read_regular, record, table, text
from postbag.versions import numbers

ACCEPT, HOLD, REFUSE = "accept", "hold", "refuse"  # its crossSessionInbound, and a Verdict's policy
BYPASS, PROMPTING = "bypass", "prompting"  # Claude Code's permission classes
MANAGED_SETTINGS = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)
PROJECT_SETTINGS = ("settings.local.json", "settings.json")  # in its .claude folder, the more particular first
STRICTNESS = {ACCEPT: 0, HOLD: 1, REFUSE: 2}
EXPIRIES = {"60s": 60, "5m": 300, "10m": 600, "never": None}
DEFAULT_EXPIRY = "5m"
MODES = ("acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan")
BYPASSES = "bypassPermissions"
PLANS = "plan"  # planning: of the bypass class when bypassing was on offer as the session started
SETTING = "crossSessionInbound"
LETTING_IN = (
    "crossSessionInbound to accept in claude's settings.json"  # the setting by which a person lets every letter in
)

# Claude Code's acceptance policy, as the versions room.PROVEN names apply it, each rule a row:
# crossSessionInbound where it is set (a value it does not know holds, as HOLD does), the
# policy and why; else the session's permission class (None: not known), the policy and why.
BY_SETTING = {
    REFUSE: (REFUSE, "its settings refuse letters from other sessions (crossSessionInbound refuse)"),
    HOLD: (HOLD, "its settings hold letters from other sessions (crossSessionInbound hold)"),
    ACCEPT: (ACCEPT, "its settings let letters from other sessions in (crossSessionInbound accept)"),
}
BY_CLASS = {
    BYPASS: (
        HOLD,
        "it bypasses permission prompts ({how}), and a letter from postbag claims no "
        "permission mode, which such a session holds while crossSessionInbound is unset",
    ),
    PROMPTING: (ACCEPT, "it prompts for permissions ({how}), so letters get in while crossSessionInbound is unset"),
    None: (
        CANNOT_TELL,
        "while crossSessionInbound is unset it holds letters if it bypasses permission "
        "prompts, and whether it does is not known: {how}",
    ),
}
# How the person lets letters in where Claude may not, by who set what keeps them out
# (Settings.inbound's `where`; None: the class, nothing set).
REMEDIES = {
    "managed": "only an administrator can change the managed settings that say so",
    "project": "the person can let letters in by taking crossSessionInbound out of the project's .claude settings",
    "person": "the person can let letters in by setting crossSessionInbound to accept in claude's settings.json",
    None: "the person can let letters in by setting crossSessionInbound to accept in claude's settings.json",
}
# What a person can do with a letter Claude holds on permission classes, by the app the
# session runs in (its file's "entrypoint", as it begins), from the version where that was
# seen (None: every version postbag is proven on): where they answer it, or None where
# nobody can be asked. Any other app, a terminal among them, asks in a dialog.
ASKED_IN = (
    ("claude-desktop", None, None),  # no dialog: anthropics/claude-code#92027
    ("sdk-", None, None),  # claude -p, the SDK: no screen to ask on
    ("claude-vscode", "2.1.333", "with the Deliver button VS Code shows beside it"),
)
# From this version, a session that can ask a person keeps such a letter until they answer
# it, unless dialogExpiry or the session's DIALOG_TIMEOUT sets a time (the 2.1.336 and
# 2.1.337 binaries' code; 2.1.271 drops it after the default, as every session that can ask
# nobody does).
UNTIL_ANSWERED_SINCE = "2.1.336"


class Hold:
    """What becomes of a letter Claude holds: `asked_in`, where a person answers it (None:
    nobody can be asked); `seconds`, after which Claude drops it unanswered (None: never,
    while the session lives), and `by`, what sets that, in words; `untold`, why another time
    may apply that postbag cannot see, or None."""

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
    """The Hold of a letter Claude holds in `session` (a files.Session; None: not known),
    given its `settings`. One its crossSessionInbound holds lasts as long as the session
    (a notice, no dialog); one held on permission classes can be answered where the app asks
    a person, and expires as the session's DIALOG_TIMEOUT, else dialogExpiry, else the
    default says."""
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


class Verdict:
    """What Claude does with a letter from postbag: `policy` (ACCEPT, HOLD, REFUSE or
    CANNOT_TELL) and `why`, in words that follow "since"; what becomes of a letter it holds
    (`hold`, a Hold); and, where it may not let a letter in, how the person lets letters in
    (`remedy`)."""

    __slots__ = ("hold", "policy", "remedy", "why")

    def __init__(self, policy, why, *, hold=None, remedy=None):
        self.policy, self.why, self.hold, self.remedy = policy, why, hold, remedy


class Settings:
    """Claude Code's settings for a session working in `cwd` (None: not known), read once:
    the managed ones (under `here`'s root), the person's (in `config`), and the project's."""

    def __init__(self, here, config, cwd):
        self.managed = [_settings_in(here.system(path)) for path in MANAGED_SETTINGS]
        self.person = _settings_in(os.path.join(config, "settings.json"))
        folder = os.path.join(cwd, ".claude") if cwd else None
        projects = [os.path.join(folder, name) for name in PROJECT_SETTINGS] if folder else []
        self.project = [_settings_in(path) for path in projects]
        managed = [here.system(path) for path in MANAGED_SETTINGS]
        self.paths = [*managed, os.path.join(config, "settings.json"), *projects]

    def inbound(self):
        """(crossSessionInbound as it applies, and whether a project or an administrator set
        it: "project", "managed" or "person"), or (None, None) where nothing sets it."""
        value = where = None
        for found, source in [*((each, "managed") for each in self.managed), (self.person, "person")]:
            if SETTING in found:
                value, where = found[SETTING], source
                break
        if value is not None and (type(value) is not str or value not in STRICTNESS):
            return HOLD, where  # Claude Code holds while a value is not one it knows
        for found in self.project:
            tighter = found.get(SETTING)
            if type(tighter) is str and tighter in STRICTNESS and STRICTNESS[tighter] > STRICTNESS.get(value, 0):
                value, where = tighter, "project"
        return value, where

    def dialog_expiry(self):
        """dialogExpiry, where the settings set it to a value Claude Code knows; else None."""
        named = self._first("dialogExpiry")
        return named if type(named) is str and named in EXPIRIES else None

    def default_mode(self):
        """permissions.defaultMode, as the most particular settings file states it, or None."""
        for found in (*self.managed, *self.project, self.person):
            mode = text(table(found, "permissions"), "defaultMode")
            if mode is not None:
                return mode
        return None

    def changed_since(self, seconds):
        """Whether a settings file was written after `seconds` (since the epoch)."""
        for path in self.paths:
            try:
                if os.stat(path).st_mtime > seconds:
                    return True
            except OSError:
                continue
        return False

    def _first(self, name):
        for found in (*self.managed, *self.project, self.person):
            if name in found:
                return found[name]
        return None


def _settings_in(path):
    """The settings file at `path` as an object; an empty one where it is missing, damaged
    or of another shape, as Claude Code itself then has none from it. Where json's scanner,
    quick but recursive, cannot read it (nested deeper than its recursion goes, a number
    longer than an int takes), it is read as Claude Code reads it, for the settings that
    decide what it lets in, which are text."""
    try:
        data = read_regular(path, LIMIT)
    except OSError:
        return {}
    try:
        return record(json_of(data))
    except ValueError:
        from postbag.claude.permission import words_of  # only for a file json's scanner could not take

        return words_of(data)


def verdict(settings, klass, session=None):
    """What Claude does with a letter from postbag, given its `settings` and `klass`, a
    function giving the session's permission class as `permission_class` finds it: called
    only where the settings leave it to the class, for finding it may read far back.
    `session`, the running session's files.Session where its file is read, says what a
    person can do with a letter held there. The rules are the tables above."""
    value, where = settings.inbound()
    if value is not None:
        policy, why = BY_SETTING[value]
        held = hold(settings, session, by_setting=True) if policy == HOLD else None
        return Verdict(policy, why, hold=held, remedy=REMEDIES[where] if policy != ACCEPT else None)
    found, how = klass()
    policy, why = BY_CLASS[found]
    held = hold(settings, session, by_setting=False) if policy in (HOLD, CANNOT_TELL) else None
    return Verdict(policy, why.format(how=how), hold=held, remedy=REMEDIES[None] if policy != ACCEPT else None)


def _asked_in(session):
    """Where a person answers a letter Claude holds in `session` (a files.Session, or None:
    its app not known, which asks in a dialog), by ASKED_IN; None where nobody can be asked."""
    app = session.app if session is not None else None
    version = session.version if session is not None else None
    for begins, since, asked_in in ASKED_IN:
        if app is not None and app.startswith(begins) and (since is None or _at_least(version, since)):
            return asked_in
    return "in that session's dialog"


def _at_least(version, since):
    found = numbers(version)
    return found is not None and found >= numbers(since)


def permission_class(settings, transcript, session, seconds=None):
    """(BYPASS, PROMPTING or None, how that is known or why it is not, in words), from the
    mode of the session's latest turn before `seconds` (None: now) in `transcript` (a path,
    or None), else the flags its process `session` (a files.Session, or None) started
    with and the settings."""
    flags = _flags(session.pid) if session is not None else None
    offered = None if flags is None else flags[1]
    mode, unread = mode_at(transcript, seconds) if transcript else (None, None)
    if mode is not None:
        return _class_of(mode, offered, f"its latest turn ran in permission mode {quoted(mode)}")
    if unread is not None:  # a turn may lie beyond what was read: the flags would be a guess
        return None, f"the mode of its latest turn cannot be read: {unread}"
    if flags is None:
        return None, "its transcript records no turn yet, and how its process was started cannot be read here"
    return _class_at_start(flags, settings)


_CONFLICTING = object()  # --dangerously-skip-permissions beside another --permission-mode


def _class_at_start(flags, settings):
    """The class a session with no turn yet runs in: its flags', else its settings' mode."""
    started, offered = flags
    if started is _CONFLICTING:
        return None, "it was started with --dangerously-skip-permissions and another --permission-mode"
    if started is not None:
        return _class_of(started, offered, f"it was started in permission mode {quoted(started)}")
    mode = settings.default_mode()
    if mode is not None:
        return _class_of(mode, offered, f"its settings' permissions.defaultMode is {quoted(mode)}")
    return PROMPTING, "it was started with no permission mode, and its settings set none"


def _class_of(mode, offered, how):
    if mode == BYPASSES:
        return BYPASS, how
    if mode == PLANS and offered is not False:
        # Planning counts as bypassing where bypassing was on offer as the session
        # started, which only the flags it started with tell.
        if offered is None:
            return None, f"{how}, which bypasses prompts where bypassing was on offer, and whether it was is not known"
        return BYPASS, f"{how}, bypassing on offer"
    if mode in MODES:
        return PROMPTING, how
    return None, f"{how}, which postbag does not know"


def _flags(pid):
    """(the permission mode the command line of process `pid` starts it in, or None; whether
    it offers bypassing), or None where the command line cannot be read (no /proc)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            words = file.read(LIMIT).decode(errors="replace").split("\0")
    except OSError:
        return None
    skips = offered = False
    named = None
    for at, word in enumerate(words):
        if word == "--dangerously-skip-permissions":
            skips = offered = True
        elif word == "--allow-dangerously-skip-permissions":
            offered = True
        elif word == "--permission-mode" and at + 1 < len(words):
            named = words[at + 1]
        elif word.startswith("--permission-mode="):
            named = word.partition("=")[2]
    if skips and named not in (None, BYPASSES):
        return _CONFLICTING, offered
    return (BYPASSES if skips else named), offered
