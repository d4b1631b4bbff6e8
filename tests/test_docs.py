"""The documents say what the program does: every refusal has a troubleshooting row."""

import ast
import os
import re
import textwrap

import graph
from helpers import ROOT


def refusal_templates(sources=None):
    """Every message a Refusal can carry, as the literal pieces between its placeholders:
    each Refusal(...) call's argument, followed where it is a name (what was assigned to
    it in the same function), an entry of a table (the table's values) or a call of one of
    postbag's own functions (what that function returns). A reason made of the system's
    words alone (an OSError's strerror) carries none of postbag's."""
    trees = sources or [graph.parsed(ROOT, name) for name in graph.module_names(ROOT)]
    functions = {n.name: n for tree in trees for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    tables = {
        target.id: node.value
        for tree in trees
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    pieces = []
    for tree in trees:
        for function in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))]:
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refusal" and node.args:
                    for message in _messages(node.args[0], function, functions, tables):
                        parts = message.values if isinstance(message, ast.JoinedStr) else [message]
                        literal = [p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)]
                        if literal and literal not in pieces:
                            pieces.append(literal)
    return pieces


def _messages(node, function, functions, tables, depth=0):
    """The string expressions `node` can stand for."""
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        return [node]
    if depth > 2:
        return []
    found = []
    if isinstance(node, ast.Name):
        for assigned in ast.walk(function):
            targets = assigned.targets if isinstance(assigned, ast.Assign) else [getattr(assigned, "target", None)]
            if isinstance(assigned, (ast.Assign, ast.AugAssign)) and any(
                getattr(t, "id", None) == node.id for t in targets
            ):
                found += _messages(assigned.value, function, functions, tables, depth + 1)
    elif isinstance(node, ast.Subscript) and getattr(node.value, "id", None) in tables:
        for value in tables[node.value.id].values:
            found += _messages(value, function, functions, tables, depth + 1)
    elif isinstance(node, ast.Call):
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if name in functions:
            for returned in ast.walk(functions[name]):
                if isinstance(returned, ast.Return) and returned.value is not None:
                    found += _messages(returned.value, functions[name], functions, tables, depth + 1)
    return found


def test_the_refusal_finder_follows_a_reason_built_before_it_is_raised():
    source = ast.parse(
        textwrap.dedent(
            """
            WORDS = {"a": "the first reason", "b": f"the {second} reason"}

            def told(x):
                return f"told of {x}"

            def verb(x, key):
                why = f"cannot do {x}"
                why += "; really"
                if x:
                    raise Refusal(why)
                if key:
                    raise Refusal(WORDS[key])
                raise Refusal(told(x))
            """
        )
    )
    assert sorted(refusal_templates([source])) == [
        ["; really"],
        ["cannot do "],
        ["the ", " reason"],
        ["the first reason"],
        ["told of "],
    ]


def troubleshooting_rows():
    """The rows of docs/troubleshooting.md's table of refusals."""
    with open(os.path.join(ROOT, "docs", "troubleshooting.md")) as file:
        text = file.read()
    table = text.split("## Refusals", 1)[1].split("\n## ", 1)[0]
    return [row for row in table.splitlines() if row.startswith("| `")]


def said_anywhere():
    """Every string the sources hold, each placeholder written as \\x00: an f-string's."""
    texts = []
    for name in graph.module_names(ROOT):
        for node in ast.walk(graph.parsed(ROOT, name)):
            if isinstance(node, ast.JoinedStr):
                texts.append("".join(p.value if isinstance(p, ast.Constant) else "\x00" for p in node.values))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                texts.append(re.sub(r"\{[a-z_]*(?::[^}]*)?\}", "\x00", node.value))
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
    from postbag.vendors import VENDORS

    said = said_anywhere()
    # Words a refusal takes from the vendors where the sources hold a placeholder.
    sessions = [each.SESSION_NAME for each in VENDORS.values()]
    sandboxes = [each.SANDBOX["name"] for each in VENDORS.values() if each.SANDBOX]
    named = [" nor ".join(sessions), " and ".join(sessions), *sandboxes, *(each.CLIENT for each in VENDORS.values())]
    filled = [re.escape(words) for words in named]
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
                for name in filled:
                    pattern = pattern.replace(name, f"(?:{name}|\x00)")
                assert re.search(pattern, said), (row, phrase)


def test_every_test_security_names_exists():
    """SECURITY.md proves each defence by naming its tests: each named test must be there."""
    with open(os.path.join(ROOT, "SECURITY.md")) as file:
        text = file.read()
    tests = os.path.join(ROOT, "tests")
    defined = {}
    for folder, _, names in os.walk(tests):
        for name in names:
            if name.startswith("test_") and name.endswith(".py"):
                with open(os.path.join(folder, name)) as file:
                    tree = ast.parse(file.read())
                named = os.path.relpath(os.path.join(folder, name), tests)
                defined[named] = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    missing, named = [], 0
    for row in text.splitlines():
        file_name = None
        for given, test in re.findall(r"`((?:real/)?test_\w+\.py)?::(test_\w+)`", row):
            file_name = given or file_name
            named += 1
            if test not in defined.get(file_name, ()):
                missing.append(f"{file_name}::{test}")
    assert named > 20 and missing == []


def test_the_readmes_version_table_says_what_the_tier_proves():
    """Each range in README's table is the rooms' own: the tier runs on the pairs made of
    them (tests/clients/pins.py), and an unknown receipt calls them proven."""
    from postbag.claude.room import HOLDS_SINCE
    from postbag.codex.wake import WAKES_SINCE
    from postbag.vendors import all_rooms

    rooms = all_rooms()
    claude, codex = rooms["claude"], rooms["codex"]

    with open(os.path.join(ROOT, "README.md")) as file:
        readme = file.read()
    table = readme[readme.index("### Which client versions") :].split("\n\n")[2]
    cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in table.splitlines()[2:]]
    rows = {name: versions for name, *versions in cells}
    proven = [f"{oldest} to {newest}" for oldest, newest in (claude.PROVEN, codex.PROVEN)]
    for capability in ("its door", "the MCP server", "the records receipts"):
        [versions] = [versions for name, versions in rows.items() if name.startswith(capability)]
        assert versions == proven, capability
    [hold] = [versions for name, versions in rows.items() if "hold, keeping" in name]
    assert hold == [f"{HOLDS_SINCE} to {claude.PROVEN[1]}", ""]
    [word] = [versions for name, versions in rows.items() if "word" in name]
    assert word == [f"{claude.PROVEN[0]} to {claude.PROVEN[1]}", ""]
    [wake] = [versions for name, versions in rows.items() if name.startswith("waking")]
    assert wake == ["", f"{WAKES_SINCE} to {codex.PROVEN[1]}"]
    # What Install asks for first: the clients, in the range the doors and records are proven on.
    install = " ".join(readme[readme.index("## Install") : readme.index("Then download")].split())
    assert f"Codex {proven[1]} (Node 16 or later), and Claude Code {proven[0]}." in install


def test_every_module_imports_only_from_its_layer_and_below_and_no_circle_runs_through_them():
    layers = graph.layers(ROOT)
    modules = [name for name in graph.module_names(ROOT) if name != "__init__.py"]  # the package's name and version
    assert sorted(layers) == modules, "CONCEPT.md's module table and src/postbag differ"
    imports = {name: graph.imports_of(ROOT, name, set(modules)) for name in modules}
    upward = [(name, imported) for name in modules for imported in imports[name] if layers[imported] < layers[name]]
    assert upward == []
    path, seen = [], set()

    def visit(name):
        assert name not in path, f"an import circle: {' -> '.join([*path[path.index(name) :], name])}"
        if name in seen:
            return
        path.append(name)
        for imported in sorted(imports[name]):
            visit(imported)
        path.pop()
        seen.add(name)

    for name in modules:
        visit(name)


# Names that more than one module defines, each the same thing in each: what each vendor's
# package declares (and vendors.py gathers over both) and its room answers; what every room
# says of itself; 1.0's name for the entry point; and attributes that are, in each class
# that has them, its own of the same kind (a path, a name, its help, why, its state...).
EACH_VENDORS = {
    "CLIENT", "DELIVERED", "DOOR_VARIABLES", "FILES", "INSTALLING", "LETTER_MOST", "MARKS", "NAME", "PROGRAM",
    "PROVEN", "SANDBOX", "SEND_TOOL", "SERVER_NAME", "SESSION", "SESSION_NAME", "SWITCHES", "VARIABLES",
    "door_in", "inside", "is_session_variable", "knock", "took", "version_of", "main",
}  # fmt: skip
OF_THE_SAME_KIND = {
    ".PROVEN", ".SEND_TOOL", ".__slots__", ".clock", ".data", ".env", ".fd", ".help", ".here", ".identity",
    ".installing", ".name", ".news", ".path", ".room", ".state", ".switches", ".usage", ".why",
}  # fmt: skip


def defined_names(tree):
    """Every name a module of `tree` defines, by the modules that define it: its functions,
    classes and constants, and, as ".NAME", its classes' attributes."""
    defined = {}

    def add(name, module):
        defined.setdefault(name, set()).add(module)

    def targets(node):
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            yield from target.elts if isinstance(target, ast.Tuple) else [target]

    for module in graph.module_names(tree):
        for node in graph.parsed(tree, module).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                add(node.name, module)
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                for target in targets(node):
                    if isinstance(target, ast.Name):
                        add(target.id, module)
            if isinstance(node, ast.ClassDef):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Attribute) and isinstance(inner.ctx, ast.Store):
                        add("." + inner.attr, module)
                    if isinstance(inner, (ast.Assign, ast.AnnAssign)) and inner in node.body:
                        for target in targets(inner):
                            if isinstance(target, ast.Name):
                                add("." + target.id, module)
    return defined


def test_no_two_modules_give_one_name_to_two_things():
    shared = {name: modules for name, modules in defined_names(ROOT).items() if len(modules) > 1}
    assert sorted(set(shared) - EACH_VENDORS - OF_THE_SAME_KIND) == [], shared


def test_the_readme_installs_each_client_as_setup_and_doctor_say_to():
    """README's install commands are the ones setup and doctor give for a client outside PROVEN."""
    from postbag.claude import client as claude
    from postbag.codex import client as codex

    with open(os.path.join(ROOT, "README.md")) as file:
        install = file.read().split("## Install")[1].split("## ")[0]
    commands = [line for block in install.split("```sh\n")[1:] for line in block.split("```")[0].splitlines()]
    for client in (claude, codex):
        assert client.INSTALLING.partition(" (")[0] in commands, client.INSTALLING
