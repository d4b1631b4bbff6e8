#!/usr/bin/env python3
"""Draw docs/demo.svg, the README's picture of the demo, from a run of it.

    python3 scripts/record_demo.py [--check]

It runs scripts/demo.py (its simulated agents, the real doors, the postbag.pyz people
download) and draws what it printed as a terminal window whose blocks appear one after
another, as they did. What differs from run to run (the temporary directory, the clone's
place, the digest of the repository's place in its ledger's name, the time stamps, how
long it took) is written one fixed way, so that the picture
changes only when what the demo says changes. --check draws nothing and exits 1 when
docs/demo.svg is not what a run draws now (tests/test_demo.py asks the same).
"""

import argparse
import os
import re
import subprocess
import sys
from html import escape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PICTURE = os.path.join(ROOT, "docs", "demo.svg")
WIDTH = 118  # characters a line holds before it is folded
CELL, LINE, PAD, BAR = 7.8, 17, 16, 30  # a character's width, a line's height, the margin, the title bar
STEP = 0.55  # seconds between one block's appearing and the next's
# Who speaks, by the first word of a block, and the colour they speak in.
VOICES = {"human": "#e3b341", "claude": "#d2a8ff", "codex": "#79c0ff"}
FIXED = [
    (re.compile(r"/[^ ]*/postbag-demo-[^/ ]+"), "/tmp/postbag-demo"),
    (re.compile(r"(program  )/[^ ]*/dist/postbag\.pyz( \(just built\))?"), r"\1~/postbag/dist/postbag.pyz"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d"), "2026-12-04T10:30:00+01:00"),
    (re.compile(r"(/work-)[0-9]+(\.jsonl)"), r"\g<1>2151969\2"),  # the inode of the repository's common directory
    (re.compile(r"^Done in [\d.]+ s\.$", re.MULTILINE), "Done in 0.4 s."),
]


def transcript():
    """What the demo prints now, with what differs from run to run written one fixed way."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(("CLAUDE", "CODEX", "POSTBAG_"))}
    played = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "demo.py")], env=env, capture_output=True, text=True, check=True
    ).stdout
    for pattern, fixed in FIXED:
        played = pattern.sub(fixed, played)
    return played.rstrip("\n").split("\n")


def folded(lines):
    """Each line, and the lines it is folded into, as (block number, text)."""
    block = 0
    for whole in lines:
        if whole.split(" ", 1)[0] in VOICES or not whole.strip():
            block += 1
        line = whole
        while len(line) > WIDTH:
            yield block, line[:WIDTH]
            line = " " * 8 + line[WIDTH:]
        yield block, line


def colour(text):
    voice = VOICES.get(text.split(" ", 1)[0])
    if voice:
        return voice
    if "stop and ask the human" in text:
        return "#ff7b72"
    if text.lstrip().startswith("|"):
        return "#8b949e"
    if text.lstrip().startswith("postbag:"):
        return "#7ee787"
    return "#c9d1d9"


def drawn(lines):
    """The SVG of `lines`: a terminal window, each block fading in after the one before."""
    rows = list(folded(lines))
    width = round(2 * PAD + WIDTH * CELL)
    height = BAR + 2 * PAD + LINE * len(rows)
    texts = [
        f'<text x="{PAD}" y="{BAR + PAD + LINE * (at + 1) - 4}" fill="{colour(text)}" '
        f'style="animation-delay:{block * STEP:.2f}s">{escape(text)}</text>'
        for at, (block, text) in enumerate(rows)
    ]
    lights = ("#ff5f56", "#ffbd2e", "#27c93f")
    dots = "".join(f'<circle cx="{16 + 18 * i}" cy="15" r="5.5" fill="{c}"/>' for i, c in enumerate(lights))
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">',
            "<style>text{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre;"
            "opacity:0;animation:shown .25s forwards}@keyframes shown{to{opacity:1}}"
            "@media (prefers-reduced-motion:reduce){text{animation:none;opacity:1}}</style>",
            f'<rect width="{width}" height="{height}" rx="8" fill="#0d1117"/>',
            f'<rect width="{width}" height="{BAR}" rx="8" fill="#161b22"/>{dots}',
            f'<text x="{width / 2}" y="19" fill="#8b949e" text-anchor="middle" style="animation:none;opacity:1">'
            "python3 scripts/demo.py</text>",
            *texts,
            "</svg>",
            "",
        ]
    )


def main():
    parser = argparse.ArgumentParser(description="Draw docs/demo.svg from a run of the demo.")
    parser.add_argument("--check", action="store_true", help="say whether docs/demo.svg is what a run draws now")
    args = parser.parse_args()
    picture = drawn(transcript())
    if args.check:
        with open(PICTURE) as file:
            same = file.read() == picture
        stale = "docs/demo.svg is stale: run scripts/record_demo.py"
        print("docs/demo.svg is what the demo prints now" if same else stale)
        return 0 if same else 1
    with open(PICTURE, "w") as file:
        file.write(picture)
    print(f"drew {os.path.relpath(PICTURE, ROOT)}: {len(picture):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
