"""postbag: two coding agents on one machine correspond by letters."""

# A build from main says it is a development one; a release sets X.Y.Z (CONTRIBUTING.md).
__version__ = "1.2.0.dev0"
