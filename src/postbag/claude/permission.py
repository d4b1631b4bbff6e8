"""The rule that lets postbag's tools run in Claude Code without asking: "mcp__postbag" in permissions.allow of the
person's settings.json, which setup puts in and setup --remove takes out (observed on 2.1.248 to 2.1.337).

settings.json is the person's file, and is treated so:
- it is read as Claude Code reads it and edited as a person would (settings.py): the rule goes at the end of the
  permissions.allow that counts, every other byte as it was; a file it cannot edit so is refused, and nothing changes;
- it is written whole or not at all (whole_file.py), through a link to the file it names; a link that names no
  file, a file that is read-only or has other names (hard links), is named and left alone;
- before postbag changes it, the file as found is kept beside it, as settings.json.before-postbag (empty where there
  was no file; a line saying so where there was no folder either): the record of what setup added and made;
- --remove takes out what setup put in and nothing else: where the file is still what setup made of the kept
  copy, it gives back the kept bytes (or removes the file, and the folder, setup made); where the file has changed
  since, remove cannot tell whose the rule is, and leaves the rule and the copy, saying so. A rule the person
  wrote before setup stays: setup added none, and kept no copy.
"""

import os
import stat

from postbag import whole_file
from postbag.claude.settings import MADE, NO_FILE, NO_FOLDER, RULE, SettingsFile, settings_at, with_rule
from postbag.escape import shell_word
from postbag.refusal import Refusal
from postbag.registration import Change
from postbag.vendor_files import read_regular


def change(path, *, removing, unasked=True):
    """The Change by which setup puts the rule in the settings at `path`, or, `removing`, takes out what it put
    in; None where there is nothing to do. `unasked`: no deny or ask rule stands in the rule's way. A Refusal,
    raised, where the file cannot be read as settings, or changed safely."""
    _require_a_changeable_file(path)
    settings = settings_at(path)
    if removing:
        return _taking_out(path, settings)
    if settings.allowed():
        return None
    copy = whole_file.free_copy(path)
    if settings.data is None:
        does = f"writes {shell_word(path)}, with {RULE} in permissions.allow"
    else:
        does = f"adds {RULE} to permissions.allow in {shell_word(path)}, kept as it was in {os.path.basename(copy)}"
    return _change(f"lets postbag's tools run without asking: {does}" if unasked else does, path, copy, _put_in)


def leftovers(path, *, removing):
    """Notes on the copies beside the settings at `path` that are not setup's as it left the file, which setup and
    remove never use; and, `removing`, where one stands and the rule too, that the rule stays."""
    try:
        settings = settings_at(path)
    except Refusal:  # not settings now, though setup read it so as it planned: no note rests on it
        settings = None
    own = whole_file.copy_as_left(path)
    if removing and own is not None and (settings is None or _kept_as_left(settings, own) is None):
        own = None  # the stamp matches, the bytes do not: changed within the clock's tick of setup's write
    said = [
        f"{shell_word(copy)}, a copy of claude's settings.json, stays: setup did not make it, or the file has changed "
        "since it did, so setup and remove never use it; compare the two, take from the copy what you want back, then "
        "delete it"
        for copy in whole_file.copies(path)
        if copy != own
    ]
    if removing and said and own is None and settings is not None and settings.holds_the_rule():
        said.append(
            f"{RULE} stays in permissions.allow of {shell_word(path)}: the file has changed since setup kept a "
            "copy, so remove cannot tell whether setup or you put the rule in; take it out yourself if it is "
            "setup's"
        )
    return said


def _require_a_changeable_file(path):
    """Refuse a settings file setup must leave alone: a link to no file (setup would put a file in its place), a
    read-only file (the person's choice), one with other names (a hard link setup's rename would split)."""
    name = shell_word(path)
    try:
        status = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            target = shell_word(os.path.realpath(path))
            raise Refusal(
                f"claude's settings.json, {name}, is a link to {target}, which is not there: create "
                f"{target} (an empty object, {{}} is enough), or remove the link, then run postbag "
                "setup again"
            ) from None
        return
    except OSError as error:
        raise Refusal(f"claude's settings.json cannot be read ({error.strerror})") from None
    if not stat.S_ISREG(status.st_mode):
        return  # read as settings, and refused there, in its own words
    if not status.st_mode & stat.S_IWUSR:
        raise Refusal(
            f"claude's settings.json, {name}, is read-only (mode {stat.S_IMODE(status.st_mode):o}): "
            f"make it writable (chmod u+w {name}), or add {RULE} to permissions.allow yourself"
        )
    if status.st_nlink > 1:
        raise Refusal(
            f"claude's settings.json, {name}, has {status.st_nlink} names (hard links), which "
            f"a rewrite would split: add {RULE} to permissions.allow yourself"
        )


def _taking_out(path, settings):
    """The Change that gives the file back as setup found it, from the copy it kept; None where setup put nothing
    in, or the file has changed since, so that remove cannot tell what it did (notes say so)."""
    copy = whole_file.copy_as_left(path)
    kept = _kept_as_left(settings, copy) if copy is not None else None
    if kept is None:
        return None
    name = shell_word(path)
    if kept.data in (NO_FILE, NO_FOLDER):
        return _change(f"removes {name}, which setup made", path, copy, _give_back)
    return _change(f"gives back {name} as it was before setup, from {os.path.basename(copy)}", path, copy, _give_back)


def _kept_as_left(settings, copy):
    """The settings setup kept in `copy`, where the file, now read as `settings`, still holds what setup made of
    them; else None. The bytes are compared, not only the stamp: a change within the clock's tick of setup's write
    (a second, on a file system that keeps whole seconds) leaves the file's ctime as it was."""
    kept = _kept_copy(copy)
    return kept if kept is not None and settings.data == with_rule(kept) else None


def _change(said, path, copy, work):
    """The Change, `said`, made by `work(path, copy)` to the file at `path` and its copy at `copy`: its undo puts the
    file, the copy and their folder back as they were just before. A Refusal, raised, where they cannot be written."""
    files, folder, before = (path, copy), os.path.dirname(path), {}

    def make():
        found = {each: whole_file.found_or_refusal(each) for each in files}
        before.update(found, folder=os.path.isdir(folder))  # all at once: undo trusts what it finds here
        for each in {folder, os.path.dirname(os.path.realpath(path))}:
            whole_file.clean_leftovers(each)
        try:
            whole_file.writing(path, lambda: work(path, copy))
        except Refusal:
            undo()  # what the work did before it failed: the kept copy it made
            raise

    def undo():
        if not before:  # never made: a signal came first
            return
        if before["folder"]:
            os.makedirs(folder, exist_ok=True)
        for each in files:
            was, now = before[each], whole_file.found_or_refusal(each)
            if (was is None) != (now is None) or (was is not None and was.data != now.data):
                whole_file.writing(each, lambda each=each, was=was: whole_file.put_back(each, was))
        if before[copy] is not None and before[path] is not None:  # setup's copy, stamped as it was
            whole_file.writing(copy, lambda: whole_file.stamp(path, copy))
        if not before["folder"] and os.path.isdir(folder):
            _remove_folder_if_empty(folder)

    return Change(said, make, undo=undo)


def _kept_copy(copy):
    """The SettingsFile at `copy`, setup's copy, or None where it cannot be read as settings: no record of setup's."""
    try:
        data = read_regular(copy)
    except OSError:
        return None
    if data in (NO_FILE, NO_FOLDER):  # the kept copy of a file that was not there: SettingsFile of no object, saying so
        found = SettingsFile(None)
        found.data = data
        return found
    try:
        return SettingsFile(data)
    except Refusal:
        return None


def _put_in(path, copy):
    settings = settings_at(path)  # as it is now, whatever it was when setup planned
    if settings.allowed():
        return
    folder = os.path.dirname(path)
    if settings.data is None:
        # A copy that says setup made the folder still says so, though a kill left no file.
        kept = whole_file.found_or_refusal(copy)
        made_folder = not os.path.isdir(folder) or (kept is not None and kept.data == NO_FOLDER)
        os.makedirs(folder, exist_ok=True)
        whole_file.write(copy, NO_FOLDER if made_folder else NO_FILE)
        whole_file.write(path, MADE)
    else:
        whole_file.write(copy, settings.data, _mode(path))
        whole_file.write(path, with_rule(settings))
    whole_file.stamp(path, copy)  # the copy is setup's while the file stays as it left it


def _give_back(path, copy):
    if _kept_as_left(settings_at(path), copy) is None:  # changed since remove planned, a moment ago
        raise Refusal(
            f"claude's settings.json, {shell_word(path)}, changed after remove planned to give it back: run "
            "postbag setup --remove again"
        )
    kept = read_regular(copy)
    if kept in (NO_FILE, NO_FOLDER):
        whole_file.remove(path)
    else:
        whole_file.write(path, kept, _mode(copy))  # the mode it had: the copy kept it
    whole_file.remove(copy)
    if kept == NO_FOLDER:
        _remove_folder_if_empty(os.path.dirname(path))


def _remove_folder_if_empty(folder):
    try:
        os.rmdir(folder)
    except OSError:  # the person, or Claude Code, keeps something there now
        return
    whole_file.sync_directory(os.path.dirname(folder))


def _mode(path):
    return os.stat(path).st_mode & 0o7777
