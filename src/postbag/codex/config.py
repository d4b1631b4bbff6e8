"""Codex's config.toml, kept as setup found it.

Codex's own `codex mcp add` and `codex mcp remove`, which setup runs, write the whole file again: they drop the
comments inside other tables, and make it private (mode 600), as 0.171.0 does. So before setup's first change the
file is kept beside it, bytes and mode, as config.toml.before-postbag (or the first free config.toml.before-postbag-N,
where a copy setup did not make stands there: a copy already there is never written over), and after each of setup's
changes its copy is stamped with the moment the file then last changed. `--remove` gives that copy back where the
file has not changed since; else the copy stays, and setup names it.
"""

import os

from postbag import whole_file
from postbag.codex.files import home_directory
from postbag.escape import shell_word
from postbag.registration import Change


def config_path(here):
    return os.path.join(home_directory(here), "config.toml")


def keeping(path, change, *, keep=True):
    """`change`, one of Codex's own commands that writes the file at `path` whole, made so that, `keep`, the file as
    found is kept first where no copy of setup's describes it, and its copy stamped after; undone by putting the file
    and its copy back as they were just before."""
    before = _Before(path)

    def make():
        before.take()
        copy = before.copy
        if keep and copy is None:
            copy = before.copy = whole_file.free_copy(path)
            before.found[copy] = None
            found = whole_file.found_or_refusal(path)
            if found is not None:
                whole_file.writing(copy, lambda: whole_file.write(copy, found.data, found.mode))
        change.make()
        if keep:
            _stamp(path, copy)

    return Change(change.does, make, undo=before.put_back, shown=change.shown)


def giving_back(path, take_out, names_postbag):
    """The Change that gives the file at `path` back as setup found it, from its copy, in place of `take_out`, the
    command that takes postbag's server out; made after all where the file given back still `names_postbag()`."""
    before = _Before(path)
    copy = whole_file.copy_as_left(path)

    def make():
        before.take()
        kept = before.found.get(before.copy) if before.copy is not None else None
        if kept is not None:  # else someone took it since setup planned: Codex's command alone is left
            whole_file.writing(path, lambda: whole_file.write(path, kept.data, kept.mode))
            whole_file.writing(before.copy, lambda: whole_file.remove(before.copy))
        if kept is None or names_postbag():
            take_out.make()

    shown = shell_word(copy or path + whole_file.KEPT)
    does = f"{take_out.does.partition(':')[0]}: gives back {shell_word(path)} as setup found it, from {shown}"
    return Change(does, make, undo=before.put_back, shown=take_out.shown)


class _Before:
    """The file and setup's copy of it as they were just before a change, to put back."""

    def __init__(self, path):
        self.path, self.copy, self.found = path, None, None

    def take(self):
        self.copy = whole_file.copy_as_left(self.path)
        paths = (self.path,) if self.copy is None else (self.path, self.copy)
        self.found = {each: whole_file.found_or_refusal(each) for each in paths}  # last: put_back trusts it

    def put_back(self):
        if self.found is None:  # never taken: a signal came first
            return
        for each, was in self.found.items():
            whole_file.writing(each, lambda each=each, was=was: whole_file.put_back(each, was))
        if self.copy is not None and self.found.get(self.copy) is not None:  # the file is again as setup left it
            _stamp(self.path, self.copy)


def _stamp(path, copy):
    whole_file.writing(copy, lambda: whole_file.stamp(path, copy))
