"""The documents say what the program does: every refusal has a troubleshooting row."""

import ast
import os
import re

from conftest import ROOT

SOURCES = os.path.join(ROOT, "src", "postbag")


def refusal_templates():
    """Every message a Refusal can carry, as the literal pieces between its placeholders."""
    found = []
    for name in sorted(os.listdir(SOURCES)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(SOURCES, name)) as file:
            tree = ast.parse(file.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refusal" and node.args:
                found.append(node.args[0])
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(getattr(t, "id", None) == "reason" for t in targets):
                    found.append(node.value)
            elif isinstance(node, ast.FunctionDef) and node.name == "truncated":
                found.extend(n.value for n in ast.walk(node) if isinstance(n, ast.Return))
    pieces = []
    for node in found:
        parts = node.values if isinstance(node, ast.JoinedStr) else [node]
        literal = [p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)]
        if literal:
            pieces.append(literal)
    return pieces


def troubleshooting_rows():
    with open(os.path.join(ROOT, "README.md")) as file:
        text = file.read()
    table = text.split("## Troubleshooting", 1)[1].split("\n## ", 1)[0]
    return [row for row in table.splitlines() if row.startswith("| `")]


def said_anywhere():
    """Every string the sources hold, a placeholder of an f-string written as \\x00."""
    texts = []
    for name in sorted(os.listdir(SOURCES)):
        if name.endswith(".py"):
            with open(os.path.join(SOURCES, name)) as file:
                tree = ast.parse(file.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.JoinedStr):
                    texts.append("".join(p.value if isinstance(p, ast.Constant) else "\x00" for p in node.values))
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    texts.append(node.value)
    return "\x01".join(texts)


def test_every_refusal_has_a_troubleshooting_row():
    rows = " ".join(troubleshooting_rows())
    missing = []
    for pieces in refusal_templates():
        fragments = [f.strip() for piece in pieces for f in re.split(r"[(;]", piece) if len(f.strip()) >= 8]
        if fragments and fragments[0][:40] not in rows:
            missing.append(fragments[0])
    assert missing == []


def test_every_row_quotes_words_postbag_really_says():
    said = said_anywhere()
    for row in troubleshooting_rows():
        for quoted in re.findall(r"`([^`]+)`", row.split(" | ")[0]):
            if quoted.startswith(("postbag ", "unset ", "sandbox_workspace_write", "- <")):
                continue  # a command or a setting to type, not words postbag says
            for piece in re.split(r"…|\bN\b|\bNAME\b|\bPATH\b|; |: | \(|\)|\.\.\.", quoted):
                phrase = piece.strip(" .,")
                if len(phrase) < 4:
                    continue
                # Peers and verbs, alone or in a run ("send codex"), stand where the sources have a placeholder.
                word = r"(?:claude|codex|open|join|send)"
                pattern = re.sub(rf"\b{word}(?:\\ {word})*\b", lambda m: f"(?:{m.group()}|\x00)", re.escape(phrase))
                pattern = re.sub(r"\d[\d,]*", lambda m: f"(?:{m.group()}|\x00)", pattern)  # so do numbers
                pattern = re.sub(r"\b[A-Z][A-Z_]{3,}\b", lambda m: f"(?:{m.group()}|\x00)", pattern)
                assert re.search(pattern, said), (row, phrase)


def test_every_test_security_names_exists():
    """SECURITY.md proves each defence by naming its tests: each named test must be there."""
    with open(os.path.join(ROOT, "SECURITY.md")) as file:
        text = file.read()
    tests = os.path.join(ROOT, "tests")
    defined = {}
    for name in os.listdir(tests):
        if name.startswith("test_") and name.endswith(".py"):
            with open(os.path.join(tests, name)) as file:
                tree = ast.parse(file.read())
            defined[name] = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    missing, named = [], 0
    for row in text.splitlines():
        file_name = None
        for given, test in re.findall(r"`(test_\w+\.py)?::(test_\w+)`", row):
            file_name = given or file_name
            named += 1
            if test not in defined.get(file_name, ()):
                missing.append(f"{file_name}::{test}")
    assert named > 20 and missing == []
