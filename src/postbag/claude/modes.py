"""A Claude Code session's permission class: whether it bypasses permission prompts or prompts for them, read from
the mode its latest turn ran in (each user turn of its transcript records permissionMode), and before its first
turn from the flags its process started with (/proc/PID/cmdline, on Linux) and the settings' permissions.defaultMode.
Where none of these can be read, it is not known."""

from postbag.claude.files import mode_at
from postbag.vendor_files import LIMIT, quoted

BYPASS, PROMPTING = "bypass", "prompting"  # Claude Code's permission classes
MODES = ("acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan")
BYPASSES = "bypassPermissions"
PLANS = "plan"  # planning: of the bypass class when bypassing was on offer as the session started


def permission_class(settings, transcript, session, seconds=None):
    """(BYPASS, PROMPTING or None, how that is known or why it is not, in words), as of `seconds` (None: now).
    `transcript` is a path, or None; `session`, a files.Session whose process's flags are read, or None."""
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
    """(the permission mode the command line of process `pid` starts it in, or None; whether it offers bypassing),
    or None where the command line cannot be read (no /proc)."""
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
