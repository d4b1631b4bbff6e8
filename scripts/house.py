#!/usr/bin/env python3
"""The shape of the code, in figures: how many modules and lines (in all, and in each of
the largest), the floors its imports stack into and the longest chain of them, the
layers CONCEPT.md gives the modules, the imports between them (and any that run back up a
layer), one send followed through the modules that are handed `here`, the process's
inputs, and, with --suite, how long the test suite takes.

    python3 scripts/house.py [--tree DIR] [--suite]

A floor is a room above every room it imports; a room is a module, or a package's folder
of them (claude/, codex/, verbs/), counted as one, as a vendor's folder is one room.

--tree measures another checkout of postbag (an older commit, say) with this script. A
send is followed in a child Python, against the test suite's fake Claude inbox: every
call of postbag's code that is given a Here, or is a method of something holding one,
counts as a stay in its module; a move to a module of a layer above the one before is a
climb back up. It also counts how often a send asks whether the ledger is the default.
"""

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile

THREAD = "019a1b2c-3d4e-7f50-8a6b-7c8d9e0f1a2b"  # the sending Codex thread
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))  # the suite's fake inbox and module graph
import graph  # noqa: E402

# Run in the child: the send, with a profile that notes each call handed a Here.
FOLLOW = """
import json, sys
stays, defaults = [], [0]

def handed_here(frame):
    code = frame.f_code
    named = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    values = [frame.f_locals.get(name) for name in named]
    return any(type(v).__name__ == "Here" or type(getattr(v, "here", None)).__name__ == "Here" for v in values)

def profile(frame, event, arg):
    module = frame.f_globals.get("__name__", "")
    if event != "call" or not module.startswith("postbag"):
        return
    defaults[0] += frame.f_code.co_name == "is_default"
    # Here's own methods are the inputs themselves, not a module they pass through.
    if module != "postbag.here" and handed_here(frame) and (not stays or stays[-1] != module):
        stays.append(module)

sys.setprofile(profile)
from postbag.cli import main
status = main(["send", "claude", "Followed through the house."])
sys.setprofile(None)
with open(sys.argv[1], "w") as file:
    json.dump({"status": status, "stays": stays, "is_default": defaults[0]}, file)
"""


def follow_a_send(tree, work):
    """What the child's send passed through, with a joined claude behind a fake inbox."""
    import fakes

    inbox = fakes.FakeInbox(os.path.join(work, "inbox.sock"), "t" * 32)
    ledger = os.path.join(work, "ledger.jsonl")
    at = "2026-09-08T10:02:11+02:00"
    lines = [
        {"n": 1, "at": at, "kind": "open", "limit": 12},
        {"n": 2, "at": at, "kind": "join", "peer": "claude", **inbox.door()},
        {"n": 3, "at": at, "kind": "join", "peer": "codex", "thread": THREAD},
    ]
    with open(ledger, "w") as file:
        file.writelines(json.dumps(line) + "\n" for line in lines)
    out = os.path.join(work, "followed.json")
    src = os.path.join(tree, "src")
    env = fakes.terminal_environment(POSTBAG_LEDGER=ledger, CODEX_THREAD_ID=THREAD, PYTHONPATH=src)
    try:
        subprocess.run([sys.executable, "-c", FOLLOW, out], env=env, cwd=work, check=True, capture_output=True)
    finally:
        inbox.close()
    with open(out) as file:
        return json.load(file)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--suite", action="store_true", help="time the test suite too (hatch test, no real clients)")
    options = parser.parse_args()
    tree = options.tree
    modules = [name for name in graph.module_names(tree) if name != "__init__.py"]
    depth = graph.layers(tree)
    imports = {name: graph.imports_of(tree, name, set(modules)) for name in modules}
    upward = sum(depth[imported] < depth[name] for name in modules for imported in imports[name])
    lines = {name: _lines(tree, name) for name in modules}
    print(f"modules: {len(modules)}, in {len(set(depth.values()))} layers; lines: {sum(lines.values())}")
    print("largest: " + ", ".join(f"{name} {count}" for name, count in sorted(lines.items(), key=lambda x: -x[1])[:4]))
    print(f"modules over 300 lines: {sum(count > 300 for count in lines.values())}")
    print(f"imports between them: {sum(map(len, imports.values()))}, of which run back up a layer: {upward}")
    floors, chain = _floors(imports)
    print(f"floors: {floors}, the longest chain: {' > '.join(chain)}")
    with tempfile.TemporaryDirectory(prefix="postbag-house-") as work:
        followed = follow_a_send(tree, work)
    stays = followed["stays"]
    climbs = sum(depth[_path(after)] < depth[_path(before)] for before, after in itertools.pairwise(stays))
    print(
        f"a send (exit {followed['status']}): `here` passes through {len(set(stays))} modules in {len(stays)} stays, "
        f"climbs back up {climbs} times, asks is_default {followed['is_default']} times"
    )
    print("  " + " > ".join(name.removeprefix("postbag.") for name in stays))
    rooms = {_room(_path(name)) for name in stays}
    print(f"  the rooms it enters, a package's folder counted as one: {len(rooms)}")
    if options.suite:
        print(f"the suite: {_suite_seconds(tree):.0f} s (hatch test -- --ignore=tests/real)")


def _room(path):
    """The room a module stands in: its package's folder, else itself."""
    return path.split("/")[0] + "/" if "/" in path else path


def _floors(imports):
    """How many floors the rooms stack into, each above every room it imports (floor 1
    imports none), and the longest chain of imports, from the top."""
    edges = {}
    for name, imported in imports.items():
        edges.setdefault(_room(name), set()).update(_room(each) for each in imported if _room(each) != _room(name))
    floor = {}

    def floor_of(room):
        if room not in floor:
            below = [floor_of(each) for each in edges.get(room, ())]
            floor[room] = 1 + max(below, default=0)
        return floor[room]

    top = max(edges, key=floor_of)
    chain = [top]
    while edges.get(chain[-1]):
        chain.append(max(edges[chain[-1]], key=floor_of))
    return floor[top], chain


def _suite_seconds(tree):
    import time

    started = time.monotonic()
    subprocess.run(["hatch", "test", "--", "--ignore=tests/real", "-q"], cwd=tree, check=False, capture_output=True)
    return time.monotonic() - started


def _lines(tree, name):
    with open(os.path.join(tree, "src", "postbag", name)) as file:
        return sum(1 for _ in file)


def _path(module):
    """A module's path under src/postbag, as CONCEPT.md's table names it."""
    place = module.removeprefix("postbag.").replace(".", "/")
    return f"{place}/__init__.py" if place in ("claude", "codex", "verbs") else f"{place}.py"


if __name__ == "__main__":
    main()
