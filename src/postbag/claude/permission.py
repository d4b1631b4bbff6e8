"""The rule that lets postbag's tools run in Claude Code without asking: "mcp__postbag"
in permissions.allow of the person's settings.json, which setup puts in and setup
--remove takes out (observed on 2.1.248 to 2.1.336).

settings.json is the person's file, and is treated so:
- it is edited in place, as a person edits it (json_text.py): the rule goes at the end of
  permissions.allow, every other byte as it was; only where the file's shape does not
  allow that (a key twice in one object) is it written whole, in Claude Code's own
  layout, two spaces an indent;
- it is written whole or not at all (whole_file.py);
- before postbag first changes it, the file as found is kept beside it, as
  settings.json.before-postbag, which no later run overwrites;
- --remove gives the kept bytes back where the file is still what setup made of them
  (and removes the kept copy, whose bytes are then the file's), removes a file setup
  made where there was none while it is still as setup made it, and otherwise takes out
  the rule alone, keeping the rest, and the file as it was before, where no copy is kept.
"""

import json
import os

from postbag import json_text, whole_file
from postbag.refusal import Refusal
from postbag.registration import Change
from postbag.vendor_files import read

RULE = "mcp__postbag"  # the permission rule that lets every tool of postbag's server run without asking
RULES = (RULE, f"{RULE}__*")  # what counts as that rule already
KEPT = ".before-postbag"  # the settings file as postbag first found it, beside it
# What setup writes where there was no settings file: Claude Code's own layout.
MADE = (json.dumps({"permissions": {"allow": [RULE]}}, indent=2) + "\n").encode()
_BOM = b"\xef\xbb\xbf"


class Settings:
    """The bytes of a settings file (`data`; None where there is none) and what they say (`value`)."""

    __slots__ = ("data", "value")

    def __init__(self, data):
        self.data, self.value = data, None
        if data is None:
            return
        try:
            self.value = json.loads(data.removeprefix(_BOM).decode())
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise Refusal("claude's settings.json cannot be read (it is not JSON)") from None
        permissions = self.value.get("permissions", {}) if type(self.value) is dict else None
        if type(permissions) is not dict:
            raise Refusal("claude's settings.json is not an object of settings")
        if type(permissions.get("allow", [])) is not list:
            raise Refusal("permissions.allow in claude's settings.json is not a list")

    @property
    def allow(self):
        return [] if self.value is None else self.value.get("permissions", {}).get("allow", [])

    def allowed(self):
        """Whether these settings let postbag's tools run without asking."""
        return any(rule in self.allow for rule in RULES)

    def holds_the_rule(self):
        """Whether permissions.allow holds the rule setup puts in, as setup writes it."""
        return RULE in self.allow


def settings_at(path):
    """The Settings in the file at `path`; a Refusal, raised, where it cannot be read or is
    not of the shape Claude Code reads."""
    try:
        return Settings(read(path))
    except FileNotFoundError:
        return Settings(None)
    except OSError as error:
        raise Refusal(f"claude's settings.json cannot be read ({error.strerror})") from None


def with_rule(settings):
    """The bytes setup makes of `settings`: the rule added at the end of permissions.allow."""
    if settings.data is None:
        return MADE
    expected = json.loads(json.dumps(settings.value))
    expected.setdefault("permissions", {}).setdefault("allow", []).append(RULE)

    def add(text, root, layout):
        permissions = json_text.member(root, "permissions")
        if permissions is None:
            return json_text.appended(text, root, "permissions", {"allow": [RULE]}, layout)
        allow = json_text.member(permissions, "allow")
        if allow is None:
            return json_text.appended(text, permissions, "allow", [RULE], layout)
        return json_text.appended(text, allow, None, RULE, layout)

    return _edited(settings, add, expected)


def without_rule(settings):
    """The bytes of `settings` with the rule taken out of permissions.allow. Where setup's
    own edit of a file with less in it (no allow list, no permissions: what setup makes
    to hold the rule) gives exactly these bytes, that file: what setup made is taken out
    whole, the person's own file given back. Otherwise the rule alone goes."""
    rule_alone = _taken_out(settings, 0)
    for emptied in (2, 1):  # permissions, then allow, where setup would have made them
        try:
            less = _taken_out(settings, emptied)
        except json_text.Unsafe:
            continue
        if less != rule_alone and with_rule(Settings(less)) == settings.data:
            return less
    return rule_alone


def _taken_out(settings, emptied):
    """The bytes of `settings` with the rule taken out, and then, as far as `emptied` says,
    the allow list it leaves empty (1) and the permissions that leaves empty (2)."""
    expected = json.loads(json.dumps(settings.value))
    permissions = expected["permissions"]
    permissions["allow"] = [rule for rule in permissions["allow"] if rule != RULE]
    if emptied >= 1 and not permissions["allow"]:
        del permissions["allow"]
    if emptied >= 2 and not permissions:
        del expected["permissions"]

    def take_out(text, root, layout):
        while True:
            permissions = json_text.member(root, "permissions")
            allow = json_text.member(permissions, "allow")
            found = [at for at, item in enumerate(allow.items) if json.loads(text[item.start : item.end]) == RULE]
            if not found:
                break
            text = json_text.without(text, allow, found[-1])
            root = json_text.parse(text)
        if emptied >= 1 and not allow.items:
            text = json_text.without(text, permissions, permissions.items.index(allow))
            root = json_text.parse(text)
            permissions = json_text.member(root, "permissions")
        if emptied >= 2 and not permissions.items:
            text = json_text.without(text, root, root.items.index(permissions))
        return text

    return _edited(settings, take_out, expected, whole=emptied == 0)


def _edited(settings, edit, expected, *, whole=True):
    """The bytes `edit` makes of `settings` in place, or, where that is unsafe, the whole of
    `expected` (unless not `whole`: then Unsafe)."""
    bom = _BOM if settings.data.startswith(_BOM) else b""
    try:
        return bom + json_text.edited(settings.data[len(bom) :].decode(), edit, expected).encode()
    except json_text.Unsafe:
        if not whole:
            raise
        return (json.dumps(expected, indent=2) + "\n").encode()


def change(path, *, removing):
    """The Change by which setup puts the rule in the settings at `path`, or, `removing`,
    takes out what it put in; None where there is nothing to do. A Refusal, raised, where
    the file cannot be read as settings."""
    settings = settings_at(path)
    if removing:
        return _taking_out(path, settings)
    if settings.allowed():
        return None
    said = "lets postbag's tools run without asking:"
    if settings.data is None:
        return _change(f"{said} writes {path}, with {RULE} in permissions.allow", path, _write_made)
    return _change(f"{said} adds {RULE} to permissions.allow in {path}{_keeps(path)}", path, _put_in)


def _taking_out(path, settings):
    if not settings.holds_the_rule():
        return None
    kept = _kept(path)
    if kept is not None and not kept.holds_the_rule() and settings.data == with_rule(kept):
        said = f"gives back {path} as it was before setup, from {os.path.basename(path)}{KEPT}"
        return _change(said, path, _give_back)
    if kept is None and settings.data == MADE:
        return _change(f"removes {path}, which setup made", path, whole_file.remove)
    return _change(f"takes out {RULE} from permissions.allow in {path}{_keeps(path)}", path, _take_out)


def _change(said, path, work):
    make, undo = _making(path, work)
    return Change(said, make, undo=undo)


def _keeps(path):
    """What a change adds where it is the first to keep the file as it was."""
    return "" if os.path.lexists(path + KEPT) else f", kept as it was in {os.path.basename(path)}{KEPT}"


def _making(path, work):
    """What makes a change to the file at `path` by `work(path)`, and undoes it: the file and
    its kept copy as they were just before. A Refusal, raised, where they cannot be written."""
    files, before = (path, path + KEPT), {}

    def make():
        before.update((each, _bytes_or_none(each)) for each in files)
        try:
            _writing(path, lambda: work(path))
        except Refusal:
            undo()  # what the work did before it failed: the kept copy it made
            raise

    def undo():
        for each, data in before.items():
            if data is None and os.path.lexists(each):
                _writing(each, lambda each=each: whole_file.remove(each))
            elif data is not None and _bytes_or_none(each) != data:
                _writing(each, lambda each=each, data=data: whole_file.write(each, data))

    return make, undo


def _writing(path, work):
    try:
        work()
    except OSError as error:
        raise Refusal(f"cannot write {path} ({error.strerror})") from None


def _bytes_or_none(path):
    try:
        return read(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Refusal(f"cannot read {path} ({error.strerror})") from None


def _kept(path):
    """The Settings kept beside the file at `path`, or None where none is kept, or it cannot be read."""
    try:
        return Settings(read(path + KEPT))
    except (OSError, Refusal):
        return None


def _write_made(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    whole_file.write(path, MADE)


def _put_in(path):
    settings = settings_at(path)  # as it is now, whatever it was when setup planned
    if settings.allowed():
        return
    _keep(path, settings)
    whole_file.write(path, with_rule(settings))


def _take_out(path):
    settings = settings_at(path)
    if settings.holds_the_rule():
        _keep(path, settings)
        whole_file.write(path, without_rule(settings))


def _give_back(path):
    kept = read(path + KEPT)
    whole_file.write(path, kept)
    whole_file.remove(path + KEPT)


def _keep(path, settings):
    """Keep the file as postbag found it beside it, unless a copy is kept there already:
    the first copy is the person's file before postbag changed it, and stays so."""
    if not os.path.lexists(path + KEPT):
        whole_file.write(path + KEPT, settings.data, _mode(path))


def _mode(path):
    return os.stat(path).st_mode & 0o7777
