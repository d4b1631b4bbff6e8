"""Everything postbag says outside the rooms, each sentence a template with named parts, in
one place (each room has its own: claude/wording.py, codex/wording.py). Where a sentence
is 1.0's, its words are the contract agents and scripts match on, and tests pin them word
for word; the rest are checked by their template and the facts they are given.

The command line's help and the MCP server's tool descriptions are tables of their own
(commands.py, mcp.py), and what the launcher says before any of postbag can run stands
in launch.py. A part in braces is filled in where the sentence is said, each named for
what it holds.
"""

# An exchange that takes no more letters, by what send says (1.0's words), what close
# says, and what read's status line says of it.
NO_EXCHANGE = "no exchange is open"
HUMAN_CLOSED = "the human closed the exchange"
SPENT = "the exchange's letters are spent"
NOTHING_TO_CLOSE = "no exchange is open; nothing was closed"
ALREADY_CLOSED = "the exchange is already closed; nothing was recorded"
ALREADY_SPENT = "the exchange's letters are already spent; nothing was recorded"
CLOSED_BY_THE_HUMAN = "closed by the human"
SPENT_STANDING = "spent"
NO_EXCHANGE_IN_REPOSITORY = (
    "no exchange is open in the ledger of the repository {top} (the human runs postbag open there)"
)

# Which ledger a verb wrote, or looked in (verbs.py).
CREATED = "created the ledger {path}"
FOR_THE_REPOSITORY = " for the repository {top}"
AND_THE_DIRECTORY = ", and the directory {directory} for it"
WROTE_TO = "wrote to {ledger}"
LOOKED_IN = "looked in {ledger}"
WHICH = " ({ledger})"

# join, open, close and send (verbs.py).
JOINED = "{peer} joined"
JOINED_ALREADY = "{peer} was joined already: letters to {peer} reach this session"
REPLACES_SESSION = "this replaces the {peer} session that joined at {at}{whence}: letters to {peer} now come here"
FROM = " from {where}"
JOINED_ELSEWHERE = "agents joined another ledger from {directory} ({joined}): to open an exchange there, {opens}"
PEER_AT = "{peer} at {at}"
OPENS_THERE = "cd {directory} && {program} open {limit}"
SET_ASIDE = "set the damaged ledger aside, whole and private, as {path}"
OPENED = "exchange open: {letters}"
REPLACES_EXCHANGE = "this replaces the open exchange, which still had {left} of its {letters}"
REACH_UNREAD = "whether {peer} can take a letter now cannot be told ({why})"
NOT_JOINED = "{peer} has not joined"
NEITHER_JOINED = "neither agent has joined yet: no letter can reach them until each joins from its own session"
ONE_NOT_JOINED = "{peer} has not joined yet: no letter can reach it until it joins from its own session"
CLOSED = "exchange closed: {sent} of {letters} sent"
NOT_RECORDED = (
    "letter {number} was submitted to {peer}'s door but not recorded ({why}); do not resend before checking "
    "{peer}'s session"
)
REJOINED = "{peer} joined; "
DELIVERED = "letter {number} delivered to {peer}, {left} left"
CAVEAT = "; {caveat}"
NO_JOIN_BEFORE = "no join of {peer} comes before it in the ledger"
CANNOT_WRITE_LEDGER = "cannot write the ledger ({why})"

# read's last line (verbs.py): where the bag stands.
UNFINISHED = (
    "{line}: its last record is unfinished, most likely from an interrupted send, and the next send, join or open "
    "removes it"
)
NO_EXCHANGE_OPENED = "no exchange opened"
EXCHANGE_OF = "exchange of {letters}, {sent} sent, "
LEFT = "{left} left"
SWITCHED = ", {standing}"
STATUS = "{ledger}: {state}; {peers}"
JOINED_AT = "{peer} joined {at}"
LEDGER_OF_REPOSITORY = "ledger {path}, of the repository {top}"
LEDGER_AT = "ledger {path}"
NAMED = ", which POSTBAG_LEDGER names"

# Where the ledger is, and what is wrong with it (ledger.py, ledger_file.py, records.py).
NAMED_LEDGER = "the ledger {path}, which POSTBAG_LEDGER names"
REPOSITORY_LEDGER = "the ledger of the repository {top}"
DIRECTORY_GONE = "the directory this runs in is gone, so the repository whose ledger it uses cannot be told"
RUN_FROM_THE_FOLDER = "run it again from the repository's folder"
CONTROL_CHARACTER = "POSTBAG_LEDGER holds a control character"
RELATIVE = (
    "POSTBAG_LEDGER is a relative path ({raw}); give the ledger's absolute path, the same in both sessions and in "
    "your terminal"
)
TRUNCATED = "ledger is truncated after line {count} ({path})"
NOT_DAMAGED = "the ledger {path} is not damaged, so nothing was set aside: open it without --afresh"
CANNOT_SET_ASIDE = "cannot set the ledger aside ({why}: {path})"
NO_LEDGER_YET = "there is no ledger at {path}{whose} yet"
THE_REPOSITORYS = ", the repository {top}'s"
CANNOT_WRITE_AT = "cannot write the ledger ({why}: {path})"
UNFINISHED_REMOVED = (
    "an interrupted send left an unfinished record after line {line}; it was removed, and its letter may have "
    "been delivered"
)
CANNOT_OPEN = "cannot open the ledger ({why})"
NO_SUCH_DIRECTORY = "no such directory: {directory}"
NOT_A_REGULAR_FILE = "the ledger is not a regular file ({path})"
SANDBOX_KEEPS = "; {sandbox} keeps it from being written. {allow}"
ANOTHER_USERS = "the ledger belongs to another user, {user} ({path})"
UID = "uid {uid}"
A_SYMBOLIC_LINK = "it is a symbolic link: {path}"
WHY_AT = "{why}: {path}"
CANNOT_LOCK = "cannot lock the ledger ({why}: {path})"
PART_OF_THE_RECORD = "the disk took only part of the record"
NOT_A_RECORD = "ledger line {number} is not a record ({path})"
AFRESH = "run postbag open --afresh to set it aside, whole, and start a new one, which both agents then join"

# Who may run which verb (guards.py, human_verbs.py). "…is the human's verb" is 1.0's.
REGISTER = (
    "run postbag setup from your terminal, which registers postbag mcp with each client, and call its tools from a "
    "session"
)
BY_A_PERSON = " (this terminal is in no agent's session: ask {peer} to do it, or run it in {peer}'s session)"
AGENTS_VERB = "{verb} is {peer}'s verb; run it inside a {peer} session"
IN_THE_OTHER = " (this is a {other} session: to write to {peer}, run postbag send {peer})"
SEES_BOTH = "this MCP server sees both {both}; " + REGISTER
SEES_NEITHER = "this MCP server runs in neither {neither}; " + REGISTER
HUMANS_VERB = "{verb} is the human's verb (this shell has {names}, which {marks} an agent's session)"

# The repository a directory lies in (repository.py).
CANNOT_FOLLOW = "the repository cannot be told from {path} ({why})"
MEND_THE_REPOSITORY = "mend it (git worktree repair, for a worktree), or name a ledger with POSTBAG_LEDGER"
NEITHER_FOLDER_NOR_FILE = "it is neither a folder nor a file"
NO_GITDIR = "it is a file, and does not say gitdir: PATH"
NOT_A_REPOSITORY = "it names {named}, which is not a repository's folder"
NOT_REGULAR = "it is not a regular file"
LONGER_THAN_A_PATH = "it is longer than a path"
NOT_TEXT = "it is not text"

# setup (setup.py).
EACH_OWN = "each session's own ledger (its repository's, or the default)"
THE_LEDGER = "the ledger {path}"
NOT_INSTALLED = "{client} is not installed here ({why})"
INSTALL_THEM = "{absent}: install them, then run postbag setup again"
CHANGED_NOTHING = "setup changed nothing: {why}"
LEFT_ALONE = "{line}: setup leaves it alone"
NOTHING_TO_TAKE_OUT = "setup finds nothing to take out"
NOTHING_TO_CHANGE = "setup finds nothing to change"
STEP = "{peer:<7}{does}"
THIS_CHANGE = "this change"
THESE_CHANGES = "these {count} changes"
WOULD_MAKE = "setup would make {many} (--dry-run: nothing was changed)"
EACH_READS = "each reads its"
IT_READS = "it reads its"
RESTART = "start {clients} again: {reads} MCP servers as it starts"
MADE = "setup made {many}; {restart}"
CLIENTS_VERSION = "{client}: {finding}"
UNDONE_AFTER = "{failed}; {undone}"
INTERRUPTED = "setup was interrupted; {undone}"
UNDOING_FAILED = "the {count} before it were made, and undoing them failed ({failed})"
NOTHING_CHANGED = "nothing was changed"
ANOTHER_LEFT = "{client}'s MCP server postbag starts {starts}, not this postbag: left"
ANOTHER_BLOCKS = (
    "{client}'s MCP server postbag starts {starts}, not this postbag: take it out with {command}, or run setup from "
    "the postbag it starts"
)
FINDS_EACH_OWN = "lets postbag's MCP server find " + EACH_OWN + ", where it named {ledger}"
POINTS_AT = "points postbag's MCP server at the ledger this terminal names, {ledger}"
MOVES = "{does}: {out}, then {back_in}"
