"""The verbs, whoever calls them: each takes `here` (what the process gives it, its environment above all), reads
and writes the ledger under its lock, and returns what it did in words, or raises a Refusal. What a vendor's records
say is read after the lock is released: those files are the vendor's, and may take a moment.

The command line (cli.py) and the MCP server (mcp.py) are two ways in; neither decides anything these functions
decide. What is asked of a peer's door and records is asked of its room (vendors.room), which the exchange's
switches go to. Each verb stands in a module of its own, imported where it is used: an agent's `read` loads no other
verb.
"""
