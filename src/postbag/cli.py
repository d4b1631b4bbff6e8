"""The command line: the process read once, into `here` (here.py), and the verb the command line names (commands.py,
a table) parsed and run. Only the chosen verb's parser is built, and only its handler's imports load. A verb's exit
status is decided here; what the entry point answers before (__main__.py: a Python too old, --version, a human's verb
refused in a session) it ends itself."""

import os
import sys

from postbag import __version__
from postbag.commands import BY_NAME, VERBS
from postbag.guards import require_human_first
from postbag.refusal import Refusal, silence, stop
from postbag.vendors import CLIENTS, VENDORS, for_a_child, in_a_persons_terminal

EXIT_INTERRUPTED, EXIT_READER_GONE = 130, 141  # as a shell reports SIGINT and SIGPIPE
LETTER_ECHOED_MOST = 60  # characters of an unquoted letter a usage mistake echoes, quoted as it should have been
ENVIRONMENT = {
    "POSTBAG_LEDGER": (
        "the ledger (default: the repository's own in ~/.postbag, else ~/.postbag/ledger.jsonl); "
        "the same in both sessions"
    ),
    **{name: said for each in VENDORS.values() for name, said in each.VARIABLES.items()},
}
EXAMPLES = f"""\
a session:
  postbag setup                            you, once: register postbag with {CLIENTS}
  postbag open 6                           you, in a terminal in the repository: grant six letters
  postbag send codex "Review parser.py."   inside Claude Code: hands the letter to Codex's door
  postbag send claude - < answer.md        inside Codex: hands the letter to Claude's door
  postbag read 5                           anyone: the last five records
  postbag read -f                          you: watch the exchange as it happens
  postbag receipts                         anyone: whether each letter was taken, and when
  postbag close                            you: end the exchange now
  postbag doctor                           you: what a first exchange still needs, and the fix

"delivered" means the door took the letter; receipts say whether the agent took it.

environment:
{"".join(f"  {name:<16} {said}{chr(10)}" for name, said in ENVIRONMENT.items())}"""


def main(argv=None, env=None, here=None):
    """Parse the command line and run its verb in `here` (default: this process, read now, with `env`, where given,
    as its environment); return the exit status. Given `here`, nothing of this process is read or changed."""
    from postbag.here import Here

    argv = sys.argv[1:] if argv is None else list(argv)
    process = here is None
    if process:
        here = Here(
            os.environ if env is None else env,
            _working_directory,
            platform=sys.platform,
            streams=(sys.stdin, sys.stdout, sys.stderr),
            started=_started(),
            for_a_child=for_a_child,
        )
    try:
        require_human_first(argv, here.env)  # as the program's entry point does, before argparse
        args, mistake = _parse(argv, here)
        from postbag import handlers

        handler = getattr(handlers, f"cmd_{args.name}")
        return handler(args, here, Call(mistake, _ignore_interrupts if process else None))
    except SystemExit as ended:  # argparse's: a usage mistake, or help and the version said
        return ended.code if isinstance(ended.code, int) else (0 if ended.code is None else 1)
    except Refusal as refusal:
        # In a terminal of no agent's session the person typed the verb, whatever it is.
        return stop(refusal, here.stderr, to_the_person=in_a_persons_terminal(here))
    except BrokenPipeError:
        silence(here.stdout)  # the reader went away, as in `postbag read | head`
        return EXIT_READER_GONE
    except OSError as error:  # what no verb foresaw still fails closed, without a traceback
        failed = Refusal(error.strerror or "the system refused an operation")
        return stop(failed, here.stderr, to_the_person=in_a_persons_terminal(here))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


class Call:
    """What the command line gives a verb's handler beside its parsed arguments and `here`: `mistake(message)`,
    which ends the command with a usage mistake in argparse's words (exit 2), and `handed_over`, what a send calls
    once the door has its letter (None where the command line runs in a process not its own, as in a test)."""

    __slots__ = ("handed_over", "mistake")

    def __init__(self, mistake, handed_over):
        self.mistake, self.handed_over = mistake, handed_over


def _parse(argv, here):
    """The verb and its arguments in `argv`, and what says a usage mistake of them; or a usage mistake in postbag's
    own words (exit 2). Plain words and the verb's own flags are read without argparse (Verb.parsed_plainly); for
    anything else the chosen verb's parser alone is built, the whole command line's only where no verb is named."""
    if not argv or argv[0] not in BY_NAME:
        top = _top_parser(here)
        names = ", ".join(BY_NAME)
        if argv and not argv[0].startswith("-"):
            import difflib

            close = difflib.get_close_matches(argv[0], list(BY_NAME), n=1)
            hint = f"did you mean {close[0]}?" if close else f"the verbs are {names}"
            top.error(f"there is no verb {argv[0]!r}; {hint}")
        if argv and top.parse_args(argv).version:  # else --help, which ends it; anything else is a usage mistake
            here.stdout.write(f"postbag {__version__}" + "\n")
            raise SystemExit(0)
        top.error(f"name a verb: {names} (postbag --help says what each does)")
    verb = BY_NAME[argv[0]]
    args = verb.parsed_plainly(argv[1:])
    if args is not None:  # argparse is built only to say a usage mistake the handler finds
        args.name = verb.name
        return args, lambda message: _verb_parser(verb, here).error(message)
    parser = _verb_parser(verb, here)
    args, extra = parser.parse_known_args(argv[1:])
    args.name = verb.name
    if extra and verb.name == "send" and args.text is not None and not extra[0].startswith("-"):
        from postbag.escape import shell_word  # a letter of many words, unquoted: the shell split it

        whole = shell_word(" ".join([args.text, *extra]))
        shown = whole if len(whole) <= LETTER_ECHOED_MOST else whole[: LETTER_ECHOED_MOST - 2] + "…'"
        parser.error(
            f"the letter is one argument: quote it (postbag send {args.peer} {shown}), or "
            f"give - and the letter on stdin (postbag send {args.peer} - <<'POSTBAG')"
        )
    if extra:
        parser.error(f"{verb.name} does not take {extra[0]!r} (postbag {verb.name} --help says what it takes)")
    return args, parser.error


def _verb_parser(verb, here):
    parser = _speaking_parser(here)(
        prog=f"postbag {verb.name}",
        usage=f"postbag {verb.name} {verb.usage}".rstrip(),
        description=verb.description,
        formatter_class=_sized(_argparse().HelpFormatter, _columns(here)),
        allow_abbrev=False,  # `open --he` is no help: an abbreviation would mean one thing here, another there
    )
    for argument in verb.arguments:
        parser.add_argument(*argument.names, **argument.options)
    return parser


def _top_parser(here):
    sessions = " and ".join(f"a {each.CLIENT} session" for each in VENDORS.values())
    parser = _speaking_parser(here)(
        prog="postbag",
        description=f"Two coding agents on one machine, {sessions},"
        "\ncorrespond by letters. A human opens each exchange with a budget of letters.",
        epilog=EXAMPLES,
        formatter_class=_sized(_argparse().RawDescriptionHelpFormatter, _columns(here)),
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="store_true", help="show the version, and end")
    verbs = parser.add_subparsers(title="verbs", metavar="VERB")
    for verb in VERBS:
        verbs.add_parser(verb.name, help=verb.help)
    return parser


def _argparse():
    import argparse  # a usage mistake's, or help's: the plain words of a verb need none of it

    return argparse


def _speaking_parser(here):
    """An ArgumentParser class that writes help and usage mistakes to `here`'s streams, not the process's."""

    class Speaking(_argparse().ArgumentParser):
        def print_usage(self, file=None):
            super().print_usage(_stream(here, file))

        def print_help(self, file=None):
            super().print_help(_stream(here, file))

        def exit(self, status=0, message=None):
            if message and here.stderr is not None:
                here.stderr.write(message)
                here.stderr.flush()
            raise SystemExit(status)

    return Speaking


def _stream(here, file):
    """`here`'s stream for what argparse would write to `file`: stderr for the process's stderr, else stdout."""
    return here.stderr if file is sys.stderr else here.stdout


def _sized(base, columns):
    """A help formatter of class `base`, `columns` wide: argparse would ask shutil, which reads os.environ."""
    return lambda prog: base(prog, width=columns - 2)  # argparse keeps two columns free


def _columns(here):
    """The terminal's width, as shutil.get_terminal_size finds it, but from `here`'s environment and stdout."""
    try:
        columns = int(here.env.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(here.stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def _working_directory():
    """This process's working directory, or None where it has been removed."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _ignore_interrupts():
    from postbag.signals import ignore_interrupts  # a send's alone, once its letter is handed over

    ignore_interrupts()


def _started():
    """How this process was started: its Python, the path it ran, and whether as a module."""
    main_module = sys.modules.get("__main__")
    spec = getattr(main_module, "__spec__", None)
    return sys.executable, sys.argv[0], spec is not None and spec.name == "postbag.__main__"
