"""python3 tests/clients install: the pinned clients, into .cache/clients."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/, for helpers

from clients.pins import PINS, install, installed_version

if sys.argv[1:] != ["install"]:
    raise SystemExit("usage: python3 tests/clients install")
install()
print(", ".join(f"{name}@{installed_version(peer)}" for peer, (name, _) in PINS.items()))
