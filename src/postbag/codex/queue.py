"""Codex's door: `codex queue --thread ID --message ENVELOPE`, which stores the letter in Codex's queue for the
thread; with --resume it also asks Codex's app-server daemon to load a thread that nobody has loaded, which then
takes it (wake.py decides when to ask). Where it refuses a letter, its own last words on stderr are shown, escaped,
on one line and cut short, the thread's id in them written as words: a door field is never shown."""

import errno
import os

from postbag import processes
from postbag.doors import maybe_delivered, not_answered
from postbag.escape import without_credentials
from postbag.refusal import Refusal
from postbag.vendor_files import quoted

APP_CODEX = "/Applications/ChatGPT.app/Contents/Resources/codex"
SAID_MOST = 160  # characters of codex's own words a refusal shows
# What `codex queue` says on stderr of a thread it does not know, in our words.
CODEX_SAYS = (
    ("no rollout found", "codex knows no such thread"),
    ("no active session found", "codex knows no such thread"),
)
# What a codex from before `codex queue --resume` says of it: a usage error, exit 2, raised
# before anything is stored, so the letter is knocked again without it.
USAGE_ERROR, NO_RESUME_FLAG = 2, b"unexpected argument '--resume'"
# What codex queue writes on stderr that says nothing of the resume: a line of its own log (tracing's format: a
# time, a level, then the rest; its colours, when it has them, are escapes around the level), or a warning about
# setting itself up (seen with CODEX_HOME under /tmp, where it makes no helper binaries). Read without re, whose
# import would cost a join or a send more than the rest of its work.
_QUIET_LEVELS = ("TRACE", "DEBUG", "INFO")
_SETTING_UP = ("WARNING: proceeding, even though we could not create PATH aliases",)


class Resume:
    """What `codex queue --resume` said of the resume it asked codex's daemon for: one of these."""

    WOKEN = "the daemon loaded the thread"
    NO_DAEMON = "no daemon runs"
    LOADED_ELSEWHERE = "another codex has the thread loaded"
    NOT_WOKEN = "the daemon could not load the thread"
    UNCLEAR = "codex said something postbag does not know"
    UNSUPPORTED = "this codex has no --resume"


def find_codex(here):
    """The codex binary: POSTBAG_CODEX (a path, or a name PATH finds), else the ChatGPT app's, else PATH's codex."""
    search = here.env.get("PATH", os.defpath)
    named = here.env.get("POSTBAG_CODEX")
    if named:
        found = processes.which(here.absolute(named) if os.path.dirname(named) else named, search)
        if found is None:
            raise Refusal(f"no codex at {named}; set POSTBAG_CODEX")
        return here.absolute(found)
    app = here.system(APP_CODEX)
    if os.path.isfile(app) and os.access(app, os.X_OK):
        return app
    found = processes.which("codex", search)
    if found is None:
        raise Refusal("no codex on PATH; set POSTBAG_CODEX")
    return here.absolute(found)


def knock(codex, thread, envelope, env, *, resume):
    """`codex queue` the envelope for `thread` with the binary `codex`, in `env` (the child's: no session variable
    of either vendor in it); with `resume`, ask codex's daemon to load the thread and return a Resume, else None."""
    argv = [codex, "queue", "--thread", thread, "--message", envelope]
    older = False  # a codex from before --resume refused it, and the letter went without
    try:
        status, err = processes.run_for_status([*argv[:2], "--resume", *argv[2:]] if resume else argv, env)
        if resume and status == USAGE_ERROR and NO_RESUME_FLAG in err:  # a usage error: nothing was stored
            status, err = processes.run_for_status(argv, env)
            older = True
    except OSError as error:
        if error.errno == errno.E2BIG:
            raise Refusal("the letter is too long for the system to pass to codex queue; shorten the letter") from None
        raise Refusal(f"codex queue could not start ({error.strerror}); set POSTBAG_CODEX to a working codex") from None
    if status is None:
        raise maybe_delivered("codex", f"codex queue gave no answer within {processes.TIMEOUT:g} s")
    if status < 0:
        raise maybe_delivered("codex", f"codex queue was killed by {processes.signal_name(-status)}")
    if status > 0:
        # codex queue stores the letter last, once the thread was found: a failure means
        # it took nothing, and what helps is a fresh door.
        raise not_answered("codex", f"codex queue exited {status}{_codex_said(err, thread)}")
    if not resume:
        return None
    return Resume.UNSUPPORTED if older else resumed(err)


def resumed(stderr):
    """What came of a resume, from codex queue's stderr: nothing of it when the daemon took the thread; a warning
    naming why, when it stored the letter but could not have the daemon load the thread; anything else is unknown."""
    text = _without_colours(stderr.decode(errors="replace"))
    if "could not resume thread" in text:
        if "start a local daemon" in text:
            return Resume.NO_DAEMON
        if "already has an active writer" in text:
            return Resume.LOADED_ELSEWHERE
        return Resume.NOT_WOKEN
    lines = [line for line in text.splitlines() if line.strip()]
    known = all(_is_quiet_log_line(line) or line.startswith(_SETTING_UP) for line in lines)
    return Resume.WOKEN if known else Resume.UNCLEAR


def _without_colours(text):
    """`text` less its colours: each ESC [ digits-and-semicolons m."""
    kept, at = [], 0
    while (start := text.find("\x1b[", at)) >= 0:
        end = start + 2
        while end < len(text) and ((text[end].isdigit() and text[end].isascii()) or text[end] == ";"):
            end += 1
        if end < len(text) and text[end] == "m":
            kept.append(text[at:start])
            at = end + 1
        else:
            kept.append(text[at : start + 1])
            at = start + 1
    return "".join(kept) + text[at:]


def _is_quiet_log_line(line):
    """Whether `line` is a line of codex's own log at a quiet level: a first word, spaces, the level and a space."""
    words = line.split(None, 1)
    if not line or line[0].isspace() or len(words) < 2:
        return False
    rest = words[1]  # from the first character after the spaces
    level = next((name for name in _QUIET_LEVELS if rest.startswith(name)), None)
    return level is not None and rest[len(level) : len(level) + 1].isspace()


def _codex_said(stderr, thread):
    """What a refusal says codex said, from its `stderr`: what it means, where known here, and its own last line,
    the id of `thread` written as words and every credential hidden (the verb hides every other door field)."""
    text = _without_colours(stderr.decode(errors="replace"))
    meaning = next((f": {meaning}" for words, meaning in CODEX_SAYS if words in text.lower()), "")
    lines = [line for line in text.splitlines() if line.strip() and not _is_quiet_log_line(line)]
    if not lines:
        return meaning
    last = without_credentials(lines[-1].strip().replace(thread, "<the thread's id>"))
    return meaning + f', saying "{quoted(last, SAID_MOST)}"'
