"""`postbag doctor`: a line for each thing a first exchange needs, each ok or the one fix that makes it so, and notes
of what is worth knowing. It changes nothing of the person's, the clients' or the ledger's: the one file it writes is
a probe, made and removed at once where the ledger is to be, to see that it can be."""

import os
import sys
from concurrent.futures import ThreadPoolExecutor

from postbag import __version__
from postbag.escape import shell_word
from postbag.ledger_checks import ledger_checks
from postbag.location import VARIABLE
from postbag.refusal import Refusal
from postbag.registering import ANOTHER, ELSEWHERE, ledger_of, ledger_words, registration_of, registration_standing
from postbag.registration import FIX, OK, RUN_SETUP, Check, version_check
from postbag.vendor_files import json_of, quoted, record, table
from postbag.vendors import PEERS, room

ANSWER_WAIT = 10.0  # seconds a server started here has to answer: it answers in milliseconds
ANSWER_MOST = 1 << 20  # bytes of its answer read: an initialize result is a few hundred


def doctor(here):
    """Every Check, in the order a first exchange needs them."""
    try:
        wanted = registration_of(here)
    except Refusal:
        wanted = None  # the ledger the server is to carry cannot be told: the ledger's line says why
    command = wanted or registration_of(here.with_env({}))  # how it starts, whatever ledger it carries
    with ThreadPoolExecutor(max_workers=4) as pool:  # the clients take their time to start; in turn, seconds
        asked = [pool.submit(_client_checks, room(peer, here), here, wanted) for peer in PEERS]
        ledger = pool.submit(ledger_checks, here)
        found = [Check(OK, "Python", sys.version.split()[0]), _this_postbag(here, command)]
        found += [check for answer in asked for check in answer.result()]
        return found + ledger.result()


def _this_postbag(here, wanted):
    """Whether this postbag starts as the clients are to start it."""
    from postbag import processes

    try:
        status, out, _ = processes.ask([*wanted.argv[:-1], "--version"], here.child_env(), ANSWER_WAIT)
    except OSError as error:
        said = f"{wanted.words()} does not start ({error.strerror}): {RUN_SETUP} from it"
        return Check(FIX, "postbag", said)
    if status != 0 or out.strip() != f"postbag {__version__}":
        return Check(FIX, "postbag", f"{quoted(wanted.words())} does not start as this postbag: {RUN_SETUP} from it")
    return Check(OK, "postbag", f"{__version__}, which the clients start as {wanted.words()}")


def _client_checks(peer_room, here, wanted):
    """A client's checks: installed, its version, postbag as its MCP server, and its room's own."""
    installed = peer_room.installation()
    client = installed.client
    if client.path is None:
        return [Check(FIX, client.name, f"not installed here ({client.missing}): install it, then {RUN_SETUP}")]
    found = [version_check(client, installed.version(), peer_room.PROVEN, installed.installing)]
    what = f"{client.name}'s registration of postbag"
    try:
        registered = installed.registered()
    except Refusal as refusal:
        return [*found, Check(FIX, what, f"{refusal}: mend it, then {RUN_SETUP}"), *installed.checks()]
    if registered is None:
        found.append(Check(FIX, what, f"there is none: {RUN_SETUP}"))
    elif wanted is None:
        found.append(Check(FIX, what, "whether it starts this postbag cannot be told until the ledger is mended"))
    else:
        found.append(_registration(installed, registered, wanted, here, what))
    return [*found, *installed.checks()]


def _registration(installed, registered, wanted, here, what):
    """The check of a registration of postbag: this postbag on this terminal's ledger, answering."""
    state = registration_standing(registered, wanted, here)
    if state == ANOTHER:
        remove, command = installed.unregistering().shown, quoted(registered.words())
        return Check(FIX, what, f"it starts {command}, not this postbag: take it out with {remove}, then {RUN_SETUP}")
    if state == ELSEWHERE:
        return Check(FIX, what, _ledgers_differ(ledger_of(registered, here), ledger_of(wanted, here)))
    why_not = answers(registered, here)
    finding = "it starts this postbag, which answers" if why_not is None else f"postbag does not start: {why_not}"
    return Check(OK if why_not is None else FIX, what, finding)


def _ledgers_differ(theirs, ours):
    """doctor's words where a client starts this postbag on the ledger `theirs` and this terminal names `ours` (each a
    path, or None for each session's own): both fixes, and which one keeps what setup gave the clients before."""
    stands = f"it starts this postbag on {ledger_words(theirs)}, and this terminal names {ledger_words(ours)}"
    if theirs is None:
        keep = f"unset {VARIABLE} in this terminal (and in your shell's startup file)"
    else:
        keep = f"export {VARIABLE}={shell_word(theirs)} in this terminal (or in your shell's startup file)"
    move = "which takes the ledger out of its registration" if ours is None else "which points it at this one"
    return f"{stands}: to keep the clients' ledger, which setup gave them, {keep}; or {RUN_SETUP}, {move}"


def answers(registration, here):
    """None where `registration`, started as a client would (this terminal's environment less the sessions', and the
    server's own variables), answers an MCP initialize as postbag; else why not, in words."""
    import json
    import subprocess
    import time

    asked = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "postbag doctor"}}
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": asked}
    try:
        child = subprocess.Popen(
            registration.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**here.child_env(), **registration.variables},
            start_new_session=True,
        )
    except OSError as error:
        return error.strerror or "it cannot be started"
    try:
        try:
            child.stdin.write((json.dumps(request) + "\n").encode())
            child.stdin.close()
        except BrokenPipeError:  # it ended without reading: what it wrote before still tells
            pass
        line = _first_line(child.stdout.fileno(), time.monotonic() + ANSWER_WAIT)
        if line is None:
            return f"no answer within {ANSWER_WAIT:g} s"
        if not line:
            return "it ended without answering"
        try:
            answer = record(json_of(line))
        except ValueError:
            return "it answered what is not JSON"
        name = table(table(answer, "result"), "serverInfo").get("name")
        return None if name == "postbag" else "it answered as another server"
    except OSError as error:
        return error.strerror or "it went away"
    finally:
        child.kill()
        child.wait()


def _first_line(fd, deadline):
    """The first line read from `fd` (at most ANSWER_MOST bytes of it, or what came before its end), or None where
    none is whole by `deadline`: a program that writes half a line and waits must not hold doctor up."""
    import select
    import time

    data = b""
    while b"\n" not in data and len(data) < ANSWER_MOST:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            return None
        more = os.read(fd, ANSWER_MOST)
        if not more:
            break
        data += more
    return data.partition(b"\n")[0][:ANSWER_MOST]
