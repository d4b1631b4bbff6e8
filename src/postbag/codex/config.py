"""Codex's config.toml, kept as setup found it.

Codex's own `codex mcp add` and `codex mcp remove`, which setup runs, write the whole file
again: they drop the comments inside other tables, and make it private (mode 600), as
0.171.0 does. So before setup's first change the file is kept beside it, bytes and mode,
as config.toml.before-postbag (where there was no file, there is nothing of the person's
to keep), and after each change of setup's the copy is stamped with the moment the file
then last changed: its ctime, which any write or chmod moves on and which nothing sets
back, written as the copy's modification time. `--remove` gives the copy back where the
file has not changed since that moment; else the copy stays, and setup names it.
"""

import os

from postbag import whole_file
from postbag.codex import wording as W
from postbag.codex.files import home_directory
from postbag.escape import shell_word
from postbag.registration import Change

KEPT = ".before-postbag"


def config_path(env):
    return os.path.join(home_directory(env), "config.toml")


def kept_name(path):
    """The kept copy's path, as a person pastes it."""
    return shell_word(path + KEPT)


def as_setup_left(path):
    """Whether the file at `path` is as setup's last change left it: the copy's stamp is its ctime."""
    try:
        return os.stat(path).st_ctime_ns == os.stat(path + KEPT).st_mtime_ns
    except OSError:
        return False


def is_kept(path):
    return os.path.lexists(path + KEPT)


def keeping(path, change, *, keep=True):
    """`change`, one of Codex's own commands that writes the file at `path` whole, made so
    that, `keep`, the file as found is kept first where no copy describes it, and the copy
    stamped after; undone by putting the file and its copy back as they were just before."""
    before = _Before(path)

    def make():
        before.take()
        if keep and not before.left:
            _keep(path)
        change.make()
        if keep:
            _stamp(path)

    return Change(change.does, make, undo=before.put_back, shown=change.shown)


def giving_back(path, take_out, names_postbag):
    """The Change that gives the file at `path` back as setup found it, from its copy, in
    place of `take_out`, the command that takes postbag's server out; made after all where
    the file given back still `names_postbag()` (it did before setup)."""
    before = _Before(path)

    def make():
        before.take()
        kept = before.found[path + KEPT]
        if kept is not None:  # else someone took it since setup planned: Codex's command alone is left
            whole_file.writing(path, lambda: whole_file.write(path, kept.data, kept.mode))
            whole_file.writing(path + KEPT, lambda: whole_file.remove(path + KEPT))
        if kept is None or names_postbag():
            take_out.make()

    does = W.GIVES_BACK.format(does=take_out.does.partition(":")[0], path=shell_word(path), copy=kept_name(path))
    return Change(does, make, undo=before.put_back, shown=take_out.shown)


class _Before:
    """The file and its copy as they were just before a change, to put back."""

    def __init__(self, path):
        self.path, self.found, self.left = path, None, False

    def take(self):
        found = {each: whole_file.found_or_refusal(each) for each in (self.path, self.path + KEPT)}
        self.left = as_setup_left(self.path)
        self.found = found  # last, and at once: put_back trusts what it finds here

    def put_back(self):
        if self.found is None:  # never taken: a signal came first
            return
        for each, was in self.found.items():
            whole_file.writing(each, lambda each=each, was=was: whole_file.put_back(each, was))
        if self.left:  # the file is again as setup left it
            _stamp(self.path)


def _keep(path):
    found = whole_file.found_or_refusal(path)
    if found is not None:
        whole_file.writing(path + KEPT, lambda: whole_file.write(path + KEPT, found.data, found.mode))


def _stamp(path):
    """Stamp the copy with the moment the file at `path` last changed; nothing where there is no file."""

    def stamp():
        try:
            changed = os.stat(path).st_ctime_ns
        except FileNotFoundError:
            return
        if os.path.lexists(path + KEPT):
            os.utime(path + KEPT, ns=(changed, changed))

    whole_file.writing(path + KEPT, stamp)
