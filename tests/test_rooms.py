"""The vendor contract, held to each vendor: the light part its package declares (LIGHT_TYPES,
as vendors.py lists it) and the Room it makes (room.py declares it), each asked every question in a
throwaway home where the client is not installed and its session has gone. What the
answers say is each room's own tests' (test_claude.py, test_codex.py, test_setup.py,
test_doctor.py); here, that every room answers all of it, in the declared shapes."""

import inspect
import sys

import pytest

from postbag import contract, vendors
from postbag.doors import Delivery
from postbag.here import Here
from postbag.receipts import Receipt
from postbag.refusal import Refusal
from postbag.registration import Change, Check, Client, Installation, Registration
from postbag.room import CANNOT_TELL, TAKES, WILL_NOT, Reach, Room
from postbag.vendors import all_rooms

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
    "LETTER_MOST": (int, type(None)),
    "SWITCHES": tuple,
    "SANDBOX": (dict, type(None)),
    "is_session_variable": type(len),
    "inside": type(len),
    "door_in": type(len),
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
    return Here(env, str(tmp_path), platform=sys.platform, for_a_child=vendors.for_a_child)


def declared(contract):
    """The names an abstract class of the vendor contract declares: each its abstract members."""
    return {name for name, member in inspect.getmembers(contract) if getattr(member, "__isabstractmethod__", False)}


def _installations():
    from postbag.claude.client import ClaudeInstallation
    from postbag.codex.client import CodexInstallation

    return {"claude": ClaudeInstallation, "codex": CodexInstallation}


# The contract's two abstract classes, and what holds to each: each vendor's Room and its
# Installation (from its room's client.py).
CONTRACT = {
    "room": (Room, ROOMS),
    "installation": (Installation, _installations()),
}


@pytest.mark.parametrize("part", CONTRACT)
def test_each_vendor_holds_to_every_part_of_the_contract_said_once_as_an_abstract_class(part):
    contract, made = CONTRACT[part]
    names = declared(contract)
    assert names, f"{contract.__name__} declares nothing"
    assert sorted(made) == sorted(vendors.PEERS), f"every vendor has its {part}"
    for peer, each in made.items():
        missing = sorted(name for name in names if not hasattr(each, name))
        assert missing == [], f"{peer}'s {part} leaves out {missing}"
        if isinstance(each, type):
            assert not each.__abstractmethods__, f"{peer}'s {part} leaves out {sorted(each.__abstractmethods__)}"
            assert issubclass(each, contract)
        callables = {name for name in names if isinstance(inspect.getattr_static(contract, name), staticmethod)}
        assert all(callable(getattr(each, name)) for name in callables), f"{peer}'s {part}"


def test_the_light_part_holds_values_of_the_shapes_above_the_rooms_read():
    for name, package in vendors.VENDORS.items():
        for attribute, kind in LIGHT_TYPES.items():
            value = getattr(package, attribute)
            assert callable(value) if kind is type(len) else isinstance(value, kind), (name, attribute)
        assert name == package.NAME
        assert all(isinstance(each, str) and each for each in (*package.DOOR_VARIABLES, *package.MARKS))
        assert set(contract.door_fields(name)) == set(GONE[name]) - {"session"}, f"{name}'s door fields"
        # Each word a Switch and a Sandbox take, and none else: vendors.py makes them of these.
        for switch in package.SWITCHES:
            made = vendors.Switch(name, **switch)
            words = ("flag", "field", "help", "said_at_open", "said_in_status")
            assert all(isinstance(getattr(made, word), str) for word in words)
        if package.SANDBOX is not None:
            made = vendors.Sandbox(**package.SANDBOX)
            assert made.marks and all(type(name) is str for name in made.marks)
            assert vendors.sandbox_of(Here({}, "/")) is None
            assert vendors.sandbox_of(Here(dict.fromkeys(made.marks[:1], "1"), "/")).name == made.name


@pytest.mark.parametrize("made", ROOMS.values(), ids=ROOMS)
def test_each_room_takes_its_names_from_its_light_part_and_says_its_own_facts(made):
    assert made.NAME in vendors.VENDORS and made.CLIENT == vendors.VENDORS[made.NAME].CLIENT
    assert made.SESSION_NAME == vendors.VENDORS[made.NAME].SESSION_NAME
    assert all(isinstance(each, str) and each for each in (made.SEND_TOOL, *made.PROVEN))


@pytest.mark.parametrize("peer", ROOMS)
def test_each_room_answers_every_question_in_the_declared_shapes(peer, here):
    room = ROOMS[peer](here)
    joined = {"n": 2, "kind": "join", "peer": peer, **GONE[peer]}
    letter = {"n": 3, "kind": "letter", "from": vendors.other(peer), "to": peer, "body": "hi", "at": here.clock.stamp()}

    with pytest.raises(Refusal):  # a terminal of no session has no door: join cannot go on
        room.door_of_session()
    assert room.calls({}) is False, "a call with no _meta, in a terminal of no session, comes from none of its sessions"
    delivery = room.delivery(joined)
    assert isinstance(delivery, Delivery)
    delivery.finish()
    reach = room.reachability(joined)
    assert isinstance(reach, Reach) and reach.state in (TAKES, WILL_NOT, CANNOT_TELL)
    assert isinstance(reach.words, str) and reach.words
    receipt = room.receipt(letter, joined)
    assert isinstance(receipt, Receipt) and isinstance(receipt.words(), str)

    installed = room.installation()
    assert isinstance(installed, Installation)
    assert isinstance(installed.client, Client) and installed.client.path is None and installed.client.missing
    assert installed.version() is None
    assert installed.registered() is None  # nothing registered in a throwaway home
    assert isinstance(installed.registering(Registration(["postbag", "mcp"])), Change)
    assert isinstance(installed.unregistering(), Change)
    assert isinstance(installed.unregistering(removing=True), Change)
    allowing = installed.allowing_tools()
    assert allowing is None or isinstance(allowing, Change)
    assert all(isinstance(each, str) for each in [*installed.notes(), *installed.notes(removing=True)])
    assert all(isinstance(each, Check) for each in installed.checks())
    assert isinstance(installed.installing, str) and "npm install -g " in installed.installing
