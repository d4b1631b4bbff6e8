"""What each verb of the command line does with its parsed arguments (commands.py has the table of them):
`cmd_VERB`, run in `here`, returns the exit status. Each imports what its verb alone uses, so that an agent's
verb loads no more than it needs; the words it prints are made in words.py."""

from postbag.vendors import AGENTS, CLIENTS, PEERS

# Letters an exchange may grant at most: the largest whole number every JSON reader of the
# ledger keeps exact (jq's and JavaScript's numbers are doubles). Past it is no budget.
LIMIT_MOST = 2**53 - 1
NUMBER_ECHOED_MOST = 20  # characters of a number the command line echoes back in a usage error
FOLLOW_INTERVAL = 0.25  # seconds between looks at the file: prompt for a person, idle for the machine
FIX_FOUND = 1  # doctor's exit status while something needs a fix


def cmd_join(args, here, call):
    from postbag import words
    from postbag.guards import door_of_this_session
    from postbag.verbs.join import join

    peer = agent(args, call, "name the agent whose session this is: postbag join claude, or postbag join codex")
    joined = join(here, peer, door_of_this_session(peer, here))
    if not args.quiet:
        words.show(joined, here.stdout, here.stderr)
    return 0


def cmd_open(args, here, call):
    from postbag import words
    from postbag.exchange import DEFAULT_LIMIT
    from postbag.vendors import SWITCHES
    from postbag.verbs.exchange import open_exchange

    if args.count is not None and args.limit is not None:
        call.mistake("give the number of letters once: open N, or open --limit N")
    limit = number(call, args.count or args.limit, "the number of letters", LIMIT_MOST) or DEFAULT_LIMIT
    chosen = {switch.field: switch.value for switch in SWITCHES if getattr(args, switch.dest)}
    words.show(open_exchange(here, limit, chosen, afresh=args.afresh), here.stdout, here.stderr)
    return 0


def cmd_close(args, here, call):
    from postbag import words
    from postbag.verbs.exchange import close_exchange

    words.show(close_exchange(here), here.stdout, here.stderr)
    return 0


def cmd_send(args, here, call):
    from postbag import words
    from postbag.location import locate
    from postbag.vendors import other, session_door
    from postbag.verbs.send import send

    recipient = agent(
        args, call, "name the recipient and give the letter: postbag send codex TEXT, or send claude TEXT"
    )
    if args.text is None:
        call.mistake(f"give the letter: postbag send {recipient} TEXT, or send {recipient} - to read it from stdin")
    sender = other(recipient)
    body = _body(args.text, here.stdin)  # before the door is asked for, as 1.0 read it
    door = session_door(sender, f"send {recipient}", here)
    location = locate(here)
    # Handed over: from then on an interrupt could only make a lie of the outcome.
    sent = send(here, sender, recipient, body, door, location=location, handed_over=call.handed_over)
    words.show(sent, here.stdout, here.stderr)
    return 0


def cmd_read(args, here, call):
    from postbag import words
    from postbag.location import not_there
    from postbag.refusal import say
    from postbag.verbs.read import snapshot, status

    count = number(call, args.count, "the number of records")
    on_a_terminal = not args.json and here.stdout is not None and here.stdout.isatty()
    waiting = lambda: say("waiting for a send in progress to finish", here.stderr)  # noqa: E731
    with_status = on_a_terminal and not args.follow
    named = _chosen(args, here)
    shot = snapshot(here, count, on_wait=waiting, following=args.follow, location=named)
    if not shot.exists:
        say(not_there(shot.location), here.stderr)
        if not args.follow:
            return 0
    elif shot.location.repository is not None and not with_status:  # the status line names it where there is one
        say(f"read {shot.location.words()}", here.stderr)
    # The lock was released before anything is written, so a slow pager holds up no sender. A line that is
    # not a record raises its refusal once the records before it are written.
    show = words.json_line if args.json else words.human_line
    words.stream(map(show, shot.records), here.stdout)
    if shot.news is not None:
        say(shot.news, here.stderr)
    if args.follow:
        words.stream(map(show, shot.position.follow(FOLLOW_INTERVAL)), here.stdout, each=True)
    elif with_status and shot.news is None:
        say(status(here, shot.location), here.stderr)
    return 0


def cmd_receipts(args, here, call):
    from postbag import words
    from postbag.location import locate, not_there
    from postbag.refusal import say
    from postbag.vendors import whose
    from postbag.verbs.read import receipts

    count = number(call, args.count, "the number of letters")
    sender = whose(here)
    named = _chosen(args, here)
    stood = receipts(here, sender, count, location=named)
    if stood is None:
        say(not_there(named or locate(here)), here.stderr)
    elif not stood:  # news, not a receipt: a JSON Lines reader gets no line
        say("no letter has been sent" + (f" by {sender}" if sender else ""), here.stderr)
    for letter, receipt in stood or ():
        shown = words.receipt_json(letter, receipt) if args.json else words.receipt_line(letter, receipt)
        words.tell(shown, here.stdout, here.stderr)
    return 0


def cmd_setup(args, here, call):
    from postbag import words
    from postbag.setup import setup

    words.show(setup(here, removing=args.remove, dry_run=args.dry_run), here.stdout, here.stderr)
    return 0


def cmd_doctor(args, here, call):
    from postbag import words
    from postbag.doctor import doctor
    from postbag.escape import shown
    from postbag.registration import FIX

    found = doctor(here)
    lines = (shown(words.check_line(check, args.json)) + "\n" for check in found)
    words.stream(lines, here.stdout)  # like read's: a reader that went away ends it quietly
    return FIX_FOUND if any(check.state == FIX for check in found) else 0


def cmd_mcp(args, here, call):
    from postbag import mcp  # a client's verb, and once a session: the agents' verbs need none of it
    from postbag.mcp_tools import Toolbox
    from postbag.refusal import say

    if here.stdin is not None and here.stdin.isatty():
        say(
            f"this is postbag's MCP server, which {CLIENTS} start for a session and speak "
            "to on stdin and stdout: a person need not run it (postbag setup registers it "
            "with both). It ends at the end of its input: press Ctrl-D",
            here.stderr,
        )
    return mcp.serve(here, Toolbox())


def _chosen(args, here):
    """The ledger the person names with --ledger, a location.Location; else None."""
    if args.ledger is None:
        return None
    from postbag.location import chosen

    return chosen(args.ledger, here)


def _body(text, stdin):
    """The letter's text: the argument, or `stdin` for `-` with its trailing newlines dropped, as 1.0 did."""
    from postbag.refusal import Refusal

    if text != "-":
        return text
    if stdin is None:
        raise Refusal("send - reads the letter from stdin, and stdin is closed")
    try:
        raw = stdin.buffer.read()
    except OSError as error:
        raise Refusal(f"cannot read the letter from stdin ({error.strerror})") from None
    try:
        body = raw.decode()
    except UnicodeDecodeError:
        raise Refusal("the letter is not valid UTF-8 text") from None
    return body.rstrip("\n")


def agent(args, call, missing):
    """The agent the command line names, or a usage mistake: `missing` where it names none."""
    if args.peer is None:
        call.mistake(missing)
    if args.peer not in PEERS:
        call.mistake(f"there is no agent called {args.peer!r}; the agents are {AGENTS}")
    return args.peer


def number(call, text, what, most=None):
    """`text`, a whole number of at least 1 (and at most `most`), or None where it is None;
    else a usage error naming `what`, which echoes `text` cut short."""
    if text is None:
        return None
    shown = repr(text if len(text) <= NUMBER_ECHOED_MOST else text[: NUMBER_ECHOED_MOST - 1] + "…")
    digits = text.strip().removeprefix("+")
    if len(digits) > NUMBER_ECHOED_MOST and digits.isascii() and digits.isdigit():
        number = 2**63  # past any count, and past what int() takes from text
    else:
        try:
            number = int(text)
        except ValueError:
            number = 0
    if number < 1:
        call.mistake(f"{what} is a whole number of at least 1, not {shown}")
    if most is not None and number > most:
        call.mistake(f"{what} is at most {most:,}, the most every reader of the ledger keeps exact, not {shown}")
    return number
