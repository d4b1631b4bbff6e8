"""What both rooms' doors are: the fields a join records of a door, which only a door may read, each text a door can
carry (a vendor's ids in the usual form of a UUID); a letter on its way through one (Delivery), which each room makes
for its own; and the two ways a knock fails, told apart because only one of them makes a resend safe."""

import abc

from postbag import contract
from postbag.refusal import Refusal

_HEX = frozenset("0123456789abcdefABCDEF")


def is_door_field(value):
    """Whether a door can carry `value`: a NUL cannot travel in a socket path or an argument."""
    return value != "" and "\0" not in value and is_text(value)


def is_text(value):
    """Whether every string in `value` (a record, or a string) is valid Unicode text."""
    if type(value) is dict:
        return all(is_text(v) for v in value.values() if type(v) is str)
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


def is_uuid(text):
    """Whether `text` is a UUID in its usual form: how both vendors spell session and thread ids."""
    parts = text.split("-")
    return [len(part) for part in parts] == [8, 4, 4, 4, 12] and all(c in _HEX for c in "".join(parts))


def not_answered(peer, reason):
    """The refusal of a knock that handed nothing over: after the peer rejoins, sending again is safe."""
    return Refusal(
        f"{contract.door_did_not_answer(peer)} ({reason}); if its session restarted it must run: postbag join {peer}"
    )


def maybe_delivered(peer, reason):
    """The refusal of a knock that failed after the door may have taken the letter: a second send could deliver it
    twice. Neither door says whether the agent read it."""
    return Refusal(
        f"{peer}'s door failed after taking the letter ({reason}): it may already have "
        f"reached {peer}, and it was not recorded; do not resend before checking {peer}'s "
        "session and postbag read"
    )


class Delivery(abc.ABC):
    """One letter on its way through a room's door. Made before the knock, when it may read the recipient's records
    and go on reading beside the knock; then `knock`; then, once the letter is recorded, `note`; and `finish`, once
    the send has its answer or its refusal, so that whatever it reads beside the knock ends with it."""

    @abc.abstractmethod
    def knock(self, envelope, sandbox):
        """Hand `envelope` to the door; `sandbox` is the Sandbox around the sender, or None. A Refusal where it fails:
        `maybe_delivered` where the door may have taken the letter; any other (`not_answered`, a sandbox that blocks
        the knock, a client that cannot be run, a letter too long to pass) where nothing was handed over."""

    def recorded(self):
        """What the letter's record keeps of the door's answer, as fields: none by default."""
        return {}

    def note(self, letter):
        """What the send adds, in words, once `letter` (its record) is recorded, or None."""
        return None

    def finish(self):
        """End whatever the delivery still reads: nothing, by default."""
        return
