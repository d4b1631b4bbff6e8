"""The vendor contract, held to each vendor: the light part its package declares (vendors.py
lists it) and the Room it makes (room.py declares it), each asked every question in a
throwaway home where the client is not installed and its session has gone. What the
answers say is each room's own tests' (test_claude.py, test_codex.py, test_setup.py,
test_doctor.py); here, that every room answers all of it, in the declared shapes."""

import inspect
import os
import subprocess
import sys

import pytest
from helpers import SRC

from postbag import vendors
from postbag.here import Here
from postbag.receipts import Receipt
from postbag.refusal import Refusal
from postbag.registration import Change, Check, Client, Registration
from postbag.room import CANNOT_TELL, CLIENT_FUNCTIONS, TAKES, WILL_NOT, Post, Reach, Room
from postbag.rooms import all_rooms

ROOMS = all_rooms()
# The type each name of the light part has: a vendor that leaves one out, or gives it
# another shape, fails here before anything above the rooms reads it.
LIGHT_TYPES = {
    "NAME": str,
    "CLIENT": str,
    "PROGRAM": str,
    "SESSION_NAME": str,
    "FILES": str,
    "DELIVERED": str,
    "VARIABLES": dict,
    "DOOR_VARIABLES": tuple,
    "MARKS": tuple,
    "DOOR_FIELDS": tuple,
    "LETTER_MOST": (int, type(None)),
    "SWITCHES": tuple,
    "SANDBOX": (dict, type(None)),
    "is_session_variable": type(len),
    "inside": type(len),
    "in_sandbox": type(len),
}
# A join record of a session long gone, for each room: what its door is made of, and
# nothing behind it.
GONE = {
    "claude": {
        "socket": "/nonexistent/postbag-test.sock",
        "token": "t" * 32,
        "session": "00000000-0000-4000-8000-000000000000",
    },
    "codex": {"thread": "019a0000-0000-7000-8000-000000000000"},
}


@pytest.fixture
def here(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": str(tmp_path / "no-clients"), "POSTBAG_LEDGER": str(tmp_path / "ledger.jsonl")}
    return Here(env, str(tmp_path), platform=sys.platform)


def test_the_light_part_is_written_down_once_and_each_vendor_declares_all_of_it():
    assert set(LIGHT_TYPES) == set(vendors.LIGHT), "vendors.LIGHT and this test list different names"
    for name, package in vendors.VENDORS.items():
        for attribute, kind in LIGHT_TYPES.items():
            assert hasattr(package, attribute), f"{name} does not declare {attribute}"
            value = getattr(package, attribute)
            assert callable(value) if kind is type(len) else isinstance(value, kind), (name, attribute)
        assert name == package.NAME
        assert all(isinstance(each, str) and each for each in (*package.DOOR_VARIABLES, *package.MARKS))
        assert set(package.DOOR_FIELDS) == set(GONE[name]) - {"session"}, f"{name}'s door fields"
        # Each word a Switch and a Sandbox take, and none else: vendors.py makes them of these.
        for switch in package.SWITCHES:
            made = vendors.Switch(name, **switch)
            assert all(isinstance(getattr(made, word), str) for word in ("flag", "field", "help", "opened", "standing"))
        if package.SANDBOX is not None:
            vendors.Sandbox(**package.SANDBOX)
        assert package.in_sandbox({}) is False


def test_a_vendors_light_part_loads_no_other_module():
    """A human's verb refused in a session must load no more of a room than its __init__."""
    probe = "import sys, postbag.claude, postbag.codex; print(postbag.__file__, *sorted(sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-s", "-c", probe],
        env={"PYTHONPATH": SRC, "PATH": os.defpath},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert loaded.pop(0).startswith(SRC), "the tree's postbag, not one installed"
    assert [name for name in loaded if name.startswith("postbag")] == ["postbag", "postbag.claude", "postbag.codex"]


@pytest.mark.parametrize("made", ROOMS.values(), ids=ROOMS)
def test_each_room_implements_every_method_the_contract_declares(made):
    declared = {name for name, member in inspect.getmembers(Room) if getattr(member, "__isabstractmethod__", False)}
    assert declared, "room.Room declares no abstract method"
    assert not made.__abstractmethods__, f"{made.NAME} leaves out {sorted(made.__abstractmethods__)}"
    assert declared <= set(vars(made)), "each room says each of its own answers"
    assert made.NAME in vendors.VENDORS and made.CLIENT == vendors.VENDORS[made.NAME].CLIENT
    assert made.SESSION_NAME == vendors.VENDORS[made.NAME].SESSION_NAME
    assert all(isinstance(each, str) and each for each in (made.SEND_TOOL, *made.PROVEN))


@pytest.mark.parametrize("made", ROOMS.values(), ids=ROOMS)
def test_each_rooms_client_module_offers_every_function_the_contract_names(made, here):
    client = made(here).client_module()
    for name, said in CLIENT_FUNCTIONS.items():
        function = getattr(client, name, None)
        assert callable(function), f"{made.NAME}'s client.py has no {name}"
        declared = said[1 : said.index(")")].split(", ")
        assert list(inspect.signature(function).parameters) == declared, f"{made.NAME}'s {name}"


@pytest.mark.parametrize("peer", ROOMS)
def test_each_room_answers_every_question_in_the_declared_shapes(peer, here):
    room = ROOMS[peer](here)
    joined = {"n": 2, "kind": "join", "peer": peer, **GONE[peer]}
    letter = {"n": 3, "kind": "letter", "from": vendors.other(peer), "to": peer, "body": "hi", "at": here.clock.stamp()}

    with pytest.raises(Refusal):  # a terminal of no session has no door: join cannot go on
        room.door_of_session()
    assert room.caller({}) is None, "a call with no _meta comes from none of its sessions"
    post = room.post(joined)
    assert isinstance(post, Post)
    post.finish()
    reach = room.reachability(joined)
    assert isinstance(reach, Reach) and reach.state in (TAKES, WILL_NOT, CANNOT_TELL)
    assert isinstance(reach.words, str) and reach.words
    receipt = room.receipt(letter, joined)
    assert isinstance(receipt, Receipt) and isinstance(receipt.words(), str)

    client = room.client()
    assert isinstance(client, Client) and client.program is None and client.missing
    assert room.version() is None
    registered = room.registered()
    assert registered is None or isinstance(registered, (Registration, Refusal))
    assert isinstance(room.registering(Registration(["postbag", "mcp"])), Change)
    assert isinstance(room.unregistering(), Change)
    allowing = room.allowing_tools()
    assert allowing is None or isinstance(allowing, Change)
    assert all(isinstance(each, str) for each in room.setup_notes())
    assert all(isinstance(each, Check) for each in room.checks())
