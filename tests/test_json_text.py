"""A JSON document edited as text, as a person edits it: whatever the layout, adding the
rule and taking it out again gives back every byte, and nothing but the rule changes."""

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from postbag import json_text
from postbag.claude import permission

SPACE = st.sampled_from(["", " ", "  ", "\n", "\n  ", "\n\t\t", "\r\n    ", " \n"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=6))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


@st.composite
def laid_out(draw, value):
    """`value` as JSON text, with whatever space a person or an editor puts between its tokens."""
    if isinstance(value, dict):
        key_and = [f"{draw(SPACE)}{json.dumps(key)}{draw(SPACE)}:{draw(SPACE)}" for key in value]
        items = [f"{before}{draw(laid_out(item))}" for before, item in zip(key_and, value.values(), strict=True)]
        return "{" + ",".join(f"{item}{draw(SPACE)}" for item in items) + (draw(SPACE) if not items else "") + "}"
    if isinstance(value, list):
        items = [f"{draw(SPACE)}{draw(laid_out(item))}{draw(SPACE)}" for item in value]
        return "[" + ",".join(items) + (draw(SPACE) if not items else "") + "]"
    return json.dumps(value, ensure_ascii=draw(st.booleans()))


@st.composite
def settings_files(draw):
    """A person's settings.json: their settings, maybe permissions with an allow list, in any layout."""
    value = draw(st.dictionaries(st.text(max_size=5).filter(lambda key: key != "permissions"), VALUES, max_size=3))
    lists = st.lists(st.text(max_size=5))
    permissions = draw(st.none() | st.dictionaries(st.sampled_from(["deny", "ask"]), lists, max_size=2))
    if permissions is not None:
        allow = draw(st.none() | st.lists(st.text(max_size=6).filter(lambda rule: rule != permission.RULE), max_size=3))
        if allow is not None:
            permissions["allow"] = allow
        value["permissions"] = permissions
    keys = list(value)
    order = draw(st.permutations(keys))
    return (draw(SPACE) + draw(laid_out({key: value[key] for key in order})) + draw(SPACE)).encode()


@settings(max_examples=300, deadline=None)
@given(settings_files())
@example(b'{"permissions": {"allow": []}}')  # an allow that was all its permissions held
def test_adding_the_rule_and_taking_it_out_gives_back_every_byte(data):
    found = permission.Settings(data)
    made = permission.with_rule(found)
    assert json.loads(made) == {
        **json.loads(data),
        "permissions": {
            **json.loads(data).get("permissions", {}),
            "allow": [*json.loads(data).get("permissions", {}).get("allow", []), permission.RULE],
        },
    }
    back = permission.without_rule(permission.Settings(made))
    assert permission.with_rule(permission.Settings(back)) == made  # taking out is what adding undoes
    if back != data:
        # Alone of all shapes, the file cannot tell an empty permissions (or allow) of the
        # person's, last of its object, from one setup made: only the kept copy can
        # (test_setup.py). What setup would have made is what is taken out.
        found, given = json.loads(data), json.loads(back)
        permissions = found["permissions"]
        if permissions == {}:
            assert list(found)[-1] == "permissions" and given == {k: v for k, v in found.items() if k != "permissions"}
        else:
            assert permissions["allow"] == [] and list(permissions)[-1] == "allow"
            kept = {k: v for k, v in permissions.items() if k != "allow"}
            # Where the empty allow was all it held, setup would have made permissions too.
            made_by_setup = [{k: v for k, v in found.items() if k != "permissions"}] if kept == {} else []
            assert given in [{**found, "permissions": kept}, *made_by_setup]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"a": 1, "a": 2}', None),  # a key twice where the edit does not go: in place all the same
        ('{"permissions": {}, "permissions": {"allow": []}}', "permissions appears more than once"),
        ('{"permissions": {"allow": [], "allow": ["Read"]}}', "allow appears more than once"),
    ],
    ids=["elsewhere", "permissions", "allow"],
)
def test_a_key_twice_where_the_edit_goes_is_no_edit_in_place(text, why):
    def add(text, root, layout):
        allow = json_text.member(json_text.member(root, "permissions"), "allow") if "permissions" in text else None
        return text if allow is None else json_text.appended(text, allow, None, "x", layout)

    expected = json.loads(text)
    if why is None:
        assert json_text.edited(text, add, expected) == text
        return
    with pytest.raises(json_text.Unsafe, match=why):
        json_text.edited(text, add, expected)
