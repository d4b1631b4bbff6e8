"""The command line: argparse and the verbs' words on the terminal. The one place that
reads the process it runs in: its environment, arguments, working directory, clock and
terminal, passed down from here as `here` (here.py)."""

import argparse
import os
import sys

from postbag import __version__, guards, listing, verbs
from postbag.envelope import program_of
from postbag.escape import one_line
from postbag.guards import require_inside
from postbag.here import Here
from postbag.human import PERSONS_VERBS, in_a_persons_terminal, require_human_first
from postbag.ledger import locate, not_there
from postbag.peers import switches
from postbag.refusal import Refusal, say, silence, stop
from postbag.sessions import PEERS, other, whose

DEFAULT_LIMIT = 12  # letters an exchange grants when the human names no number
# Letters an exchange may grant at most: the largest whole number every JSON reader of the
# ledger keeps exact (jq's and JavaScript's numbers are doubles). Past it is no budget.
LIMIT_MOST = 2**53 - 1
SHOWN_MOST = 20  # characters of a number the command line echoes back in a usage error
FOLLOW_INTERVAL = 0.25  # seconds between looks at the file: prompt for a person, idle for the machine
AGENTS = " and ".join(PEERS)


def main(argv=None, env=None, program=None, here=None):
    """Parse the command line and run its verb in `here` (default: this process's
    environment, working directory and clock; `env`, where given, for the environment),
    as `program` (the words that start this postbag, for a letter's reply command;
    default: as this process was started); return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    to_the_person = False  # a refusal is the agents' words until a person's verb is known to run in their terminal
    try:
        here = here or Here(os.environ if env is None else env, os.getcwd())
        require_human_first(argv, here.env)  # as the program's entry point does, before argparse
        args = _parse(argv, _columns(here.env))
        to_the_person = args.name in PERSONS_VERBS and in_a_persons_terminal(here.env)
        args.program = this_program(here) if program is None else program
        args.argv_program = this_program(here, quoted=False) if program is None else program
        args.verb(args, here)
    except Refusal as refusal:
        return stop(refusal, to_the_person=to_the_person)
    except BrokenPipeError:
        silence(sys.stdout)  # the reader went away, as in `postbag read | head`
        return 141
    except OSError as error:  # what no verb foresaw still fails closed, without a traceback
        return stop(Refusal(error.strerror or "the system refused an operation"), to_the_person=to_the_person)
    except KeyboardInterrupt:
        return 130
    return 0


def join(args, here):
    peer = _agent(args, "name the agent whose session this is: postbag join claude, or postbag join codex")
    joined = verbs.join(here, peer, guards.door_of_this_session(peer, here))
    if not args.quiet:
        _show(joined)


def open_exchange(args, here):
    if args.count is not None and args.limit is not None:
        args.usage_error("give the number of letters once: open N, or open --limit N")
    limit = _number(args, args.count or args.limit, "the number of letters", LIMIT_MOST) or DEFAULT_LIMIT
    chosen = {switch.field: switch.value for switch in switches() if getattr(args, _dest(switch))}
    _show(verbs.open_exchange(here, limit, chosen, afresh=args.afresh))


def close_exchange(args, here):
    _show(verbs.close_exchange(here))


def send(args, here):
    recipient = _agent(args, "name the recipient and give the letter: postbag send codex TEXT, or send claude TEXT")
    if args.text is None:
        args.usage_error(f"give the letter: postbag send {recipient} TEXT, or send {recipient} - to read it from stdin")
    sender = other(recipient)
    require_inside(sender, f"send {recipient}", here.env)
    # Handed over: from then on an interrupt could only make a lie of the outcome.
    sent = verbs.send(here, sender, recipient, _body(args.text), program=args.program, handed_over=_ignore_interrupts)
    _show(sent)


def read(args, here):
    count = _number(args, args.count, "the number of records")
    on_a_terminal = not args.json and sys.stdout is not None and sys.stdout.isatty()
    waiting = lambda: say("waiting for a send in progress to finish")  # noqa: E731
    shot = verbs.snapshot(here, count, with_status=on_a_terminal and not args.follow, on_wait=waiting)
    if not shot.found:
        say(not_there(shot.position.path))
        if not args.follow:
            return
    # The lock was released before anything is written: what was read is a snapshot, and a
    # slow pager must not hold up the senders.
    show = listing.json_line if args.json else listing.human_line
    _stream(map(show, shot.records))
    if shot.refusal is not None:
        raise shot.refusal
    if args.follow:
        _stream(map(show, shot.position.follow(FOLLOW_INTERVAL)), each=True)
    elif shot.status is not None:
        say(shot.status)


def receipts(args, here):
    import json

    count = _number(args, args.count, "the number of letters")
    sender = whose(here.env)
    stood = verbs.receipts(here, sender, count)
    if stood is None:
        say(not_there(locate(here.env)))
        return
    if not stood:  # news, not a receipt: a JSON Lines reader gets no line
        say("no letter has been sent" + (f" by {sender}" if sender else ""))
        return
    for letter, receipt in stood:
        if args.json:
            shown = {field: letter[field] for field in ("n", "at", "from", "to")}
            _tell(json.dumps({**shown, "receipt": receipt.as_json()}))
        else:
            _tell(f"letter {letter['n']} {letter['from']} -> {letter['to']}: {receipt.words()}")


def set_up(args, here):
    from postbag.setup import setup

    _show(setup(here, args.argv_program, removing=args.remove, dry_run=args.dry_run))


def look_over(args, here):
    import json

    from postbag.doctor import doctor
    from postbag.registration import FIX

    found = doctor(here, args.argv_program)
    if args.json:
        lines = (json.dumps({"check": check.what, "state": check.state, "said": check.said}) for check in found)
    else:
        lines = (f"{check.state:<5} {check.what}: {check.said}" for check in found)
    _stream(one_line(line) + "\n" for line in lines)  # like read's: a reader that went away ends it quietly
    if any(check.state == FIX for check in found):
        raise SystemExit(1)


def serve_mcp(args, here):
    from postbag import mcp  # a client's verb, and once a session: the agents' verbs need none of it

    if sys.stdin is not None and sys.stdin.isatty():
        say(
            "this is postbag's MCP server, which Claude Code and Codex start for a session and speak to on stdin "
            "and stdout: a person need not run it (postbag setup registers it with both). It ends at the end of "
            "its input: press Ctrl-D"
        )
    mcp.serve(here, args.program)


def _stream(lines, each=False):
    """Write `lines` to stdout as they come, in batches of bytes (cheaper than a text write
    per line), or `each` at once as it comes; a character the terminal's encoding lacks is
    escaped, not fatal."""
    from itertools import islice

    if sys.stdout is None:  # started with stdout closed: there is nowhere to show it
        for _ in lines:  # a follower still follows, and still stops where the file breaks
            pass
        return
    out, encoding = sys.stdout.buffer, sys.stdout.encoding
    while batch := list(islice(lines, 1 if each else 256)):
        out.write("".join(batch).encode(encoding, "backslashreplace"))
        if each:
            out.flush()
    out.flush()


def _show(done):
    """What a verb did on stdout, and the news beside it on stderr."""
    _tell(done.said)
    for news in done.news:
        say(news)


def _tell(text):
    """Write `text`, each of its lines escaped, on stdout. It is done whatever happens to
    stdout: a reader that went away must not turn a recorded letter into a failure that
    invites a resend, and what stdout cannot take is said on stderr instead."""
    shown = "\n".join(map(one_line, text.split("\n")))
    try:
        if sys.stdout is None:
            raise ValueError("no stdout")
        sys.stdout.flush()
        sys.stdout.buffer.write((shown + "\n").encode(sys.stdout.encoding or "utf-8", "backslashreplace"))
        sys.stdout.buffer.flush()
    except (OSError, ValueError, AttributeError):
        if sys.stdout is not None:
            silence(sys.stdout)
        say(shown)


def _body(text):
    """The letter's text: the argument, or stdin for `-` with its trailing newlines dropped, as 1.0 did."""
    if text != "-":
        return text
    if sys.stdin is None:
        raise Refusal("send - reads the letter from stdin, and stdin is closed")
    try:
        raw = sys.stdin.buffer.read()
    except OSError as error:
        raise Refusal(f"cannot read the letter from stdin ({error.strerror})") from None
    try:
        body = raw.decode()
    except UnicodeDecodeError:
        raise Refusal("the letter is not valid UTF-8 text") from None
    return body.rstrip("\n")


def _ignore_interrupts():
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _agent(args, missing):
    """The agent the command line names, or a usage error: `missing` where it names none."""
    if args.peer is None:
        args.usage_error(missing)
    if args.peer not in PEERS:
        args.usage_error(f"there is no agent called {args.peer!r}; the agents are {AGENTS}")
    return args.peer


def _number(args, text, what, most=None):
    """`text`, a whole number of at least 1 (and at most `most`), or None where it is None;
    else a usage error naming `what`, which echoes `text` cut short."""
    if text is None:
        return None
    shown = repr(text if len(text) <= SHOWN_MOST else text[: SHOWN_MOST - 1] + "…")
    digits = text.strip().removeprefix("+")
    if len(digits) > SHOWN_MOST and digits.isascii() and digits.isdigit():
        number = sys.maxsize  # past any count, and past what int() takes from text
    else:
        try:
            number = int(text)
        except ValueError:
            number = 0
    if number < 1:
        args.usage_error(f"{what} is a whole number of at least 1, not {shown}")
    if most is not None and number > most:
        args.usage_error(f"{what} is at most {most:,}, the most every reader of the ledger keeps exact, not {shown}")
    return number


def _dest(switch):
    return f"switch_{switch.field}"


_EXAMPLES = """\
a session:
  postbag setup                            you, once: register postbag with Claude Code and Codex
  postbag open 6                           you, in a terminal of your own: grant six letters
  postbag send codex "Review parser.py."   inside Claude Code: hands the letter to Codex's door
  postbag send claude - < answer.md        inside Codex: hands the letter to Claude's door
  postbag read 5                           anyone: the last five records
  postbag read -f                          you: watch the exchange as it happens
  postbag receipts                         anyone: whether each letter was taken, and when
  postbag close                            you: end the exchange now
  postbag doctor                           you: what a first exchange still needs, and the fix

"delivered" means the door took the letter; receipts say whether the agent took it.

environment:
  POSTBAG_LEDGER   the ledger (default ~/.postbag/ledger.jsonl); the same in both sessions
  POSTBAG_CODEX    the codex binary, a path or a name on PATH (default: the ChatGPT app's, else codex on PATH)
"""


def _parse(argv, columns):
    """The verb and its arguments in `argv`, or a usage error in postbag's own words (exit 2)."""
    parser, names = _parser(columns)
    if not argv:
        parser.error(f"name a verb: {', '.join(names)} (postbag --help says what each does)")
    if not argv[0].startswith("-") and argv[0] not in names:
        import difflib

        close = difflib.get_close_matches(argv[0], names, n=1)
        hint = f"did you mean {close[0]}?" if close else f"the verbs are {', '.join(names)}"
        parser.error(f"there is no verb {argv[0]!r}; {hint}")
    args, extra = parser.parse_known_args(argv)
    if extra:
        args.usage_error(f"{args.name} does not take {extra[0]!r} (postbag {args.name} --help says what it takes)")
    return args


def _add_verb(commands, columns, name, run, *, usage, **words):
    """Add the verb `name`, run by `run`, its usage line `usage`, its help as wide as the
    terminal's `columns`."""
    verb = commands.add_parser(
        name,
        usage=f"postbag {name} {usage}".rstrip(),
        allow_abbrev=False,
        formatter_class=_sized(argparse.HelpFormatter, columns),
        **words,
    )
    verb.set_defaults(verb=run, usage_error=verb.error, name=name)
    return verb


def _sized(base, columns):
    """A help formatter of class `base` told the terminal's width, which argparse would ask
    shutil for, whose import costs every run 5 ms: argparse makes formatters on every run,
    to check each argument and name the verbs, though it formats help only when asked."""
    return lambda prog: base(prog, width=columns - 2)  # argparse keeps two columns free


def _columns(env):
    """The terminal's width, as shutil.get_terminal_size finds it: env's COLUMNS, else
    stdout's terminal, else 80."""
    try:
        columns = int(env.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def this_program(here, *, quoted=True):
    """The words that start this process's postbag, as envelope.program_of finds them."""
    main_module = sys.modules.get("__main__")
    spec = getattr(main_module, "__spec__", None)
    as_module = spec is not None and spec.name == "postbag.__main__"
    return program_of(sys.executable, sys.argv[0], as_module, here, quoted=quoted)


def _parser(columns=80):
    """The parser, and the names of its verbs."""
    parser = argparse.ArgumentParser(
        prog="postbag",
        description="Two coding agents on one machine, a Claude Code session and a Codex session,\n"
        "correspond by letters. A human opens each exchange with a budget of letters.",
        epilog=_EXAMPLES,
        formatter_class=_sized(argparse.RawDescriptionHelpFormatter, columns),
        allow_abbrev=False,  # `open --he` is no help: an abbreviation would mean one thing here, another there
    )
    parser.add_argument("--version", action="version", version=f"postbag {__version__}")
    commands = parser.add_subparsers(title="verbs", metavar="VERB")

    verb = _add_verb(
        commands,
        columns,
        "join",
        join,
        usage="AGENT [-q]",
        help="record this session's door (inside the agent's own session)",
        description="Record how to reach this agent's session. Run it inside that session; "
        "run it again after the session restarts.",
    )
    verb.add_argument("peer", nargs="?", metavar="AGENT", help=f"the agent whose session this is: {AGENTS}")
    verb.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="say nothing on success, as a session-start hook wants (a refusal still goes to stderr)",
    )

    verb = _add_verb(
        commands,
        columns,
        "open",
        open_exchange,
        usage="[N] [--limit N] [--afresh] " + " ".join(f"[{switch.flag}]" for switch in switches()),
        help="grant an exchange of N letters (the human's verb)",
        description="Open an exchange: the next N letters, in either direction. Run it from a terminal "
        "of your own; it refuses inside either agent's session. It says which agents have yet to join, and "
        "of each that has whether it can take a letter now.",
    )
    verb.add_argument("count", nargs="?", metavar="N", help=f"letters granted (default {DEFAULT_LIMIT})")
    verb.add_argument("--limit", metavar="N", help="the same, as an option: open 6 is open --limit 6")
    verb.add_argument(
        "--afresh",
        action="store_true",
        help="set a damaged ledger aside, whole, and open the exchange on a new one (both agents join it again)",
    )
    for switch in switches():
        verb.add_argument(switch.flag, action="store_true", dest=_dest(switch), help=switch.help)

    _add_verb(
        commands,
        columns,
        "close",
        close_exchange,
        usage="",
        help="end the open exchange now (the human's verb)",
        description="End the open exchange now: the next send is refused until you open another. "
        "Run it from a terminal of your own; it refuses inside either agent's session. A ledger "
        "that holds a close record can no longer be read by postbag 1.0, which knows no such record.",
    )

    verb = _add_verb(
        commands,
        columns,
        "send",
        send,
        usage="AGENT TEXT",
        help="hand a letter to the other agent's door, then record it",
        description="Knock on the recipient's door, then record the letter. Addressing one agent names "
        "the other as the sender: send codex runs inside Claude Code, send claude inside Codex. "
        "A letter counts as delivered when the door takes it: the socket accepted it, or codex queue "
        "exited 0; postbag receipts says whether the agent then took it.",
    )
    verb.add_argument("peer", nargs="?", metavar="AGENT", help=f"the recipient: {AGENTS}")
    verb.add_argument("text", nargs="?", metavar="TEXT", help="the letter, or - to read it from stdin")

    verb = _add_verb(
        commands,
        columns,
        "read",
        read,
        usage="[N] [--json] [-f]",
        help="print the ledger, or its last N records",
        description="Print the ledger: every record, or the last N. Door fields are never shown. "
        "On a terminal, a last line on stderr tells where the bag stands.",
    )
    verb.add_argument("count", nargs="?", metavar="N", help="only the last N records")
    verb.add_argument("--json", action="store_true", help="JSON Lines, for scripts and jq")
    verb.add_argument(
        "-f", "--follow", action="store_true", help="then print each new record as it is appended, until interrupted"
    )

    verb = _add_verb(
        commands,
        columns,
        "receipts",
        receipts,
        usage="[N] [--json]",
        help="whether the other agent's session took each letter, from its own records",
        description="Say where letters stand, from the records the recipient's client keeps of what its session "
        "received (Claude Code's transcript, Codex's queue and the thread's rollout): taken, and when; waiting; "
        "not taken, with the reason the records show; or unknown. Inside a session: your own last letter, or "
        "last N. Elsewhere: the letters of the latest exchange, or the last N. postbag reads those records, "
        "never writes them.",
    )
    verb.add_argument("count", nargs="?", metavar="N", help="the last N letters")
    verb.add_argument("--json", action="store_true", help="JSON Lines, for scripts and jq")

    verb = _add_verb(
        commands,
        columns,
        "setup",
        set_up,
        usage="[--dry-run] [--remove]",
        help="register this postbag with Claude Code and Codex (the human's verb, once)",
        description="Register this postbag, by its absolute path, as the MCP server postbag of each client installed "
        "here, through the client's own command, and let the agents call its tools without asking; POSTBAG_LEDGER "
        "goes with it where this terminal sets it. It changes no setting that decides what an agent lets in: where "
        "one would stop letters, it says which. Run it from a terminal of your own, then start the clients again.",
    )
    verb.add_argument("--dry-run", action="store_true", help="say what would change, and change nothing")
    verb.add_argument("--remove", action="store_true", help="take out what setup puts in")

    verb = _add_verb(
        commands,
        columns,
        "doctor",
        look_over,
        usage="[--json]",
        help="say what a first exchange still needs, and the one fix for each",
        description="Check each thing a first exchange needs: Python, this postbag as the clients start it, each "
        "client, its version and its registration of postbag, what each lets in, the ledger, and each door that "
        "has joined. Each line says ok, fix (with the fix) or note. It changes nothing; it exits 1 where something "
        "needs a fix.",
    )
    verb.add_argument("--json", action="store_true", help="JSON Lines, for scripts and jq")

    _add_verb(
        commands,
        columns,
        "mcp",
        serve_mcp,
        usage="",
        help="offer join, send, read and status as MCP tools on stdin and stdout (for the agents' clients)",
        description="Serve postbag as a stdio MCP server: an agent's client starts it for a session and calls "
        "its tools, join, send, read and status, in place of the commands, for agents whose shell cannot reach "
        "the other agent's door or the ledger. postbag setup registers it under the name postbag, by which "
        "letters name its tools. It ends when its input closes.",
    )
    return parser, list(commands.choices)
