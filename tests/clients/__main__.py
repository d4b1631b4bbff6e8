"""python3 tests/clients install: the pinned clients and the TypeScript SDK, into .cache/clients."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/, for helpers

from clients.pins import PINS, SDK, install, installed_version

if sys.argv[1:] != ["install"]:
    raise SystemExit("usage: python3 tests/clients install")
install()
print(", ".join(f"{name}@{installed_version(name)}" for name, _ in [*PINS.values(), SDK]))
