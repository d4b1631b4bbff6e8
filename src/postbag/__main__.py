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
    from postbag import human_verbs  # every verb loads it: the rooms' packages it reads import nothing

    if argv[:1] and argv[0] in human_verbs.HUMAN_VERBS:
        import posix

        from postbag import refusal

        # The names os.environ would hold, without importing os, which costs a refusal more
        # than the rest of it (its environ mapping pulls in collections.abc).
        encoding = sys.getfilesystemencoding()
        names = {name.decode(encoding, "surrogateescape") for name in posix.environ}
        try:
            human_verbs.require_human_first(argv, names)
        except refusal.Refusal as reason:
            return refusal.stop(reason, sys.stderr)
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
    """Finds postbag's modules among the archive's __pycache__/NAME.TAG.pyc entries: a
    package's code is its __init__'s, in its own folder; a module's is beside its source."""

    def __init__(self, archive_loader, archive):
        self.archive_loader, self.archive = archive_loader, archive
        self.magic = sys.modules["_frozen_importlib_external"].MAGIC_NUMBER
        self.tag = sys.implementation.cache_tag

    def find_spec(self, name, path=None, target=None):
        parts = name.split(".")
        if parts[0] != "postbag":
            return None
        folder = "/".join(parts)
        data = self._compiled(folder, "__init__")
        is_package = data is not None
        if not is_package:
            folder, stem = "/".join(parts[:-1]), parts[-1]
            data = self._compiled(folder, stem)
            if data is None:
                return None
        source = "%s/%s/%s.py" % (self.archive, folder, "__init__" if is_package else stem)
        spec = sys.modules["_frozen_importlib"].ModuleSpec(name, self, origin=source, is_package=is_package)
        if is_package:
            spec.submodule_search_locations = ["%s/%s" % (self.archive, folder)]
        spec.has_location = True
        spec.loader_state = data
        return spec

    def _compiled(self, folder, stem):
        """The code compiled for this Python of `folder`/`stem`.py, or None."""
        try:
            data = self.archive_loader.get_data("%s/__pycache__/%s.%s.pyc" % (folder, stem, self.tag))
        except OSError:
            return None
        return data if data[:4] == self.magic else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        import marshal

        # The bytes come from the archive itself, which holds the sources beside them: they
        # are trusted exactly as far as the sources are.
        exec(marshal.loads(module.__spec__.loader_state[16:]), module.__dict__)  # noqa: S102, S302


if __name__ == "__main__":
    sys.exit(run())
