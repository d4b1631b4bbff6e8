"""An exchange: the letters a human grants with `open`, and what became of them. The ledger finds the latest from
its records (Ledger.exchange); the verbs ask it whether a letter may go."""

# Why no letter can be sent, as Exchange.barred says it.
NOT_OPENED, CLOSED, SPENT = "not opened", "closed", "spent"
DEFAULT_LIMIT = 12  # letters an exchange grants when the human names no number
# What an open record holds of its own; any other field is a switch the human set (vendors.Switch).
OPEN_FIELDS = ("n", "at", "kind", "limit", "repository")


class Exchange:
    """What the human granted with the latest `open`, and what became of it; `switches`
    are the choices the human made in opening it that a room honours, by field (vendors.Switch)."""

    __slots__ = ("closed", "granted", "opened", "sent", "switches")

    def __init__(self, granted, sent, *, closed=False, opened=True, switches=None):
        self.granted, self.sent, self.closed, self.opened = granted, sent, closed, opened
        self.switches = switches or {}

    @classmethod
    def opened_by(cls, record, later):
        """The exchange the open `record` granted, the `later` records telling what became of it."""
        sent = closed = 0
        for each in later:
            sent += each["kind"] == "letter"
            closed = closed or each["kind"] == "close"
        switches = {field: value for field, value in record.items() if field not in OPEN_FIELDS}
        return cls(record["limit"], sent, closed=bool(closed), switches=switches)

    @property
    def left(self):
        return self.granted - self.sent

    @property
    def barred(self):
        """Why no letter can be sent, NOT_OPENED, CLOSED or SPENT; None while letters are left."""
        if not self.opened:
            return NOT_OPENED
        if self.closed:
            return CLOSED
        if self.left <= 0:
            return SPENT
        return None
