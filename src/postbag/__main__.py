# The entry point of every install: the `postbag` console script, `python -m postbag`, and, copied to the archive's
# root, postbag.pyz. Old interpreters parse this file before they can refuse to run it, so it keeps to syntax they know.
import sys


def run(argv=None):
    if sys.version_info < (3, 10):
        sys.stderr.write("postbag needs Python 3.10 or later (this is %d.%d)\n" % tuple(sys.version_info[:2]))
        return 1
    argv = sys.argv[1:] if argv is None else list(argv)
    _load_compiled_code()
    # Agents call postbag often: what needs no argument parsing is answered before the rest of postbag loads.
    if argv == ["--version"]:
        from postbag import __version__

        sys.stdout.write("postbag %s\n" % __version__)
        return 0
    from postbag import guards  # every verb loads it: the vendors' packages it reads import nothing

    if argv[:1] and argv[0] in guards.HUMAN_VERBS:
        import posix

        from postbag import refusal

        # The names os.environ would hold, without importing os, which costs a refusal more than the rest of it
        # (its environ mapping pulls in collections.abc).
        encoding = sys.getfilesystemencoding()
        names = {name.decode(encoding, "surrogateescape") for name in posix.environ}
        try:
            guards.require_human_first(argv, names)
        except refusal.Refusal as reason:
            return refusal.stop(reason, sys.stderr)
    from postbag.cli import main

    return main(argv)


def _load_compiled_code():
    """Inside postbag.pyz, run each module from the code compiled for this Python, where the archive holds it whole
    (postbag/launch.py): a zip holds no __pycache__, so its sources would be compiled again on every run. The code is
    left as __compiled__ among these globals, by the launcher or below; elsewhere, or for other Pythons, none is."""
    compiled = globals().get("__compiled__")
    if compiled and not any(isinstance(finder, _CompiledCode) for finder in sys.meta_path):
        sys.meta_path.insert(0, _CompiledCode(__file__.rpartition("/")[0], compiled))


class _CompiledCode:
    """Finds postbag's modules in `compiled`, the archive's code for this Python: each module's name to whether it is
    a package and its marshalled code."""

    def __init__(self, archive, compiled):
        self.archive, self.compiled = archive, compiled

    def find_spec(self, name, path=None, target=None):
        if name not in self.compiled:
            return None
        is_package, code = self.compiled[name]
        place = "%s/%s" % (self.archive, name.replace(".", "/"))
        source = place + ("/__init__.py" if is_package else ".py")
        spec = module_spec(name, self, source, is_package)
        if is_package:
            spec.submodule_search_locations = [place]
        spec.has_location = True
        spec.loader_state = code
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        import marshal

        # The bytes come from the archive itself, which holds the sources beside them, and passed its check
        # (launch.compiled_code): they are trusted as far as the sources are.
        exec(marshal.loads(module.__spec__.loader_state), module.__dict__)  # noqa: S102, S302


def module_spec(name, loader, origin, is_package, modules=sys.modules):
    """A ModuleSpec for `name`, made by the import system's own module, which holds the class already:
    importlib.machinery, which names it, imports importlib and warnings, 0.6 ms of every verb. Where that module is
    not there, holds no such class, or the class takes other arguments, importlib.machinery's serves."""
    try:
        return modules["_frozen_importlib"].ModuleSpec(name, loader, origin=origin, is_package=is_package)
    except Exception:  # any of those: the public class serves, and says what is wrong with the call
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, loader, origin=origin, is_package=is_package)


# Run as the archive's __main__.py by `python3 postbag.pyz` (or runpy.run_path), read the code compiled for this
# Python now, while the archive stands on sys.path: run_path takes it off again before its caller calls run().
_archive = getattr(globals().get("__loader__"), "archive", None)
if _archive is not None and "__compiled__" not in globals() and sys.version_info >= (3, 10):
    from postbag import launch

    __compiled__ = launch.compiled_code(__loader__)  # None: the sources run, as Python compiles them

# 1.0's name for the entry point, `main(argv)`, which its scripts and tests call.
main = run

if __name__ == "__main__":
    sys.exit(run())
