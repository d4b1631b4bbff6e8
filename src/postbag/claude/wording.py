"""Everything Claude Code's room says, each sentence a template with named parts, in one
place: what a release of Claude Code changes in postbag's words is changed here, and the
tests check a line by its template and the facts it is given, not word by word.

A part in braces is filled in where the sentence is said: `{how}`, how the session's
permission class is known; `{expiry}`, dialogExpiry's name; `{value}`, a setting's value;
and so on, each named for what it holds.
"""

# What Claude does with a letter from postbag (acceptance.py): the reason, in words that
# follow "since", by crossSessionInbound where it is set, else by the session's class.
SETTING_REFUSES = "its settings refuse letters from other sessions (crossSessionInbound refuse)"
SETTING_HOLDS = "its settings hold letters from other sessions (crossSessionInbound hold)"
SETTING_ACCEPTS = "its settings let letters from other sessions in (crossSessionInbound accept)"
CLASS_BYPASSES = (
    "it bypasses permission prompts ({how}), and a letter from postbag claims no permission mode, which such a "
    "session holds while crossSessionInbound is unset"
)
CLASS_PROMPTS = "it prompts for permissions ({how}), so letters get in while crossSessionInbound is unset"
CLASS_UNKNOWN = (
    "while crossSessionInbound is unset it holds letters if it bypasses permission prompts, and whether it does "
    "is not known: {how}"
)

# How the session's permission class is known, or why it is not (the `how` above).
TURN_MODE = "its latest turn ran in permission mode {mode}"
STARTED_MODE = "it was started in permission mode {mode}"
SETTINGS_MODE = "its settings' permissions.defaultMode is {mode}"
NO_MODE = "it was started with no permission mode, and its settings set none"
TURN_UNREAD = "the mode of its latest turn cannot be read: {why}"
NO_TURN_NO_FLAGS = "its transcript records no turn yet, and how its process was started cannot be read here"
CONFLICTING_FLAGS = "it was started with --dangerously-skip-permissions and another --permission-mode"
PLAN_OFFER_UNKNOWN = "{how}, which bypasses prompts where bypassing was on offer, and whether it was is not known"
PLAN_OFFERED = "{how}, bypassing on offer"
MODE_UNKNOWN = "{how}, which postbag does not know"

# How the person lets letters in, where Claude may not: by who set what keeps them out.
LETTING_IN = "crossSessionInbound to accept in claude's settings.json"
LETS_IN = "the person can let letters in by setting " + LETTING_IN
ADMINISTRATOR_DECIDES = "only an administrator can change the managed settings that say so"
PROJECT_DECIDES = "the person can let letters in by taking crossSessionInbound out of the project's .claude settings"

# What becomes of a held letter while it waits, by the app the session runs in.
DROPPED_BY_CLAUDE = "Claude drops it"
DROPPED_AND_TOLD = "Claude drops it and tells that session so"
NO_DIALOG = "its app shows no dialog for it"
NO_SCREEN = "the session has no screen to ask a person on"
WAITS_FOR_EVER_UNASKED = (
    "{where}, so it waits, undelivered, as long as the session lives, unless the person lets letters in"
)
EXPIRES_UNASKED = "{where}, so unless the person lets letters in, it expires after dialogExpiry ({expiry}): {dropped}"
VS_CODE_BUTTONS = "the person can deliver it with the Deliver button VS Code shows beside it, or drop it with Deny"
BUTTONS_FOR_EVER = "{buttons}; it waits until they do (dialogExpiry {expiry})"
BUTTONS_EXPIRE = "{buttons}; unanswered within dialogExpiry ({expiry}), {dropped}"
ASKED_FOR_EVER = "a held letter waits until a person answers it in that session (dialogExpiry {expiry})"
ASKED_EXPIRES = "unless a person approves it in that session within dialogExpiry ({expiry}), {dropped}"
