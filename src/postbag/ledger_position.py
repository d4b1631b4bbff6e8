"""A place in the ledger, and following the records appended after it (`read --follow`) with no lock held."""

import os
import time

from postbag import ledger_file, records
from postbag.refusal import Refusal


class Position:
    """A place in the ledger file: which file, how far into it, and the next line's number."""

    __slots__ = ("identity", "next_number", "offset", "path")

    def __init__(self, path, identity, offset, next_number):
        self.path, self.identity, self.offset, self.next_number = path, identity, offset, next_number

    def follow(self, interval):
        """Each record appended after this position, as it is appended, checking every `interval` seconds. A ledger
        that does not exist yet is waited for; moving, replacing or cutting the file short ends it with a refusal."""
        fd, identity, offset, number = None, self.identity, self.offset, self.next_number
        try:
            while True:
                if fd is None:
                    fd = ledger_file.open_to_follow(self.path)
                    if fd is None and identity is not None:  # gone since the snapshot was read
                        raise self._moved()
                    if fd is not None and identity is None:
                        status = os.fstat(fd)
                        identity = (status.st_dev, status.st_ino)
                if fd is not None:
                    self._check_followed(fd, identity, offset)
                    grown = ledger_file.read_from(fd, offset)
                    whole = grown.rfind(b"\n") + 1  # a line still being written waits for its newline
                    if whole:
                        yield from records.from_bytes(grown[:whole], number, self.path)
                        offset, number = offset + whole, number + grown.count(b"\n", 0, whole)
                        continue
                time.sleep(interval)
        finally:
            if fd is not None:
                os.close(fd)

    def _moved(self):
        return Refusal(f"the ledger was moved or replaced while read followed it ({self.path})")

    def _check_followed(self, fd, identity, offset):
        try:
            at_the_path = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            at_the_path = None
        if at_the_path is None or (at_the_path.st_dev, at_the_path.st_ino) != identity:
            raise self._moved()
        if os.fstat(fd).st_size < offset:
            raise Refusal(f"the ledger was cut short while read followed it ({self.path})")
