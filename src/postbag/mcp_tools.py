"""The MCP server's tools: join, send, read and status, what tools/list says of each, and
the verb each runs, in the directory of the session that calls (Sessions remembers it)."""

import os

from postbag import words
from postbag.contract import door_fields
from postbag.escape import shown
from postbag.guards import caller_of_mcp
from postbag.location import locate, not_there
from postbag.refusal import Refusal, told
from postbag.vendors import LETTER_MOST, PEERS, VENDORS, other, room
from postbag.verbs.bag import join_fields
from postbag.verbs.exchange import reach_of
from postbag.verbs.join import join
from postbag.verbs.read import receipts, snapshot, status
from postbag.verbs.send import send

READ_DEFAULT, READ_MOST = 10, 100  # records the read tool shows, unless asked, and at most


SESSIONS = " and ".join(VENDORS[peer].SESSION_NAME for peer in PEERS)


INSTRUCTIONS = f"""\
postbag carries letters between the two coding agents on this machine, {SESSIONS}, \
through each one's own wake-up door; a human grants each exchange a budget of letters. \
Call join first, once, so that the other agent's letters reach this session. Then send \
writes a letter to the other agent; each letter you receive says how to answer it, or \
that you must not. read shows the latest records; status says where the exchange \
stands, and whether the other agent took your last letter: ask it before you send a \
letter again. When a tool answers that you should stop and ask the human, do so."""


class Tool:
    """One tool: what tools/list says of it, and the verb that runs it."""

    def __init__(self, name, title, description, run, *, properties=None, required=(), writes, usage):  # noqa: PLR0913
        self.name, self.run, self.usage = name, run, usage
        self.properties, self.required = properties or {}, tuple(required)
        # join and send only add: a join record; or a letter, handed to the other agent's session through its door,
        # which wakes it, then recorded. Nothing is overwritten or taken away, what they reach is the two sessions on
        # this machine, and the human's budget gates every letter: so the hints ask no client to stop and ask first,
        # and Codex runs them unasked (SECURITY.md says what this trusts). `writes` is "letters" for send, "doors"
        # for join, whose second call changes nothing.
        hints = {"readOnlyHint": not writes, "destructiveHint": False, "idempotentHint": writes != "letters"}
        self.listed = {
            "name": name,
            "title": title,
            "description": description,
            "inputSchema": {"type": "object", "properties": self.properties, "additionalProperties": False}
            | ({"required": list(required)} if required else {}),
            "annotations": {"title": title, **hints, "openWorldHint": False},
        }

    def fitted(self, arguments):
        """`arguments`, where they fit the input schema (only the named properties, of their types: an integer may
        be written 2.0, which JSON Schema counts as one), each as its type says; else None."""
        if not isinstance(arguments, dict) or not set(self.required) <= set(arguments) <= set(self.properties):
            return None
        fitted = {}
        for name, given in arguments.items():
            schema = self.properties[name]
            value = int(given) if schema["type"] == "integer" and type(given) is float and given.is_integer() else given
            if schema["type"] == "string" and type(value) is not str:
                return None
            if schema["type"] == "integer" and (
                type(value) is not int or not schema["minimum"] <= value <= schema["maximum"]
            ):
                return None
            fitted[name] = value
        return fitted


def _join(here, meta, arguments, sessions):
    peer, door = caller_of_mcp(here, meta)
    place, location = sessions.place(here, peer, door)
    return words.tool_text(join(place, peer, {**door, "via": "mcp"}, again=False, location=location))


def _send(here, meta, arguments, sessions):
    peer, door = caller_of_mcp(here, meta)
    place, location = sessions.place(here, peer, door)
    door = {**door, "via": "mcp"}
    joining = join_fields(place, door, location)  # recorded first where its side has not joined
    sent = send(place, peer, other(peer), arguments["text"], door, location=location, join=joining)
    return words.tool_text(sent)


def _read(here, meta, arguments, sessions):
    place, location, _ = sessions.callers_place(here, meta)
    shot = snapshot(place, arguments.get("count", READ_DEFAULT), location=location)
    if not shot.exists:
        return not_there(shot.location)
    shown = (
        "".join(map(words.human_line, shot.records)) or "the ledger holds no records yet"
    )  # a damaged line: its refusal alone
    if shot.news is not None:
        shown = shown.rstrip("\n") + "\n" + told(shot.news)
    if shot.location.repository is not None:  # which repository's, as read says it on the command line
        shown = shown.rstrip("\n") + "\n" + told(f"read {shot.location.words()}")
    return shown


def _status(here, meta, arguments, sessions):
    place, location, peer = sessions.callers_place(here, meta)
    lines = [status(place, location)]
    if peer is not None:
        reach = reach_of(place, other(peer), location)
        lines += [reach] if reach else []
        stood = receipts(place, peer, location=location) or []
        if not stood:
            lines.append("you have sent no letter")
        else:
            letter, receipt = stood[-1]
            lines.append(f"your last letter, {letter['n']} to {letter['to']}: {receipt.words()}")
    return "\n".join(map(shown, lines))


class Sessions:
    """What the server keeps of the sessions that call it: for each, the folder its client named it working in,
    and the place and ledger that folder gave. While the client names the same folder, the session works where it
    did, whatever stands there now: a repository moved keeps its ledger, and a new clone in its place is another's."""

    def __init__(self):
        self.known = {}

    def place(self, here, peer, door):
        """`here`, in the directory of `peer`'s session behind `door` as its client records it (Claude Code's desktop
        app starts its server in $HOME), where it is there, else in the server's own; and its ledger's Location."""
        named = room(peer, here).directory(door)
        key = (peer, *(door.get(field) for field in door_fields(peer)))
        kept = self.known.get(key)
        if kept is not None and named is not None and kept[0] == named:
            return kept[1], kept[2]
        place = here.within(named) if named is not None and os.path.isdir(named) else here
        found = locate(place)
        if named is not None:
            self.known[key] = (named, place, found)
        return place, found

    def callers_place(self, here, meta):
        """The place, ledger and peer of the calling session, where the call tells them; else the server's, and None."""
        try:
            peer, door = caller_of_mcp(here, meta)
        except Refusal:
            return here, locate(here), None  # the exchange is anyone's to see; whose letters these are is not known
        return (*self.place(here, peer, door), peer)


TOOLS = {
    tool.name: tool
    for tool in (
        Tool(
            "join",
            "Join postbag",
            "Record this session as the door through which the other agent's letters reach it. "
            "Call it once at the start; calling it again changes nothing.",
            _join,
            writes="doors",
            usage="join takes no arguments",
        ),
        Tool(
            "send",
            "Send a letter",
            "Hand a letter to the other agent's session, which wakes with it, and record it in the ledger. "
            "Each letter spends one of the letters the human granted.",
            _send,
            properties={
                "text": {"type": "string", "description": f"The letter, as plain text (at most {LETTER_MOST:,} bytes)."}
            },
            required=["text"],
            writes="letters",
            usage="send takes text, the letter, as a string",
        ),
        Tool(
            "read",
            "Read the ledger",
            "The latest records of the ledger: the letters, joins, and the exchanges the human opened and closed.",
            _read,
            properties={
                "count": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": READ_MOST,
                    "description": f"How many of the latest records to show (default {READ_DEFAULT}).",
                }
            },
            writes=None,
            usage=f"read takes count, a whole number from 1 to {READ_MOST}, or nothing",
        ),
        Tool(
            "status",
            "Where the exchange stands",
            "The ledger's exchange: letters granted, sent and left, or closed or spent; when each agent joined; and "
            "whether the other agent's session took your last letter, from its own records. Ask before resending.",
            _status,
            writes=None,
            usage="status takes no arguments",
        ),
    )
}


class Toolbox:
    """What the server offers and keeps: `tools` by name, `instructions` for initialize, and `sessions`."""

    tools, instructions = TOOLS, INSTRUCTIONS

    def __init__(self):
        self.sessions = Sessions()
