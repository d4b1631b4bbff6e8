"""Whether Claude Code lets a letter from another session in: its acceptance policy, as the versions room.PROVEN
names apply it (read from their binaries, and shown on the real clients by tests/real), worked out from the files a
session leaves.

1. crossSessionInbound. An administrator's managed settings, else the person's settings.json, decide it; the
   project's .claude/settings.json and .claude/settings.local.json may only make it stricter. accept lets a letter
   in; hold keeps it for the person's review; refuse drops it; a value Claude Code does not know holds.
2. Left unset, the session's permission class decides (modes.py): a session that bypasses permission prompts holds
   a letter whose sender claims no permission mode of its own, and postbag claims none (the hold protects such a
   session from a sender with fewer rights: lifting it is the person's decision); a session that prompts lets it
   in. Where the class is not known, neither is whether a letter gets in.

What becomes of a letter Claude holds is hold.py's.
"""

import os

from postbag.claude.hold import EXPIRIES, hold
from postbag.claude.modes import BYPASS, PROMPTING
from postbag.room import CANNOT_TELL
from postbag.vendor_files import LIMIT, json_of, read_regular, record, table, text

ACCEPT, HOLD, REFUSE = "accept", "hold", "refuse"  # its crossSessionInbound, and a Verdict's policy
MANAGED_SETTINGS = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)
PROJECT_SETTINGS = ("settings.local.json", "settings.json")  # in its .claude folder, the more particular first
STRICTNESS = {ACCEPT: 0, HOLD: 1, REFUSE: 2}
SETTING = "crossSessionInbound"

# The policy, and why, by crossSessionInbound where it is set (a value Claude Code does not know holds, as HOLD does).
BY_SETTING = {
    REFUSE: (REFUSE, "its settings refuse letters from other sessions (crossSessionInbound refuse)"),
    HOLD: (HOLD, "its settings hold letters from other sessions (crossSessionInbound hold)"),
    ACCEPT: (ACCEPT, "its settings let letters from other sessions in (crossSessionInbound accept)"),
}
# How the person lets letters in where Claude may not, by Settings.inbound's `where` (None: the class decided).
REMEDIES = {
    "managed": "only an administrator can change the managed settings that say so",
    "project": "the person can let letters in by taking crossSessionInbound out of the project's .claude settings",
    "person": "the person can let letters in by setting crossSessionInbound to accept in claude's settings.json",
    None: "the person can let letters in by setting crossSessionInbound to accept in claude's settings.json",
}


class Verdict:
    """What Claude does with a letter from postbag: `policy` (ACCEPT, HOLD, REFUSE or CANNOT_TELL) and `why`, in
    words that follow "since"; what becomes of a letter it holds (`hold`, a Hold); and, where it may not let a letter
    in, how the person lets letters in (`remedy`)."""

    __slots__ = ("hold", "policy", "remedy", "why")

    def __init__(self, policy, why, *, hold=None, remedy=None):
        self.policy, self.why, self.hold, self.remedy = policy, why, hold, remedy


class Settings:
    """Claude Code's settings for a session working in `cwd` (None: not known), read once:
    the managed ones (under `here`'s root), the person's (in `config`), and the project's."""

    def __init__(self, here, config, cwd):
        managed = [here.system(path) for path in MANAGED_SETTINGS]
        person = os.path.join(config, "settings.json")
        projects = [os.path.join(cwd, ".claude", name) for name in PROJECT_SETTINGS] if cwd else []
        self.managed, self.person = [_settings_in(path) for path in managed], _settings_in(person)
        self.project = [_settings_in(path) for path in projects]
        self.paths = [*managed, person, *projects]

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
        levels = (*self.managed, *self.project, self.person)
        named = next((found["dialogExpiry"] for found in levels if "dialogExpiry" in found), None)
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


def _settings_in(path):
    """The settings file at `path` as an object; {} where it is missing, damaged or of another shape, as Claude Code
    then has none from it. Where json's scanner, quick but recursive, cannot read it (nested too deep, a number longer
    than an int takes), it is read as Claude Code reads it, for the text settings that decide what it lets in."""
    try:
        data = read_regular(path, LIMIT)
    except OSError:
        return {}
    try:
        return record(json_of(data))
    except ValueError:
        from postbag.claude.settings import words_of  # only for a file json's scanner could not take

        return words_of(data)


def verdict(settings, klass, session=None):
    """What Claude does with a letter from postbag, by its `settings`, else by `klass()`, the session's permission
    class as `permission_class` finds it (called only then: finding it may read far back). `session`, the running
    session's files.Session where its file is read, says what a person can do with a letter held there."""
    value, where = settings.inbound()
    by_setting = value is not None
    policy, why = BY_SETTING[value] if by_setting else _by_class(*klass())
    held = hold(settings, session, by_setting=by_setting) if policy == HOLD else None
    remedy = REMEDIES[where if by_setting else None] if policy != ACCEPT else None
    return Verdict(policy, why, hold=held, remedy=remedy)


def _by_class(found, how):
    """The policy, and why, while crossSessionInbound is unset: by the session's permission
    class `found` (None: not known), which `how` says how it is known or why it is not."""
    if found == BYPASS:
        return HOLD, (
            f"it bypasses permission prompts ({how}), and a letter from postbag claims no permission mode, which "
            "such a session holds while crossSessionInbound is unset"
        )
    if found == PROMPTING:
        return ACCEPT, f"it prompts for permissions ({how}), so letters get in while crossSessionInbound is unset"
    return CANNOT_TELL, (
        "while crossSessionInbound is unset it holds letters if it bypasses permission prompts, and whether it "
        f"does is not known: {how}"
    )
