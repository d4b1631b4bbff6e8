# The entry point of every install: the `postbag` console script, `python -m postbag`, and,
# copied to the archive's root, postbag.pyz. Old interpreters parse this file before they
# can refuse to run it, so it keeps to syntax they all know.
import sys


def run(argv=None):
    if sys.version_info < (3, 10):
        sys.stderr.write("postbag needs Python 3.10 or later (this is %d.%d)\n" % tuple(sys.version_info[:2]))
        return 1
    argv = sys.argv[1:] if argv is None else list(argv)
    _load_compiled_code()
    # Agents call postbag often. What needs no argument parsing is answered before the
    # rest of postbag loads: the version, and the human's verbs refused inside a session.
    if argv == ["--version"]:
        from postbag import __version__

        sys.stdout.write("postbag %s\n" % __version__)
        return 0
    if argv[:1] in (["open"], ["close"]):
        import posix

        from postbag import guards, refusal

        # The names os.environ would hold, without importing os, which costs a refusal more
        # than the rest of it (its environ mapping pulls in collections.abc).
        encoding = sys.getfilesystemencoding()
        names = {name.decode(encoding, "surrogateescape") for name in posix.environ}
        try:
            guards.require_human_first(argv, names)
        except refusal.Refusal as reason:
            return refusal.stop(reason)
    from postbag.cli import main

    return main(argv)


def _load_compiled_code():
    """Inside postbag.pyz, run each module from the code compiled for this Python when the
    archive holds it (scripts/build_pyz.py): a zip holds no __pycache__, so its sources
    would be compiled again on every run. Elsewhere, and for other Pythons, nothing changes."""
    archive = getattr(globals().get("__loader__"), "archive", None)
    if archive is None or any(isinstance(finder, _CompiledCode) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, _CompiledCode(__loader__, archive))


class _CompiledCode:
    """Finds postbag's modules among the archive's postbag/__pycache__/NAME.TAG.pyc entries."""

    def __init__(self, archive_loader, archive):
        self.archive_loader, self.archive = archive_loader, archive
        self.magic = sys.modules["_frozen_importlib_external"].MAGIC_NUMBER
        self.tag = sys.implementation.cache_tag

    def find_spec(self, name, path=None, target=None):
        parts = name.split(".")
        if parts[0] != "postbag" or len(parts) > 2:
            return None
        stem = "__init__" if len(parts) == 1 else parts[1]
        try:
            data = self.archive_loader.get_data("postbag/__pycache__/%s.%s.pyc" % (stem, self.tag))
        except OSError:
            return None
        if data[:4] != self.magic:
            return None
        spec = sys.modules["_frozen_importlib"].ModuleSpec(
            name, self, origin="%s/postbag/%s.py" % (self.archive, stem), is_package=len(parts) == 1
        )
        if len(parts) == 1:
            spec.submodule_search_locations = ["%s/postbag" % self.archive]
        spec.has_location = True
        spec.loader_state = data
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        import marshal

        # The bytes come from the archive itself, which holds the sources beside them: they
        # are trusted exactly as far as the sources are.
        exec(marshal.loads(module.__spec__.loader_state[16:]), module.__dict__)  # noqa: S102, S302


if __name__ == "__main__":
    sys.exit(run())
