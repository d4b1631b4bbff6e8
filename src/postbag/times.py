"""Time as postbag writes it and as the vendors write it: the ledger stamps local time to the second with its
offset, as 1.0 did; Claude Code and Codex stamp UTC with milliseconds and a Z."""

import time


class Clock:
    """Local time, to the second, with its exact UTC offset, as 1.0's isoformat() wrote it: 2026-09-08T10:02:11+02:00,
    or +01:00:30 where the offset has seconds. The zone is `zone` (a tzinfo), else the process's own (its TZ, else
    the system's), which the C library reads."""

    __slots__ = ("zone",)

    def __init__(self, zone=None):
        self.zone = zone

    def stamp(self, seconds=None):
        """`seconds` since the epoch (default: now) in local time."""
        if self.zone is not None:
            from datetime import datetime

            moment = datetime.fromtimestamp(time.time() if seconds is None else seconds, self.zone)
            return moment.isoformat("T", "seconds")
        moment = time.localtime(seconds)
        offset = moment.tm_gmtoff
        sign = "-" if offset < 0 else "+"
        minutes, leftover = divmod(abs(offset), 60)
        hours, minutes = divmod(minutes, 60)
        zone = f"{sign}{hours:02d}:{minutes:02d}" + (f":{leftover:02d}" if leftover else "")
        return time.strftime("%Y-%m-%dT%H:%M:%S", moment) + zone

    def now(self):
        """Seconds since the epoch, now."""
        return time.time()

    def local(self, text):
        """A vendor's time stamp as the ledger writes times, or None where `text` is none."""
        seconds = moment(text)
        return None if seconds is None else self.stamp(seconds)


def moment(text):
    """Seconds since the epoch of an ISO 8601 time with an offset or a Z, or, without one, in local time (records of
    1.0's own tests name none); None for any other text, which the ledger's records take too."""
    from datetime import datetime

    if type(text) is not str:
        return None
    try:
        return datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text).timestamp()
    except (ValueError, OverflowError, OSError):  # not a time; one past what the system's clock holds
        return None
