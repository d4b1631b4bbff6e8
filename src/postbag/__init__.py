"""postbag: two coding agents on one machine correspond by letters."""

__version__ = "1.1.0"

PEERS = ("claude", "codex")
