"""The ledger file's bytes, passed over once in blocks and read back where a verb looks.

A verb needs the line count (to number the last record) and a few lines near the end, rarely more; whatever else it
asks for is read back, from the same locked descriptor, when asked. Nothing here knows what a record is."""

import os

from postbag.refusal import Refusal

# Bytes read at a time: blocks that stay in the processor's cache cost less than the whole file in fresh memory.
# 64 KiB passed over 17 MB a little faster here than 32, 128 or 256.
BLOCK = 1 << 16
# Blocks read at a time by a search that goes far back: fewer reads, each byte read once.
STRETCH = 2


class LineIndex:
    """The bytes of the file open at `fd`, which the caller keeps locked (None: no file). `count` is its newlines and
    `size` the bytes they end. The end of the file is kept (`_tail`, from byte `_tail_at`, with every line appended
    since); a mark (offset, newlines before it) starts each block, so any line is numbered from the nearest mark."""

    def __init__(self, fd, path, block=None):
        self.fd, self.path, self.block = fd, path, block or BLOCK
        self.count, self._marks, self._tail_at, self._tail = self._pass()
        self._near = (0, b"")  # the bytes read back last, and where they start
        self._numbered = (-1, 0)  # where the line numbered last starts, and its number

    @property
    def size(self):
        """The bytes of the lines kept: where the kept tail ends, the whole of it."""
        return self._tail_at + len(self._tail)

    def _pass(self):
        marks, count, offset = [], 0, 0
        if self.fd is None:  # no file: no lines
            return count, [(0, 0)], 0, b""
        try:
            while data := os.read(self.fd, self.block):
                marks.append((offset, count))
                # Faster than count(), which looks at each byte: replace() finds each newline with memchr.
                count += len(data) - len(data.replace(b"\n", b""))
                offset += len(data)
            # Read again rather than kept: a block kept alive makes every later one fresh memory.
            tail_at = max(0, offset - 2 * self.block)
            tail = os.pread(self.fd, offset - tail_at, tail_at)
        except OSError as error:
            raise self._unreadable(error) from None
        return count, marks or [(0, 0)], tail_at, tail

    def last_lines(self, count):
        """Where the last `count` whole lines start and end (at their newline), newest first; the kept end grows to hold
        them."""
        while True:
            data, at, bounds = self._tail, self._tail_at, []
            start = len(data)
            while len(bounds) < count:
                end = start - 1
                start = data.rfind(b"\n", 0, end) + 1
                if start == 0 and at > 0:  # its start may lie before what is kept
                    break
                bounds.append((at + start, at + end))
            if len(bounds) == count:
                return bounds
            self._keep_more()

    def rfind(self, token, before):
        """The offset of the last `token` that ends by byte `before`, or -1, searched back a stretch at a time."""
        end = start = before  # the search has looked from `start` to `before`
        while start > 0:
            data, start = self._bytes_from_before(start, end)
            hit = data.rfind(token, 0, end - start)
            if hit >= 0:
                return start + hit
            end = start + len(token) - 1  # a token across `start` is found in the next stretch
        return -1

    def _bytes_from_before(self, start, end):
        """A buffer that starts before byte `start` and runs to `end` or further, and its offset: the kept end, the
        bytes read back last, or else the stretch of blocks before `end`, kept until the next read back."""
        if self._tail_at < start:
            return self._tail, self._tail_at
        at, data = self._near
        if not (at < start and end <= at + len(data)):
            at = max(0, start - STRETCH * self.block)
            data = self._pread(end - at, at)
            self._near = (at, data)
        return data, at

    def line_around(self, offset):
        """Where the whole line holding byte `offset` starts, and where its newline is."""
        return self.rfind(b"\n", offset) + 1, self._find_newline(offset)

    def _find_newline(self, start):
        lo = start
        while lo < self.size:
            hi = min(self.size, lo + self.block)
            data, at = self._bytes_near(lo, hi)
            hit = data.find(b"\n", lo - at, hi - at)
            if hit >= 0:
                return at + hit
            lo = hi
        return self.size

    def line_number(self, start):
        """The number of the line that starts at byte `start`, counted from the mark before it, or back from the line
        numbered last where that lies after it and nearer (as when looking back through many lines)."""
        from bisect import bisect_right

        mark, newlines_before = self._marks[bisect_right(self._marks, start, key=lambda each: each[0]) - 1]
        last, numbered = self._numbered
        if 0 <= last - start < start - mark:
            data, at = self._bytes_near(start, last)
            number = numbered - data.count(b"\n", start - at, last - at)
        else:
            data, at = self._bytes_near(mark, start)
            number = newlines_before + data.count(b"\n", mark - at, start - at) + 1
        self._numbered = (start, number)
        return number

    def bytes(self, lo, hi):
        """The file's bytes lo to hi: a stretch longer than a block is read at once."""
        if lo == self._tail_at and hi == self.size:
            return self._tail
        if lo < self._tail_at and hi - lo > self.block:
            return self._pread(hi - lo, lo)
        data, at = self._bytes_near(lo, hi)
        return data[lo - at : hi - at]

    def pieces(self, lo):
        """The whole lines from byte `lo` (a line's start) to the end, in pieces of about a block, each ending at a
        newline: a verb that goes through many lines holds a piece at a time, not all of them."""
        while lo < self.size:
            end = min(self.size, lo + self.block)
            data = self.bytes(lo, end) if lo >= self._tail_at else self._pread(end - lo, lo)
            cut = data.rfind(b"\n") + 1
            while not cut:  # a line longer than a block: take in more until it ends
                end = min(self.size, end + len(data))
                data = self._pread(end - lo, lo)
                cut = data.rfind(b"\n") + 1
            yield data[:cut]
            lo += cut

    def _bytes_near(self, lo, hi):
        """A buffer holding bytes lo to hi, and its offset: the kept end, or else the whole blocks around them and one
        more each side, kept until the next read back. Looking back through many lines asks for bytes near each other
        again and again: a line's start, its end, its number, the next token."""
        if lo >= self._tail_at:
            return self._tail, self._tail_at
        at, data = self._near
        if not (at <= lo and hi <= at + len(data)):
            # hi - hi % -block: the start of the first block at or after hi
            first = max(0, lo - lo % self.block - self.block)
            last = max(hi, min(self.size, hi - hi % -self.block + self.block))
            at, data = first, self._pread(last - first, first)
            self._near = (at, data)
        return data, at

    def _keep_more(self):
        """Keep as many bytes again before the kept end, for a verb that needs more lines of it."""
        at = max(0, self._tail_at - max(len(self._tail), self.block))
        self._tail = self._pread(self._tail_at - at, at) + self._tail
        self._tail_at = at

    def unended_line(self):
        """The bytes after the last newline: a line still without its own, or b""."""
        while self._tail_at > 0 and b"\n" not in self._tail:
            self._keep_more()
        return self._tail[self._tail.rfind(b"\n") + 1 :]

    def set_aside(self, unended):
        """Leave out the `unended` last line: `size` ends at the last newline."""
        self._tail = self._tail[: len(self._tail) - len(unended)]

    def appended(self, line):
        """`line`, a whole line, was appended to the file."""
        self._tail += line
        self.count += 1

    def _pread(self, size, offset):
        if self.fd is None:
            raise ValueError("the ledger was closed: nothing more can be read from it")
        try:
            return os.pread(self.fd, size, offset)
        except OSError as error:
            raise self._unreadable(error) from None

    def _unreadable(self, error):
        return Refusal(f"cannot read the ledger ({error.strerror}: {self.path})")
