"""What every door shares: the two ways a knock fails.

A knock either fails before anything was handed over, when the sender can simply try
again after the peer rejoins, or after the door may have taken the letter, when a second
send could deliver it twice. The two refusals say which. A door that took the letter has
only been handed it: neither door says whether the agent read it. Each peer's own door
is in its room (claude/door.py, codex/door.py).
"""

from postbag.refusal import Refusal


def not_answered(peer, reason):
    return Refusal(
        f"{peer}'s door did not answer ({reason}); if its session restarted it must run: postbag join {peer}"
    )


def maybe_delivered(peer, reason):
    return Refusal(
        f"{peer}'s door failed after taking the letter ({reason}): it may already have reached {peer}, "
        f"and it was not recorded; do not resend before checking {peer}'s session and postbag read"
    )
