"""The `update` op's `notes` (v3): a person edits or deletes a note by sending the task's
notes as they should be; each is cleaned as `note` cleans one, and the limits apply."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import ValidationError

from plansight.core.settings import Settings
from plansight.protocol.requests import ApplyParams, ContextParams, HistoryParams
from plansight.service import PlanService

from .conftest import Json, Request


def notes(result: Json, content: str = "a") -> list[str]:
    found: list[str] = next(
        t["notes"] for p in result["phases"] for t in p["tasks"] if t["content"] == content
    )
    return found


def planned(apply: Request) -> Json:
    return apply(
        {
            "op": "init",
            "list": [
                {
                    "phase": "P",
                    "items": [{"content": "a", "notes": ["first", "second", "third"]}, "b"],
                }
            ],
        }
    )


def test_notes_replace_the_tasks_notes(apply: Request) -> None:
    planned(apply)
    edited = apply(
        {"op": "update", "task": "a", "notes": ["first", "second, reworded", "third"]},
        origin="user",
    )
    assert notes(edited) == ["first", "second, reworded", "third"]
    assert edited["changed"] and not edited["isError"]
    deleted = apply({"op": "update", "id": "t1", "notes": ["first", "third"]}, origin="user")
    assert notes(deleted) == ["first", "third"]
    assert notes(deleted, "b") == []


def test_each_note_is_cleaned_as_note_cleans_one_and_empty_ones_are_dropped(
    apply: Request,
) -> None:
    planned(apply)
    result = apply({"op": "update", "task": "a", "notes": ["kept  \n", "  ", "", "two\nlines\t "]})
    assert notes(result) == ["kept", "two\nlines"]
    cleared = apply({"op": "update", "task": "a", "notes": []})
    assert notes(cleared) == []


def test_fields_left_out_keep_the_notes(apply: Request) -> None:
    planned(apply)
    result = apply({"op": "update", "task": "a", "priority": "high"})
    assert notes(result) == ["first", "second", "third"]


def test_the_notes_limits_apply_to_the_notes_kept(service: PlanService, apply: Request) -> None:
    service.settings = dataclasses.replace(Settings(), max_notes_per_task=2, max_note_length=10)
    apply({"op": "init", "list": [{"phase": "P", "items": [{"content": "a", "notes": ["n"]}]}]})
    too_many = apply({"op": "update", "task": "a", "notes": ["1", "2", "3"]})
    assert too_many["isError"] and "Too many notes" in too_many["errors"][0]
    assert notes(too_many) == ["n"]  # the op is skipped whole
    too_long = apply({"op": "update", "task": "a", "notes": ["x" * 11], "priority": "low"})
    assert too_long["isError"] and notes(too_long) == ["n"]
    assert too_long["phases"][0]["tasks"][0]["priority"] is None
    # Empty ones are not counted: two kept.
    fits = apply({"op": "update", "task": "a", "notes": ["1", " ", "2"]})
    assert not fits["isError"] and notes(fits) == ["1", "2"]


def test_a_note_of_the_wrong_type_fails_the_schema() -> None:
    with pytest.raises(ValidationError):
        ApplyParams.validate({"ops": [{"op": "update", "task": "a", "notes": "one"}]})
    with pytest.raises(ValidationError):
        ApplyParams.validate({"ops": [{"op": "update", "task": "a", "notes": [1]}]})


def test_history_and_context_say_which_note_was_edited_or_deleted(
    apply: Request, service: PlanService
) -> None:
    planned(apply)
    service.context(ContextParams())  # the agent has seen the plan
    apply({"op": "update", "task": "a", "notes": ["first", "2nd", "third"]}, origin="user")
    apply({"op": "update", "task": "a", "notes": ["first", "2nd"]}, origin="user")
    events = service.history(HistoryParams(limit=2))["events"]
    assert events[0]["changes"] == ['deleted a note of "a": "third"']
    assert events[1]["changes"] == ['edited a note of "a": "2nd"']
    # The agent hears the net change of the person's two edits.
    told = service.context(ContextParams())["text"]
    assert 'edited a note of "a": "2nd"; deleted a note of "a": "third"' in told
    apply({"op": "update", "task": "a", "notes": ["2nd", "first"]})
    assert service.history(HistoryParams(limit=1))["events"][0]["changes"] == [
        'reordered the notes of "a"'
    ]
