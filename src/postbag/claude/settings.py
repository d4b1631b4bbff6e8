"""The person's Claude Code settings.json, and every other level of settings, as Claude Code reads them (JSON.parse:
any depth, numbers as written, the last of a key that stands twice): what they allow and hold back of postbag's
tools, deny and ask rules among them, which setup never changes; and the text of settings.json with the rule that
lets postbag's tools run put in, as a person edits it (json_text.py), every other byte as it was."""

from postbag import json_edit, json_text
from postbag.escape import shell_word
from postbag.refusal import Refusal
from postbag.vendor_files import LIMIT, read_regular

RULE = "mcp__postbag"  # the permission rule that lets every tool of postbag's server run without asking
RULES = (RULE, f"{RULE}__*")  # what counts as that rule already
TOOL_RULE = f"{RULE}__"  # how a rule for one of its tools begins
BOM = b"\xef\xbb\xbf"
LOOKED_INTO = ("permissions",)  # the members of the settings whose own members an edit reads
# What the kept copy holds where there was no file to keep: nothing, or, where setup made the folder too, these words.
NO_FILE, NO_FOLDER = b"", b"postbag made this folder, and settings.json in it, to hold the rule\n"
# What setup writes where there was no settings file: Claude Code's own layout.
MADE = b'{\n  "permissions": {\n    "allow": [\n      "' + RULE.encode() + b'"\n    ]\n  }\n}\n'


class SettingsFile:
    """A settings file as Claude Code reads it: its bytes (`data`, None where there is none), and of its text the
    object of settings (`document`), its permissions and its allow list, each the one that counts, or None."""

    __slots__ = ("allow", "bom", "data", "document", "permissions", "text")

    def __init__(self, data):
        self.data, self.bom, self.text = data, b"", None
        self.document = self.permissions = self.allow = None
        if data is None:
            return
        self.bom = BOM if data.startswith(BOM) else b""
        # Bytes that are not UTF-8 are kept, each as a lone surrogate: written back, they are the same bytes.
        self.text = data[len(self.bom) :].decode("utf-8", "surrogateescape")
        try:
            self.document = json_text.parse(self.text, within=LOOKED_INTO)
        except json_text.NotJson as error:
            raise Refusal(f"claude's settings.json is not JSON ({error})") from None
        if self.document.kind != "object":
            raise Refusal("claude's settings.json is not an object of settings")
        self.permissions = json_text.member(self.document, "permissions")
        if self.permissions is not None and self.permissions.kind != "object":
            raise Refusal("permissions in claude's settings.json is not an object")
        self.allow = _list(self, "allow")

    def rules(self, kind):
        """The rules of permissions.`kind` ("allow", "deny" or "ask") that count, as text."""
        found = self.allow if kind == "allow" else _list(self, kind)
        return [] if found is None else json_text.strings(self.text, found)

    def allowed(self):
        """Whether these settings let postbag's tools run without asking, as far as allow says."""
        return any(rule in RULES for rule in self.rules("allow"))

    def holds_the_rule(self):
        """Whether permissions.allow holds the rule setup puts in, as setup writes it."""
        return RULE in self.rules("allow")


def words_of(data):
    """The settings in `data` that are text, the root's and its permissions' (defaultMode), as an object, or {}."""
    try:
        settings = SettingsFile(data)
    except Refusal:
        return {}
    found = _string_members(settings.text, settings.document)
    if settings.permissions is not None:
        found["permissions"] = _string_members(settings.text, settings.permissions)
    return found


def _string_members(text, node):
    """The members of the object `node` whose values are strings, decoded, the last of a key counting."""
    return {item.key: json_text.string_at(text, item.start) for item in node.items if text[item.start] == '"'}


def _list(settings, kind):
    """The permissions.`kind` list of `settings` that counts, or None; a Refusal where it is no list."""
    found = json_text.member(settings.permissions, kind) if settings.permissions is not None else None
    if found is not None and found.kind != "array":
        raise Refusal(f"permissions.{kind} in claude's settings.json is not a list")
    return found


def settings_at(path):
    """The SettingsFile in the file at `path`; a Refusal where it cannot be read or is not of the shape Claude reads."""
    try:
        return SettingsFile(read_regular(path))
    except FileNotFoundError:
        return SettingsFile(None)
    except OSError as error:
        raise Refusal(f"claude's settings.json cannot be read ({error.strerror})") from None


class HoldingRule:
    """A deny or ask `rule`, `listed_in` "deny" or "ask" at `path`, that keeps postbag's tools from running unasked."""

    __slots__ = ("listed_in", "path", "rule")

    def __init__(self, listed_in, rule, path):
        self.listed_in, self.rule, self.path = listed_in, rule, path

    def words(self):
        """What it does, in words that say where it stands."""
        what = "postbag's tools" if self.rule in RULES else f"postbag's {self.rule.removeprefix(TOOL_RULE)} tool"
        where = f"{self.rule} stands in permissions.{self.listed_in} of {shell_word(self.path)}"
        if self.listed_in == "deny":
            return f"Claude Code will not run {what}: {where}, and a deny wins over every allow"
        return f"Claude Code asks before each call of {what}: {where}, and an ask wins over an allow"


def holding_back(paths):
    """Every deny rule, then every ask rule, of the settings files at `paths` (managed, the person's, the
    project's, in Claude Code's order) that names postbag's server or one of its tools, as HoldingRules. A file that
    cannot be read as settings holds none here; its own check says why."""
    found = {"deny": [], "ask": []}
    for path in paths:
        try:
            settings = settings_at(path)
        except Refusal:
            continue
        for kind, held in found.items():
            held += [HoldingRule(kind, each, path) for each in settings.rules(kind) if _names_postbag(each)]
    return found["deny"] + found["ask"]


def _names_postbag(rule):
    """Whether a permission rule names postbag's server, or one of its tools."""
    return rule == RULE or rule.startswith(TOOL_RULE)


def with_rule(settings):
    """The bytes setup makes of `settings`: the rule added at the end of permissions.allow,
    in place. A Refusal where they would be longer than postbag reads back."""
    if settings.data in (None, NO_FILE, NO_FOLDER):
        return MADE
    text, layout = settings.text, json_edit.Layout(settings.text, settings.document)
    if settings.permissions is None:
        text = json_edit.appended(text, settings.document, "permissions", {"allow": [RULE]}, layout)
    elif settings.allow is None:
        text = json_edit.appended(text, settings.permissions, "allow", [RULE], layout)
    else:
        text = json_edit.appended(text, settings.allow, None, RULE, layout)
    return _checked(settings, text)


def _checked(settings, text):
    """`text`, an edit of `settings`, as bytes with its bom: JSON still; a Refusal where longer than LIMIT."""
    data = settings.bom + text.encode("utf-8", "surrogateescape")
    json_text.parse(text, within=LOOKED_INTO)  # what an edit in place makes is JSON, or postbag's fault to fail on
    if len(data) > LIMIT:
        raise Refusal(
            f"claude's settings.json would be longer than postbag reads back ({LIMIT:,} bytes) "
            f"with {RULE} in it: add {RULE} to permissions.allow yourself"
        )
    return data
