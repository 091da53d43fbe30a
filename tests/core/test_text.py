"""Sanitizing what agents send: contents are one clean line, notes keep their lines."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plansight.protocol.text import clean_content, clean_note

from .conftest import Request
from .states import rows

BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Run the build", "Run the build"),
        ("a\r\nb", "a b"),
        ("a\nb", "a b"),
        ("a\rb", "a b"),
        ("a\tb", "a b"),
        ("a\n\nb", "a  b"),  # each line break becomes one space
        ("a\r\n\tb", "a  b"),
        ("  padded \t\n", "padded"),
        ("bell\x07 nul\x00 esc\x1b[31m del\x7f nel\x85", "bell nul esc[31m del nel"),
        ("user\u202egnp.exe", "usergnp.exe"),
        ("\u2066isolated\u2069 \u202aembedded\u202c", "isolated embedded"),
        ("日本語 ✓ 👩\u200d💻 é", "日本語 ✓ 👩\u200d💻 é"),
        ("\n\t \r", ""),
    ],
)
def test_clean_content(raw: str, clean: str) -> None:
    assert clean_content(raw) == clean


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("done  ", "done"),
        ("first line  \nsecond\t\n", "first line\nsecond"),
        ("a\r\nb\rc", "a\nb\nc"),
        ("a\n\n  \nb", "a\nb"),  # blank lines inside are dropped
        ("  indented stays", "  indented stays"),
        ("x\x00y\u202ez", "xyz"),
        ("\n \n", ""),
    ],
)
def test_clean_note(raw: str, clean: str) -> None:
    assert clean_note(raw) == clean


@given(st.text())
def test_a_cleaned_content_is_one_trimmed_line_without_controls(raw: str) -> None:
    clean = clean_content(raw)
    assert clean == clean.strip()
    assert not any(unicodedata.category(c) == "Cc" for c in clean)
    assert not any(c in BIDI_CONTROLS for c in clean)
    assert clean_content(clean) == clean


@given(st.text())
def test_a_cleaned_note_has_no_blank_or_trailing_blank_lines(raw: str) -> None:
    clean = clean_note(raw)
    for line in clean.split("\n") if clean else []:
        assert line.strip()
        assert line == line.rstrip()
        assert not any(unicodedata.category(c) == "Cc" for c in line)
    assert clean_note(clean) == clean


def test_operations_store_cleaned_contents_and_find_tasks_by_them(apply: Request) -> None:
    apply({"op": "append", "phase": " Build\n", "items": ["Run\tthe\nbuild\u202e  "]})
    result = apply({"op": "done", "task": "Run the build", "phase": "Build"})
    assert rows(result) == [("Build", "Run the build", "completed")]


def test_lone_surrogates_from_json_escapes_are_removed_and_nothing_is_lost(apply: Request) -> None:
    # "\ud800" is valid JSON but cannot be stored as UTF-8; it must not cost the batch.
    result = apply(
        {"op": "append", "phase": "A", "items": ["a\ud800b", "c"]},
        {"op": "note", "task": "c", "text": "x\udfffy"},
        {"op": "done", "task": "\ud800"},
    )
    assert [t["content"] for p in result["phases"] for t in p["tasks"]] == ["ab", "c"]
    assert result["phases"][0]["tasks"][1]["notes"] == ["xy"]
    assert result["errors"] == ["Missing task for done operation"]
    assert result["version"] == 1
