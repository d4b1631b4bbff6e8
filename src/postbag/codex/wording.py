"""Everything Codex's room says, each sentence a template with named parts, in one place:
what a release of Codex changes in postbag's words is changed here, and the tests check a
line by its template and the facts it is given, not word by word. (The words the light
part gives help and refusals, which load at every start, stand in the package's
__init__, a table of its own.)

A part in braces is filled in where the sentence is said, each named for what it holds.
"""

# join, and the MCP server's caller (room.py).
JOIN_INSIDE = "join codex from inside a codex session"
NOT_A_THREAD_ID = "{variable} is not a thread id"
NOT_TEXT = "{variable} is not valid text"
CALL_NOT_A_THREAD = "the call's threadId is not a thread id"

# A receipt (room.py, files.py): what the records say of a letter.
NO_THREAD = "join names no thread id, only a session id"
NO_THREAD_TO_READ = "codex's " + NO_THREAD
NO_SESSIONS_HERE = "codex keeps no sessions here to read (CODEX_HOME)"
NEITHER_HOLDS_IT = "neither codex's queue nor the thread's rollout holds it"
GONE = "codex no longer has the thread it went to (its rollout is gone), so nothing will take it"
IN_QUEUE = "in codex's queue for the thread"
IN_QUEUE_LOADED = IN_QUEUE + ", which a running codex has loaded: {turn}"
IN_QUEUE_UNLOADED = IN_QUEUE + ", which no running codex has loaded: {why}"
IN_QUEUE_UNTOLD = IN_QUEUE + "; whether a running codex has it loaded cannot be told here"
NO_SQLITE = "this Python has no sqlite3 to read codex's queue with"
QUEUE_NOT_A_FILE = "codex's queue is not a regular file"
QUEUE_UNREAD = "cannot read codex's queue ({why})"
QUEUE_UNKNOWN = "codex's queue is not a database postbag knows ({kind})"
QUEUE_LOCKED = "codex's queue stayed locked"

# What a loaded thread is doing, and so when it takes a letter (room.py).
IDLE = "it takes the letter when it is idle"
WORKING = "its turn is working, and it takes the letter when the turn ends"
RUNNING_A_TOOL = "its turn is running a tool call, and it takes the letter when the turn ends"
AT_A_CALL = (
    "its turn has stopped at a tool call that has no result yet: a command still running, or an approval nobody "
    "has given in that codex; it takes the letter when the turn ends"
)

# Whether a thread can take a letter now (room.py), as open and doctor say it.
REACH_UNTOLD = "whether codex can take a letter now cannot be told: {why}"
ITS_NO_THREAD = "its " + NO_THREAD
LOADED_UNTOLD = "whether a running codex has its thread loaded is unknown here"
THREAD_GONE = (
    "codex cannot take a letter: codex no longer has the thread it joined with (its rollout is gone); it must "
    "join again from a live session"
)
CAN_TAKE_LOADED = "codex can take a letter now: a running codex has its thread loaded, and {turn}"
CAN_TAKE_UNLOADED = "codex can take a letter now: no running codex has its thread loaded, and {words}"
WILL_WAIT = "codex's letters will wait: no running codex has its thread loaded, and {words}"

# What a send adds after its receipt (room.py's Post).
BUT_GONE = "but " + GONE
WOKEN = "codex's daemon woke the thread to take it"
UNCLEAR = "codex queue said what postbag does not know"
WAKE_UNCLEAR = "but whether codex's daemon woke the thread is not known: " + UNCLEAR
WAITS_UNLOADED = "but it waits in codex's queue: no running codex has the thread loaded, and {why}"
WAITS_UNTOLD = "but whether a running codex has the thread loaded cannot be told here; if none has, it waits: {why}"

# Waking a thread nobody has loaded (wake.py): why it is not woken, or what will.
DAEMON_START = "codex app-server daemon start"
RESUMED_WHERE = "in the app or editor, or with codex resume"
TAKEN_ON_RESUME = "it is taken when the thread is resumed (" + RESUMED_WHERE + ")"
DAEMON_DOWN = (
    "codex's daemon, which wakes it, is not running: once the human runs " + DAEMON_START + ", the next letter "
    "wakes the thread, with any letters waiting for it"
)
DAEMON_COULD_NOT = "codex's daemon could not wake it: " + TAKEN_ON_RESUME
WITHOUT_RESUME = (
    "this codex cannot wake a thread (its codex queue has no --resume, which came in Codex {since}): " + TAKEN_ON_RESUME
)
OPENED_WITHOUT_WAKING = "this exchange wakes no thread (it was opened with --no-wake): " + TAKEN_ON_RESUME
POLICY_UNSTATED = (
    "postbag does not wake it, since its rollout does not say whether a woken turn could stop for an approval: "
    + TAKEN_ON_RESUME
)
ASKS_FOR_APPROVALS = (
    "postbag does not wake it: the thread asks for approvals (approval_policy {policy}), and nobody could give one "
    "to a woken turn; it is taken when the thread is resumed where a person can approve (" + RESUMED_WHERE + ")"
)
GRANULAR = "granular"
OLD_WRITER = (
    "the codex that wrote its rollout, {wrote}, cannot wake a thread (codex queue --resume came in Codex {since}): "
    + TAKEN_ON_RESUME
)
NEXT_LETTER_WAKES = "the next letter wakes it through codex's daemon, with any letters waiting for it"

# The knock (queue.py): finding codex, and how codex queue failed.
NO_CODEX_AT = "no codex at {path}; set POSTBAG_CODEX"
NO_CODEX_ON_PATH = "no codex on PATH; set POSTBAG_CODEX"
NO_ANSWER = "codex queue gave no answer within {seconds:g} s"
KILLED = "codex queue was killed by {signal}"
EXITED = "codex queue exited {status}{said}"
MEANS = ": {meaning}"
SAYING = ', saying "{last}"'
NO_SUCH_THREAD = "codex knows no such thread"
TOO_LONG_TO_PASS = "the letter is too long for the system to pass to codex queue; shorten the letter"
COULD_NOT_START = "codex queue could not start ({why}); set POSTBAG_CODEX to a working codex"
THREAD_WORDS = "<the thread's id>"  # what codex's own words show in place of the thread's id

# What setup and doctor say of Codex (client.py, config.py).
GET_FAILED_SHOWN = "codex mcp get postbag --json"
GET_UNKNOWN = "codex mcp get postbag --json said what postbag does not know"
UNKNOWN_SHAPE = "Codex's MCP server postbag is of a shape postbag does not know"
DISABLED = "Codex's MCP server postbag is disabled"
REGISTERS = "registers postbag's MCP server"
TAKES_OUT = "takes out postbag's MCP server"
WAKING = "waking a thread nobody has loaded"
DAEMON_RUNS = "Codex's daemon runs, and takes a letter for such a thread at once"
DAEMON_STOPPED = "Codex's daemon is not running, so {which} keeps its letters until it runs: start it with " + (
    DAEMON_START
)
SUCH_A_THREAD = "such a thread"
A_THREAD_UNLOADED = "a thread nobody has loaded"
DAEMON_UNTOLD = "whether Codex's daemon runs cannot be told from its record"
NO_DAEMON_STARTED = "{why} (setup starts no daemon)"
COPY_STAYS = (
    "{copy}, a copy of Codex's config.toml, stays: setup did not make it, or the file has changed since it did, so "
    "remove does not give it back; compare the two, take from the copy what you want back, then delete it"
)
KEEPS_THE_FILE = (
    "Codex's own command writes {path} whole again, so setup keeps the file as it found it, in {copy}{older}, for "
    "setup --remove to give back"
)
IN_PLACE_OF_OLDER = " (in place of an older copy, which no longer describes it)"
GIVES_BACK = "{does}: gives back {path} as setup found it, from {copy}"
THE_ROLLOUT = "the thread's rollout"  # how a receipt names it: its file name holds the thread's id
