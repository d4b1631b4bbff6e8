"""The command line: argparse and the verbs over the ledger."""

import argparse
import os
import sys

from postbag import PEERS, __version__, guards, listing, mcp, verbs
from postbag.envelope import program_of
from postbag.guards import require_inside
from postbag.human import require_human_first
from postbag.ledger import locate
from postbag.peers import other
from postbag.refusal import Refusal, say, silence, stop


def main(argv=None, env=None, program=None):
    """Parse the command line and run its verb in `env` (default: os.environ), as `program`
    (the words that start this postbag, for a letter's reply command; default: as this
    process was started); return the exit status. Nothing below reads the process's own
    environment or arguments."""
    env = os.environ if env is None else env
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        require_human_first(argv, env)  # as the program's entry point does, before argparse
        args = _parser(_columns(env)).parse_args(argv)
        args.program = this_program(env) if program is None else program
        args.verb(args, env)
    except Refusal as refusal:
        return stop(refusal)
    except BrokenPipeError:
        silence(sys.stdout)  # the reader went away, as in `postbag read | head`
        return 141
    except OSError as error:  # what no verb foresaw still fails closed, without a traceback
        return stop(Refusal(error.strerror or "the system refused an operation"))
    except KeyboardInterrupt:
        return 130
    return 0


def join(args, env):
    joined = verbs.join(env, args.peer, guards.door_of_this_session(args.peer, env))
    if not args.quiet:
        _show(joined)


def open_exchange(args, env):
    if args.count is not None and args.limit is not None:
        args.usage_error("give the number of letters once: open N, or open --limit N")
    _show(verbs.open_exchange(env, args.count or args.limit or DEFAULT_LIMIT, wake=not args.no_wake))


def close_exchange(args, env):
    _show(verbs.close_exchange(env))


def send(args, env):
    recipient, sender = args.peer, other(args.peer)
    require_inside(sender, f"send {recipient}", env)
    # Handed over: from then on an interrupt could only make a lie of the outcome.
    sent = verbs.send(env, sender, recipient, _body(args.text), program=args.program, handed_over=_ignore_interrupts)
    _show(sent)


def read(args, env):
    on_a_terminal = not args.json and sys.stdout is not None and sys.stdout.isatty()
    waiting = lambda: say("waiting for a send in progress to finish")  # noqa: E731
    shot = verbs.snapshot(env, args.count, with_status=on_a_terminal and not args.follow, on_wait=waiting)
    if not shot.found:
        say(f"there is no ledger at {shot.position.path} yet")
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


DEFAULT_LIMIT = 12  # letters an exchange grants when the human names no number
FOLLOW_INTERVAL = 0.25  # seconds between looks at the file: prompt for a person, idle for the machine


def receipts(args, env):
    import json

    sender = next((peer for peer in PEERS if guards.inside(peer, env)), None)
    stood = verbs.receipts(env, sender, args.count)
    if stood is None:
        say(f"there is no ledger at {locate(env)} yet")
        return
    if not stood:
        _tell("no letter has been sent" + (f" by {sender}" if sender else ""))
        return
    for letter, receipt in stood:
        if args.json:
            shown = {field: letter[field] for field in ("n", "at", "from", "to")}
            _tell(json.dumps({**shown, "receipt": receipt.as_json()}))
        else:
            _tell(f"letter {letter['n']} {letter['from']} -> {letter['to']}: {receipt.words()}")


def serve_mcp(args, env):
    mcp.serve(env, args.program)


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
    _tell(done.words)
    for news in done.news:
        say(news)


def _tell(receipt):
    """Write what a verb did. It is done whatever happens to the receipt: a reader that went
    away must not turn a recorded letter into a failure that invites a resend."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.write(receipt + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        silence(sys.stdout)


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


def _positive(text):
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return number


_EXAMPLES = """\
a session:
  postbag join claude                      inside Claude Code (postbag join codex inside Codex)
  postbag open 6                           you, in a terminal of your own
  postbag send codex "Review parser.py."   inside Claude Code: hands the letter to Codex's door
  postbag send claude - < answer.md        inside Codex: hands the letter to Claude's door
  postbag read 5                           anyone: the last five records
  postbag read -f                          you: watch the exchange as it happens
  postbag close                            you: end the exchange now

"delivered" means the door took the letter; neither door tells whether the agent read it.

environment:
  POSTBAG_LEDGER   the ledger (default ~/.postbag/ledger.jsonl); the same in both sessions
  POSTBAG_CODEX    the codex binary, a path or a name on PATH (default: the ChatGPT app's, else codex on PATH)
"""


def _verb(verbs, columns, name, run, **words):
    """Add the verb `name`, run by `run`, its options spelled out as the fast path reads them,
    its help as wide as the terminal's `columns`."""
    verb = verbs.add_parser(name, allow_abbrev=False, formatter_class=_sized(argparse.HelpFormatter, columns), **words)
    verb.set_defaults(verb=run, usage_error=verb.error)
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


def this_program(env):
    """The words that start this process's postbag, as envelope.program_of finds them."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return program_of(sys.executable, sys.argv[0], spec is not None and spec.name == "postbag.__main__", env)


def _parser(columns=80):
    parser = argparse.ArgumentParser(
        prog="postbag",
        description="Two coding agents on one machine, a Claude Code session and a Codex session,\n"
        "correspond by letters. A human opens each exchange with a budget of letters.",
        epilog=_EXAMPLES,
        formatter_class=_sized(argparse.RawDescriptionHelpFormatter, columns),
        allow_abbrev=False,  # `open --he` is no help: an abbreviation would mean one thing here, another there
    )
    parser.add_argument("--version", action="version", version=f"postbag {__version__}")
    verbs = parser.add_subparsers(title="verbs", metavar="VERB", required=True)

    verb = _verb(
        verbs,
        columns,
        "join",
        join,
        help="record this session's door (inside the agent's own session)",
        description="Record how to reach this agent's session. Run it inside that session; "
        "run it again after the session restarts.",
    )
    verb.add_argument("peer", choices=PEERS, help="the agent whose session this is")
    verb.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="say nothing on success, as a session-start hook wants (a refusal still goes to stderr)",
    )

    verb = _verb(
        verbs,
        columns,
        "open",
        open_exchange,
        help="grant an exchange of N letters (the human's verb)",
        description="Open an exchange: the next N letters, in either direction. Run it from a terminal "
        "of your own; it refuses inside either agent's session. A letter to a Codex thread that no running "
        "Codex has loaded asks Codex's daemon to load it (codex queue --resume), unless the thread may ask "
        "for an approval nobody could give; --no-wake leaves such letters waiting instead.",
    )
    granted = f"letters granted (default {DEFAULT_LIMIT})"
    verb.add_argument("count", type=_positive, nargs="?", metavar="N", help=granted)
    verb.add_argument("--limit", type=_positive, metavar="N", help="the same, as an option: open 6 is open --limit 6")
    verb.add_argument(
        "--no-wake",
        action="store_true",
        help="wake no Codex thread: letters to one nobody has loaded wait until a person resumes it",
    )

    _verb(
        verbs,
        columns,
        "close",
        close_exchange,
        help="end the open exchange now (the human's verb)",
        description="End the open exchange now: the next send is refused until you open another. "
        "Run it from a terminal of your own; it refuses inside either agent's session. A ledger "
        "that holds a close record can no longer be read by postbag 1.0, which knows no such record.",
    )

    verb = _verb(
        verbs,
        columns,
        "send",
        send,
        help="hand a letter to the other agent's door, then record it",
        description="Knock on the recipient's door, then record the letter. Addressing one peer names "
        "the other as the sender: send codex runs inside Claude Code, send claude inside Codex. "
        "A letter counts as delivered when the door takes it: the socket accepted it, or codex queue "
        "exited 0; neither tells whether the agent has read it.",
    )
    verb.add_argument("peer", choices=PEERS, help="the recipient")
    verb.add_argument("text", metavar="TEXT", help="the letter, or - to read it from stdin")

    verb = _verb(
        verbs,
        columns,
        "read",
        read,
        help="print the ledger, or its last N records",
        description="Print the ledger: every record, or the last N. Door fields are never shown. "
        "On a terminal, a last line on stderr tells where the bag stands.",
    )
    verb.add_argument("count", type=_positive, nargs="?", metavar="N", help="only the last N records")
    verb.add_argument("--json", action="store_true", help="JSON Lines, for scripts and jq")
    verb.add_argument(
        "-f", "--follow", action="store_true", help="then print each new record as it is appended, until interrupted"
    )

    verb = _verb(
        verbs,
        columns,
        "receipts",
        receipts,
        help="whether the other agent's session took each letter, from its own records",
        description="Say where letters stand, from the records the recipient's client keeps of what its session "
        "received (Claude Code's transcript, Codex's queue and the thread's rollout): taken, and when; waiting; "
        "not taken, with the reason the records show; or unknown. Inside a session: your own last letter, or "
        "last N. Elsewhere: the letters of the latest exchange, or the last N. postbag reads those records, "
        "never writes them.",
    )
    verb.add_argument("count", type=_positive, nargs="?", metavar="N", help="the last N letters")
    verb.add_argument("--json", action="store_true", help="JSON Lines, for scripts and jq")

    _verb(
        verbs,
        columns,
        "mcp",
        serve_mcp,
        help="offer join, send, read and status as MCP tools on stdin and stdout (for the agents' clients)",
        description="Serve postbag as a stdio MCP server: Claude Code or Codex starts it for a session and calls "
        "its tools, join, send, read and status, in place of the commands (Codex's sandbox keeps its shell from "
        "Claude's socket and the ledger; its MCP servers run outside it). Register it under the name postbag: "
        "letters name its tools that way. It ends when its input closes.",
    )
    return parser
