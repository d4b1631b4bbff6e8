"""The modules of a postbag tree as a graph: each module's path under src/postbag, the
layer CONCEPT.md's module table puts it in, and the postbag modules it imports anywhere
in its text. test_docs.py holds the tree to its layers; scripts/house.py counts them."""

import ast
import os
import re


def module_names(tree):
    """Every module's path under `tree`'s src/postbag, the rooms' packages' among them."""
    top = os.path.join(tree, "src", "postbag")
    return sorted(
        os.path.relpath(os.path.join(folder, name), top)
        for folder, _, names in os.walk(top)
        for name in names
        if name.endswith(".py")
    )


def parsed(tree, name):
    with open(os.path.join(tree, "src", "postbag", name)) as file:
        return ast.parse(file.read())


def layers(tree):
    """{module path: its layer's depth, 0 the top} from `tree`'s CONCEPT.md module table."""
    with open(os.path.join(tree, "CONCEPT.md")) as file:
        concept = file.read()
    table = concept[concept.index("| Layer | Module | Holds |") :].split("\n\n")[0].splitlines()[2:]
    depth, found = {}, {}
    for row in table:
        layer, modules, _ = (cell.strip() for cell in row.strip().strip("|").split("|", 2))
        depth.setdefault(layer, len(depth))
        for module in re.findall(r"`([\w/]+\.py)`", modules):
            found[module] = depth[layer]
    return found


def imports_of(tree, path, modules):
    """The postbag modules, of `modules`, that the module at `path` imports."""
    found = set()
    for node in ast.walk(parsed(tree, path)):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "postbag":
            names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names if alias.name.split(".")[0] == "postbag"]
        for name in names:
            place = name.replace(".", "/").removeprefix("postbag/")  # a module's file, or a package's folder
            found.update(each for each in (f"{place}.py", f"{place}/__init__.py") if each in modules)
    return found - {path}
