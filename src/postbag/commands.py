"""The command line as a table: each verb a row, which cli.py runs through handlers.py's cmd_VERB. The rows name
no vendor: what they say of one, they take from its package (vendors.py).
"""

from postbag.exchange import DEFAULT_LIMIT
from postbag.vendors import AGENTS, CLIENTS, PEERS, SWITCHES, VENDORS


class Arg:
    """One argument of a verb, as argparse's add_argument takes it."""

    __slots__ = ("names", "options")

    def __init__(self, *names, **options):
        self.names, self.options = names, options


class Verb:
    """One row of the table: `help` is its line in postbag --help, `description` postbag VERB --help; `arguments`,
    its Args."""

    __slots__ = ("arguments", "description", "help", "name", "usage")

    def __init__(self, name, *, usage, help, description, arguments=()):
        self.name, self.usage, self.help = name, usage, help
        self.description, self.arguments = description, arguments

    def parsed_plainly(self, tokens):
        """What argparse would make of `tokens`, where they are plain words and this verb's own flags alone, made
        without it (argparse and the re it imports cost more at every start than the rest of an agent's verb): the
        Parsed arguments. None where anything else stands among them, which argparse parses and answers."""
        parsed, flags, places = Parsed(), {}, []
        for argument in self.arguments:
            dest = _dest(argument)
            flag = argument.names[0].startswith("-")
            if flag and argument.options.get("action") == "store_true":
                flags.update(dict.fromkeys(argument.names, dest))
            elif not flag and argument.options.get("nargs") != "?":
                return None  # a positional argparse counts otherwise: none of the table's yet
            setattr(parsed, dest, False if flag and dest in flags.values() else None)
            places += [] if flag else [dest]
        words = []
        for token in tokens:
            if token.startswith("-") and token != "-":  # "-" alone is a word: stdin
                if token not in flags:
                    return None
                setattr(parsed, flags[token], True)
            else:
                words.append(token)
        if len(words) > len(places):
            return None
        for dest, word in zip(places, words, strict=False):  # the rest stay None
            setattr(parsed, dest, word)
        return parsed


class Parsed:
    """A verb's arguments, parsed: an attribute for each, as argparse's Namespace has them."""


def _dest(argument):
    """Where argparse keeps `argument`: its dest, else its first long name, else its name."""
    if "dest" in argument.options:
        return argument.options["dest"]
    longs = [name for name in argument.names if name.startswith("--")]
    return (longs or argument.names)[0].lstrip("-").replace("-", "_")


FOLLOW_HELP = "then print each new record as it is appended, until interrupted"
JSON = Arg("--json", action="store_true", help="JSON Lines, for scripts and jq")
SET_ASIDE = Arg(
    "--afresh",
    action="store_true",
    help="set a damaged ledger aside, whole, and open the exchange on a new one (both agents join it again)",
)
LEDGER = Arg(
    "--ledger",
    metavar="LEDGER",
    help="another ledger: a path, or the name of one in ~/.postbag (postbag doctor lists them)",
)
_TO, _FROM = reversed(PEERS)  # naming the recipient names the sender
SENDERS = f"send {_TO} runs inside {VENDORS[_FROM].CLIENT}, send {_FROM} inside {VENDORS[_TO].CLIENT}"
DELIVERED = ", or ".join(each.DELIVERED for each in VENDORS.values())
READ_FOR_RECEIPTS = ", ".join(each.FILES for each in VENDORS.values())
VERBS = (
    Verb(
        "join",
        usage="AGENT [-q]",
        help="record this session's door (inside the agent's own session)",
        description="Record how to reach this agent's session. Run it inside that session; "
        "run it again after the session restarts.",
        arguments=(
            Arg("peer", nargs="?", metavar="AGENT", help=f"the agent whose session this is: {AGENTS}"),
            Arg(
                "-q",
                "--quiet",
                action="store_true",
                help="say nothing on success, as a session-start hook wants (a refusal still goes to stderr)",
            ),
        ),
    ),
    Verb(
        "open",
        usage="[N] [--limit N] [--afresh] " + " ".join(f"[{switch.flag}]" for switch in SWITCHES),
        help="grant an exchange of N letters (the human's verb)",
        description="Open an exchange: the next N letters, in either direction. Run it from a terminal "
        "of your own in the agents' repository, whose ledger it opens; it refuses inside either agent's "
        "session. It says which agents have yet to join, and "
        "of each that has whether it can take a letter now.",
        arguments=(
            Arg("count", nargs="?", metavar="N", help=f"letters granted (default {DEFAULT_LIMIT})"),
            Arg("--limit", metavar="N", help="the same, as an option: open 6 is open --limit 6"),
            SET_ASIDE,
            *(Arg(s.flag, action="store_true", dest=s.dest, help=s.help) for s in SWITCHES),
        ),
    ),
    Verb(
        "close",
        usage="",
        help="end the open exchange now (the human's verb)",
        description="End the open exchange now: the next send is refused until you open another. "
        "Run it from a terminal of your own; it refuses inside either agent's session. A ledger "
        "that holds a close record can no longer be read by postbag 1.0, which knows no such record.",
    ),
    Verb(
        "send",
        usage="AGENT TEXT",
        help="hand a letter to the other agent's door, then record it",
        description="Knock on the recipient's door, then record the letter. Addressing one agent names "
        f"the other as the sender: {SENDERS}. A letter counts as delivered when the door takes it: {DELIVERED}; "
        "postbag receipts says whether the agent then took it.",
        arguments=(
            Arg("peer", nargs="?", metavar="AGENT", help=f"the recipient: {AGENTS}"),
            Arg("text", nargs="?", metavar="TEXT", help="the letter, or - to read it from stdin"),
        ),
    ),
    Verb(
        "read",
        usage="[N] [--json] [-f] [--ledger LEDGER]",
        help="print the ledger, or its last N records",
        description="Print the ledger: every record, or the last N. Door fields are never shown. "
        "On a terminal, a last line on stderr tells where the bag stands.",
        arguments=(
            Arg("count", nargs="?", metavar="N", help="only the last N records"),
            JSON,
            Arg("-f", "--follow", action="store_true", help=FOLLOW_HELP),
            LEDGER,
        ),
    ),
    Verb(
        "receipts",
        usage="[N] [--json] [--ledger LEDGER]",
        help="whether the other agent's session took each letter, from its own records",
        description="Say where letters stand, from the records the recipient's client keeps of what its session "
        f"received ({READ_FOR_RECEIPTS}): taken, and when; waiting; not taken, with the reason the records show; "
        "or unknown. "
        "Inside a session: your own last letter, or last N. Elsewhere: the letters of the latest exchange, or the "
        "last N. postbag reads those records, never writes them.",
        arguments=(Arg("count", nargs="?", metavar="N", help="the last N letters"), JSON, LEDGER),
    ),
    Verb(
        "setup",
        usage="[--dry-run] [--remove]",
        help=f"register this postbag with {CLIENTS} (the human's verb, once)",
        description="Register this postbag, by its absolute path, as the MCP server postbag of each client installed "
        "here, through the client's own command, and let the agents call its tools without asking; POSTBAG_LEDGER "
        "goes with it where this terminal sets it. It changes no setting that decides what an agent lets in: where "
        "one would stop letters, it says which. Run it from a terminal of your own, then start the clients again.",
        arguments=(
            Arg("--dry-run", action="store_true", help="say what would change, and change nothing"),
            Arg("--remove", action="store_true", help="take out what setup puts in"),
        ),
    ),
    Verb(
        "doctor",
        usage="[--json]",
        help="say what a first exchange still needs, and the one fix for each",
        description="Check each thing a first exchange needs: Python, this postbag as the clients start it, each "
        "client, its version and its registration of postbag, what each lets in, the ledger, and each door that "
        "has joined. Each line says ok, fix (with the fix) or note. It changes nothing; it exits 1 where something "
        "needs a fix.",
        arguments=(JSON,),
    ),
    Verb(
        "mcp",
        usage="",
        help="offer join, send, read and status as MCP tools on stdin and stdout (for the agents' clients)",
        description="Serve postbag as a stdio MCP server: an agent's client starts it for a session and calls "
        "its tools, join, send, read and status, in place of the commands, for agents whose shell cannot reach "
        "the other agent's door or the ledger. postbag setup registers it under the name postbag, by which "
        "letters name its tools. It ends when its input closes.",
    ),
)
BY_NAME = {verb.name: verb for verb in VERBS}
