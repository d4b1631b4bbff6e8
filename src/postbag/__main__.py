# The entry point of `python -m postbag` and, copied to the archive's root, of postbag.pyz.
# Old interpreters parse this file before they can fail, so it keeps to syntax they all know.
import sys

if sys.version_info < (3, 10):
    sys.stderr.write("postbag needs Python 3.10 or later (this is %d.%d)\n" % tuple(sys.version_info[:2]))
    sys.exit(1)

from postbag.cli import main

sys.exit(main())
