"""python3 tests/clients install [PAIR]: a pair of clients and the TypeScript SDK, into .cache/clients.
python3 tests/clients latest: the pair npm calls latest now, as POSTBAG_CLIENTS spells it.
python3 tests/clients link DIR: claude and codex of the pair (POSTBAG_CLIENTS), linked into DIR,
as a person's PATH has them.
python3 tests/clients canary [--dry-run]: what npm has published against what postbag claims, and
the tier on each newest build not claimed yet (canary.py)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "src"))  # the rooms' PROVEN
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))  # tests/, for helpers

from clients.pins import (
    CHOOSER,
    PACKAGES,
    SDK,
    claude_binary,
    codex_binary,
    install,
    installed_version,
    latest,
    pair_of,
)

USAGE = (
    "usage: python3 tests/clients install [newest | oldest | oldest-whole | claude@VERSION,codex@VERSION] "
    "| latest | link DIR | canary [--dry-run]"
)
arguments = sys.argv[1:]
if arguments == ["latest"]:
    print(latest())
elif arguments[:1] == ["install"] and len(arguments) <= 2:
    pair = pair_of(arguments[1] if len(arguments) == 2 else os.environ.get(CHOOSER) or "newest")
    wanted = {PACKAGES[peer]: version for peer, version in pair.items()}
    install({peer: (PACKAGES[peer], version) for peer, version in pair.items()})
    print(", ".join(f"{name}@{installed_version(name, version)}" for name, version in [*wanted.items(), SDK]))
elif arguments[:1] == ["link"] and len(arguments) == 2:
    os.makedirs(arguments[1], exist_ok=True)
    for name, binary in (("claude", claude_binary()), ("codex", codex_binary())):
        os.symlink(os.path.abspath(binary), os.path.join(arguments[1], name))
elif arguments[:1] == ["canary"] and arguments[1:] in ([], ["--dry-run"]):
    from clients.canary import main

    sys.exit(main(dry_run=arguments[1:] == ["--dry-run"]))
else:
    raise SystemExit(USAGE)
