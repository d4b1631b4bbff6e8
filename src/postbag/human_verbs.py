"""The human's verbs, refused in an agent's session: before their arguments are read, and
before the rest of postbag loads (the entry point asks here first), so this module
imports only the table of sessions, whose rooms' packages name their sessions' variables
and import nothing themselves. A guardrail, not authentication, as guards.py says.
"""

from postbag.refusal import Refusal
from postbag.vendors import VARIABLES

HUMAN_VERBS = ("open", "close", "setup")


def require_human(verb, env):
    """Refuse `verb` where `env` (a mapping, or the set of its names) holds a session
    variable, naming each one found: its name only, for a value may be a token."""
    found = [name for name in VARIABLES if name in env]
    if found:
        names = " and ".join([", ".join(found[:-1]), found[-1]] if len(found) > 1 else found)
        marks = "marks" if len(found) == 1 else "mark"
        raise Refusal(f"{verb} is the human's verb (this shell has {names}, which {marks} an agent's session)")


def require_human_first(argv, env):
    """Refuse the human's verbs inside a session before their arguments are read, so that
    whatever else the command line holds, the answer is the same; only help passes."""
    if argv[:1] and argv[0] in HUMAN_VERBS and "-h" not in argv and "--help" not in argv:
        require_human(argv[0], env)


def in_a_persons_terminal(env):
    """Whether `env` is a terminal of no agent's session: it holds none of their variables.
    Whatever verb is refused there, the person typed it, and is told why and what to do,
    not the agents' "stop and ask the human"."""
    return not any(name in env for name in VARIABLES)
