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

# join (room.py).
NO_INBOX = (
    "this Claude Code session has no inbox for letters: its cross-session messaging is off (a --restricted "
    "session, or messaging switched off in this Claude Code), so no letter can reach it"
)
JOIN_INSIDE = "join claude from inside a claude session"
NOT_TEXT = "{variable} is not valid text"

# A receipt (room.py, files.py): what the records say of a letter.
NO_SESSION_TO_READ = "claude's join names no session to look in (a join from before postbag 1.2)"
NO_SIGN = "claude's transcript holds no sign of the letter"
NO_SIGN_YET_RESTARTED = (
    NO_SIGN + " yet: the session that joined has ended, and another claude session, which has not joined, "
    "listens on its socket"
)
ENDED_WITHOUT_IT = "claude's session has ended, and its transcript holds no sign of the letter"
DROPPED_AT_INBOX = "claude dropped it at its inbox: it never reached the session"
REFUSED_IT = "claude refused it"
REFUSED_SINCE = "claude refused it, since {why}"
HOLDS_IT = "claude holds it for the person's review, since {why}; {waits}"
HOLDS_IT_UNSAID = "claude holds it for the person's review, for a reason its records do not show; {waits}"
HELD_AND_DROPPED = (
    "claude held it for the person's review, since {why}, and {unanswered} within dialogExpiry ({expiry}): "
    "Claude has dropped it"
)
HELD_UNSAID_AND_DROPPED = (
    "claude held it for the person's review, for a reason its records do not show, and {unanswered} within "
    "dialogExpiry ({expiry}): Claude has dropped it"
)
NOBODY_APPROVED = "nobody approved it"
NOBODY_ASKED = "nobody could be asked to approve it there"
SETTINGS_CHANGED = (
    NO_SIGN + ", and claude's settings now say crossSessionInbound {value}, changed since it was sent: what they "
    "said then is not recorded"
)
NO_MOMENT = (
    NO_SIGN + ", and the ledger's time for it, {at}, names no moment: whether claude's settings changed since it "
    "was sent cannot be told"
)
LET_IN_UNTOLD = NO_SIGN + ", and whether the session let it in cannot be told: {why}"
NOTHING_SAID = NO_SIGN + " (yet), and its records say nothing of why"
# Who took a letter found in another transcript than the joined session's, and what one
# that cannot be read leaves untold: another session restarted on the socket, which has
# not joined; or the session that joined, under a new id (/clear begins one).
TAKEN_BY_ANOTHER = (
    "by another claude session, which listens on the socket it went to: the session that joined has ended, and "
    "the new one has not joined"
)
ANOTHER_UNTOLD = "claude's session has ended; whether another took the letter is unknown: {why}"
TAKEN_AFTER_CLEAR = (
    "by the session that joined, in the transcript it began since under another session id, as /clear and /branch "
    "begin one"
)
CLEAR_UNTOLD = (
    "the session that joined has begun another transcript since, as /clear and /branch do; whether it took the letter "
    "there "
    "is unknown: {why}"
)

# Whether a session can take a letter now (room.py), as open and doctor say it.
REACH_UNTOLD = "whether claude can take a letter now cannot be told: {why}"
NO_SESSION_NAMED = "its join names no session (a join from before postbag 1.2)"
NO_SESSION_FILES = "its client keeps no session files here"
UNTOLD_WITH_REMEDY = "{why}; {remedy}"
ENDED = "claude cannot take a letter now: its session has ended; start Claude again, and let it join"
RESTARTED_ON_ITS_SOCKET = (
    "{reach} (the session that joined has ended, and another claude session, which has not joined, listens on its "
    "socket: let it join, so that the ledger names it)"
)
WILL_NOT_TAKE = "claude will not take a letter now: it refuses each, since {why}; {remedy}"
WILL_HOLD = (
    "claude will not act on a letter at once: it holds each for the person's review, since {why}; {waits}; {remedy}"
)
CAN_TAKE = "claude can take a letter now: its session runs, and {why}"

# What a send adds after its receipt (room.py's Post): Claude's own word first.
BUT_HOLDS = "but " + HOLDS_IT
BUT_HOLDS_UNSAID = "but claude holds it for the person's review, for a reason its records do not show"
BUT_REFUSED = "but " + REFUSED_IT
BUT_REFUSED_SINCE = "but " + REFUSED_SINCE
BUT_DROPPED = "but claude dropped it at its inbox ({why}): it will not reach the session"
DROPPED_UNSAID = "for a reason it did not give"
BUT_REFUSES = "but claude refuses it, since {why}"

# A knock on the inbox socket (inbox.py), and why one failed.
SANDBOX_BLOCKS = "{sandbox} blocks the connection to claude's socket ({why}); nothing was handed over. {allow}"
NO_ANSWER_WITHIN = "no answer within {seconds:g} s"
SOCKET_GONE = "its socket is gone"
NOT_A_SOCKET = "not a socket"
REFUSED_CONNECTION = "connection refused"
NO_SUCH_INBOX = "Claude Code named an inbox socket that is not there ({why}); no letter could reach this session"
DOES_NOT_EXIST = "it does not exist"
IS_NOT_A_SOCKET = "it is not a socket"

# What setup and doctor say of Claude Code (client.py).
NOT_ON_PATH = "no claude on PATH"
CLAUDE_JSON_UNREAD = "Claude Code's .claude.json cannot be read ({why})"
NOT_JSON_AT = "it is not JSON at line {line} column {column}"
NOT_JSON = "it is not JSON"
UNKNOWN_SHAPE = "Claude Code's MCP server postbag is of a shape postbag does not know"
REGISTERS = "registers postbag's MCP server"
TAKES_OUT = "takes out postbag's MCP server"
THE_RULE = "the permission rule"
MEND_THEN = "{refusal}: mend it, then {fix}"
DENY_STANDS = "{rule}: take it out there, if the agents are to write to each other"
WOULD_ASK = "Claude Code would ask before each of postbag's tools: {fix}"
RUNS_UNASKED = "Claude Code runs postbag's tools without asking ({rule} is allowed)"
LEFT_TO_YOU = "{what} (setup leaves that to you)"
ABOUT = "Claude Code and {what}: {finding}"
LETTERS = "letters from another session"
LET_IN = "set " + LETTING_IN
LETS_THEM_IN = "Claude Code lets them in (crossSessionInbound accept)"
KEEPS_THEM_OUT = "Claude Code {does} (crossSessionInbound {value}): " + LET_IN
HOLDS_THEM = "holds them for your review"
REFUSES_THEM = "refuses them"
SESSIONS_BYPASS = (
    "sessions start bypassing permission prompts (permissions.defaultMode), and such a session holds postbag's "
    "letters for your review while crossSessionInbound is unset: " + LET_IN
)
PROMPTING_TAKES = (
    "a session that prompts for permissions takes them; one started with --dangerously-skip-permissions holds "
    "each for your review, since postbag claims no permission mode: to let them in, " + LET_IN
)

# The person's settings.json, as setup edits it (permission.py).
SETTINGS_NOT_JSON = "claude's settings.json is not JSON ({why})"
SETTINGS_NOT_AN_OBJECT = "claude's settings.json is not an object of settings"
PERMISSIONS_NOT_AN_OBJECT = "permissions in claude's settings.json is not an object"
RULES_NOT_A_LIST = "permissions.{kind} in claude's settings.json is not a list"
SETTINGS_UNREAD = "claude's settings.json cannot be read ({why})"
ALL_TOOLS = "postbag's tools"
ONE_TOOL = "postbag's {tool} tool"
RULE_STANDS = "{rule} stands in permissions.{kind} of {path}"
DENIED = "Claude Code will not run {what}: {where}, and a deny wins over every allow"
ASKED_FIRST = "Claude Code asks before each call of {what}: {where}, and an ask wins over an allow"
TOO_LONG = (
    "claude's settings.json would be longer than postbag reads back ({most:,} bytes) with {rule} in it: add {rule} "
    "to permissions.allow yourself"
)
WRITES = "writes {path}, with {rule} in permissions.allow"
ADDS = "adds {rule} to permissions.allow in {path}, kept as it was in {kept}{older}"
IN_PLACE_OF_OLDER = " (in place of an older copy, which no longer described it)"
RUNS_TOOLS = "lets postbag's tools run without asking: {does}"
DANGLING_LINK = (
    "claude's settings.json, {path}, is a link to {target}, which is not there: create {target} (an empty object, "
    "{{}} is enough), or remove the link, then run postbag setup again"
)
READ_ONLY = (
    "claude's settings.json, {path}, is read-only (mode {mode:o}): make it writable (chmod u+w {path}), or add "
    "{rule} to permissions.allow yourself"
)
HARD_LINKED = (
    "claude's settings.json, {path}, has {names} names (hard links), which a rewrite would split: add {rule} to "
    "permissions.allow yourself"
)
DROPS_COPY = "removes {copy}, which setup kept"
DROPS_STALE_COPY = "removes {copy}, setup's copy of {path} from before it, which no longer describes it"
REMOVES_MADE = "removes {path}, which setup made"
GIVES_BACK = "gives back {path} as it was before setup, from {copy}"
TAKES_RULE_OUT = "takes out {rule} from permissions.allow in {path}, and removes {copy}, which no longer describes it"

# Why Claude dropped a letter at its inbox, by its frame's "drop_reason" (inbox.py).
DROP_REASONS = {
    "rate-limited": "its limit of letters from one sender at a time",
    "duplicate": "the same text from the same sender within 30 s",
    "queue-full": "its queue of waiting letters was full",
    "hop-loop": "a relay loop",
    "hop-runaway": "a relay chain too long",
    "unverified": "a sender it could not verify",
}
# The files a receipt names (files.py), and dialogExpiry where the settings name none.
THE_TRANSCRIPT = "claude's transcript"
ANOTHER_TRANSCRIPT = "another claude transcript"
DEFAULT_EXPIRY = "{expiry}, the default"
