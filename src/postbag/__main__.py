# The entry point of every install: the `postbag` console script, `python -m postbag`, and,
# copied to the archive's root, postbag.pyz. Old interpreters parse this file before they
# can refuse to run it, so it keeps to syntax they all know.
import sys


def run(argv=None):
    if sys.version_info < (3, 10):
        sys.stderr.write("postbag needs Python 3.10 or later (this is %d.%d)\n" % tuple(sys.version_info[:2]))
        return 1
    argv = sys.argv[1:] if argv is None else list(argv)
    # Agents call postbag often. What needs no argument parsing is answered before the
    # rest of postbag loads: the version, and the human's verbs refused inside a session.
    if argv == ["--version"]:
        from postbag import __version__

        sys.stdout.write("postbag %s\n" % __version__)
        return 0
    if argv[:1] in (["open"], ["close"]) and "-h" not in argv and "--help" not in argv:
        import os

        from postbag import guards, refusal

        try:
            guards.require_human(argv[0], os.environ)
        except refusal.Refusal as reason:
            return refusal.stop(reason)
    from postbag.cli import main

    return main(argv)


if __name__ == "__main__":
    sys.exit(run())
