"""The JSON text editor setup changes settings files with: any wanted value is reached, only
what differs is touched, and adding then taking out gives the same bytes back."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.setup.json_text import (
    JSONC,
    STRICT,
    WITH_COMMENTS,
    JsonTextError,
    canonical,
    changed_text,
    loads,
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
objects = st.dictionaries(st.text(max_size=6), values, max_size=5)


@settings(max_examples=300, deadline=None)
@given(before=objects, after=objects, indent=st.sampled_from([None, 2, 4, "\t"]))
def test_any_object_becomes_any_other(
    before: dict[str, Any], after: dict[str, Any], indent: Any
) -> None:
    text = json.dumps(before, indent=indent)
    assert canonical(loads(changed_text(text, after))) == canonical(after)


@settings(max_examples=300, deadline=None)
@given(
    before=objects,
    key=st.text(min_size=1, max_size=6),
    added=values,
    indent=st.sampled_from([None, 2, 4, "\t"]),
)
def test_added_then_taken_out_gives_the_same_bytes(
    before: dict[str, Any], key: str, added: Any, indent: Any
) -> None:
    text = json.dumps(before, indent=indent) + "\n"
    wanted = {**before, key: added} if key not in before else before
    grown = changed_text(text, wanted)
    assert changed_text(grown, before) == text


def test_comments_stay_where_they_were() -> None:
    text = '{\n  // one\n  "a": 1, /* two */\n  "b": [1, 2] // three\n}\n'
    grown = changed_text(text, {"a": 1, "b": [1, 2, 3], "c": {"d": True}}, WITH_COMMENTS)
    assert grown == (
        '{\n  // one\n  "a": 1, /* two */\n  "b": [1, 2, 3], // three\n'
        '  "c": {\n    "d": true\n  }\n}\n'
    )
    assert changed_text(grown, {"a": 1, "b": [1, 2]}, WITH_COMMENTS) == text


plain_text = st.text(alphabet="abcxyz01 ", max_size=6)
plain_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | plain_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(plain_text, inner, max_size=4),
    max_leaves=12,
)
plain_objects = st.dictionaries(plain_text, plain_values, max_size=5)


def _with_trailing_commas(text: str) -> str:
    """A comma after the last member of every non-empty container (OpenCode's JSONC)."""
    return re.sub(r"([^\[{\s,])(\s*[}\]])", r"\1,\2", text)


@settings(max_examples=300, deadline=None)
@given(before=plain_objects, after=plain_objects, indent=st.sampled_from([None, 2, "\t"]))
def test_jsonc_with_trailing_commas_becomes_any_other(
    before: dict[str, Any], after: dict[str, Any], indent: Any
) -> None:
    text = _with_trailing_commas(json.dumps(before, indent=indent))
    assert canonical(loads(text, JSONC)) == canonical(before)
    assert canonical(loads(changed_text(text, after, JSONC), JSONC)) == canonical(after)


@settings(max_examples=300, deadline=None)
@given(before=plain_objects, key=plain_text, added=plain_values, indent=st.sampled_from([2, 4]))
def test_trailing_commas_stay_and_added_then_taken_out_gives_the_same_bytes(
    before: dict[str, Any], key: str, added: Any, indent: int
) -> None:
    text = _with_trailing_commas(json.dumps(before, indent=indent)) + "\n"
    wanted = {**before, key: added} if key not in before else before
    grown = changed_text(text, wanted, JSONC)
    assert changed_text(grown, before, JSONC) == text


def test_a_member_added_after_a_trailing_comma_gets_one_too() -> None:
    text = '{\n  // mine\n  "theme": "opencode",\n}\n'
    grown = changed_text(text, {"theme": "opencode", "mcp": {}}, JSONC)
    assert grown == '{\n  // mine\n  "theme": "opencode",\n  "mcp": {},\n}\n'
    assert changed_text('{"a": 1,}', {"a": 1, "b": 2}, JSONC) == '{"a": 1, "b": 2,}'
    assert changed_text(grown, {"theme": "opencode"}, JSONC) == text
    with pytest.raises(JsonTextError, match="trailing comma"):
        loads(text, WITH_COMMENTS)  # Gemini CLI's settings.json allows none


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"a": 1,}', "trailing comma at line 1 column 8"),
        ('{"a": 1, "a": 2}', "the key 'a' appears twice"),
        ("// x\n{}", "expected a value at line 1 column 1"),
        ("{} []", "unexpected text after the value"),
    ],
)
def test_what_is_not_json_is_named(text: str, error: str) -> None:
    with pytest.raises(JsonTextError, match=error):
        loads(text, STRICT)
