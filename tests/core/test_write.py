"""`plansight/write`: the strict, TodoWrite-compatible full replacement."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from plansight.core.errors import FieldError, RequestRefused
from plansight.core.model import Plan
from plansight.core.settings import Settings
from plansight.core.write import write_todos
from plansight.protocol.requests import GetParams, WriteParams
from plansight.service import PlanService

from .conftest import Json, Request
from .states import rows, task

NOW = "2025-01-01T00:00:00.000Z"


def todo(content: str, status: str = "pending", **extra: Any) -> Json:
    return {"content": content, "activeForm": f"Doing {content}", "status": status, **extra}


def refused(items: list[Json], settings: Settings | None = None) -> RequestRefused:
    params = WriteParams.validate({"todos": items})
    with pytest.raises(RequestRefused) as caught:
        write_todos(Plan("s"), params.todos, settings or Settings(), NOW)
    return caught.value


# ---------------------------------------------------------------- strictness


def test_empty_content_or_active_form_refuses_the_whole_request() -> None:
    error = refused(
        [
            todo("fine"),
            {"content": "  \n", "activeForm": "Doing", "status": "pending"},
            {"content": "x", "activeForm": "", "status": "pending"},
        ]
    )
    assert error.errors == [
        FieldError("todos.1.content", "Content must not be empty"),
        FieldError("todos.2.activeForm", "activeForm must not be empty"),
    ]


def test_two_tasks_in_progress_are_refused_with_the_contract_message() -> None:
    error = refused([todo("a", "in_progress"), todo("b", "in_progress"), todo("c")])
    assert error.message == "Only one task can be in_progress at a time"
    assert FieldError("todos", "Only one task can be in_progress at a time") in error.errors


@pytest.mark.parametrize(
    "item",
    [
        {"content": "x", "activeForm": "X", "status": "paused"},
        {"content": "x", "activeForm": "X"},
        {"content": "x", "status": "pending"},
        {"activeForm": "X", "status": "pending"},
        {"content": 1, "activeForm": "X", "status": "pending"},
        {"content": "x", "activeForm": "X", "status": "pending", "notes": "n"},
    ],
)
def test_an_unknown_status_or_a_missing_field_fails_the_schema(item: Json) -> None:
    with pytest.raises(ValidationError):
        WriteParams.validate({"todos": [item]})


@pytest.mark.parametrize(
    ("limits", "items", "path"),
    [
        ({"maxTasks": 2}, [todo("a"), todo("b"), todo("c")], "todos"),
        ({"maxPhases": 1}, [todo("a", phase="A"), todo("b", phase="B")], "todos"),
        (
            {"maxContentLength": 8},
            [todo("a"), {"content": "too long!", "activeForm": "Long", "status": "pending"}],
            "todos.1.content",
        ),
        (
            {"maxContentLength": 8},
            [{"content": "a", "activeForm": "Running a", "status": "pending"}],
            "todos.0.activeForm",
        ),
        ({"maxContentLength": 8}, [todo("a", phase="Long phase")], "todos.0.phase"),
        ({"maxNoteLength": 3}, [todo("a", notes=["four"])], "todos.0.notes"),
        ({"maxNotesPerTask": 1}, [todo("a", notes=["1", "2"])], "todos.0.notes"),
    ],
)
def test_a_limit_passed_refuses_the_whole_request(
    service: PlanService, write: Request, limits: Json, items: list[Json], path: str
) -> None:
    before = write([todo("keep", "in_progress")])
    service.settings = Settings.validate(limits)
    with pytest.raises(RequestRefused) as caught:
        write(items)
    assert [e.path for e in caught.value.errors] == [path]
    after = service.get(GetParams())
    assert after["version"] == before["version"]
    assert rows(after) == [("Todos", "keep", "in_progress")]


def test_a_refused_write_changes_nothing_in_the_store(service: PlanService, write: Request) -> None:
    before = write([todo("a", "in_progress"), todo("b")])
    with pytest.raises(RequestRefused):
        write([todo("a", "completed"), todo("b", "in_progress"), todo("c", "in_progress")])
    after = service.get(GetParams())
    assert after["version"] == before["version"]
    assert rows(after) == rows(before)


# ---------------------------------------------------------------- replacement


def test_active_form_is_accepted_as_an_alias(write: Request) -> None:
    result = write(
        [{"content": "Run tests", "active_form": "Running tests", "status": "in_progress"}]
    )
    assert result["current"]["activeForm"] == "Running tests"


def test_items_without_phase_go_to_todos_and_phases_keep_first_appearance_order(
    write: Request,
) -> None:
    result = write(
        [
            todo("b1", phase="Build"),
            todo("t1"),
            todo("r1", phase="Release"),
            todo("b2", phase="Build"),
            todo("t2", phase=""),
        ]
    )
    assert rows(result) == [
        ("Build", "b1", "pending"),
        ("Build", "b2", "pending"),
        ("Todos", "t1", "pending"),
        ("Todos", "t2", "pending"),
        ("Release", "r1", "pending"),
    ]


def test_write_does_not_auto_start(write: Request) -> None:
    result = write([todo("a"), todo("b")])
    assert result["current"] is None
    assert {status for _, _, status in rows(result)} == {"pending"}


def test_the_whole_list_is_replaced(write: Request, apply: Request) -> None:
    apply({"op": "init", "list": [{"phase": "A", "items": ["a1"]}, {"phase": "B", "items": ["b"]}]})
    result = write([todo("new", "in_progress")])
    assert rows(result) == [("Todos", "new", "in_progress")]


def test_a_task_keeps_id_and_times_when_the_item_has_the_same_content(write: Request) -> None:
    first = write([todo("a", "in_progress"), todo("b")])
    a_before = task(first, "a")
    second = write([todo("b", "in_progress"), todo("a", "completed")])
    a_after = task(second, "a")
    assert a_after["id"] == a_before["id"]
    assert a_after["createdAt"] == a_before["createdAt"]
    assert a_after["startedAt"] == a_before["startedAt"] is not None
    assert a_after["completedAt"] is not None
    assert task(second, "b")["id"] == task(first, "b")["id"]


def test_a_task_keeps_id_and_times_when_the_item_names_its_id(write: Request) -> None:
    first = write([todo("Fix bug", "in_progress")])
    old = task(first, "Fix bug")
    second = write([todo("Fix the parser bug", "in_progress", id=old["id"])])
    renamed = task(second, "Fix the parser bug")
    assert renamed["id"] == old["id"]
    assert renamed["createdAt"] == old["createdAt"]
    assert renamed["startedAt"] == old["startedAt"]


def test_new_contents_get_new_server_assigned_ids(write: Request) -> None:
    first = write([todo("a")])
    second = write([todo("b", id="my-id"), todo("c")])
    ids = [t["id"] for phase in second["phases"] for t in phase["tasks"]]
    assert task(first, "a")["id"] not in ids
    assert ids == ["t2", "t3"]


def test_notes_are_kept_when_an_item_says_nothing_of_them(write: Request, apply: Request) -> None:
    write([todo("a", "in_progress")])
    apply({"op": "note", "task": "a", "text": "from the user"}, origin="user")
    kept = write([todo("a", "completed")])
    assert task(kept, "a")["notes"] == ["from the user"]
    replaced = write([todo("a", "completed", notes=["new"])])
    assert task(replaced, "a")["notes"] == ["new"]


def test_an_empty_list_clears_the_session(write: Request) -> None:
    before = write([todo("a", "in_progress")])
    result = write([])
    assert result["summary"] == 'Todo list cleared.\nRemoved 1 unfinished task: "a"'
    assert [t["content"] for t in result["removedTasks"]] == ["a"]
    assert result["phases"] == []
    assert result["current"] is None
    assert result["version"] == before["version"] + 1


def test_summary_begins_with_updated_and_the_progress(write: Request) -> None:
    result = write([todo("a", "completed"), todo("b", "in_progress"), todo("c")])
    assert result["summary"].startswith("Todo list updated: 1/3 completed")
    assert result["isError"] is False
    assert result["errors"] == []
    assert [c["content"] for c in result["completedTasks"]] == ["a"]


def test_the_same_write_twice_says_updated_and_keeps_the_version(write: Request) -> None:
    items = [todo("a", "completed"), todo("b", "in_progress")]
    first = write(items)
    second = write(items)
    assert second["summary"].startswith("Todo list updated: 1/2 completed")
    assert second["changed"] is False
    assert second["version"] == first["version"] == 1
    assert second["completedTasks"] == []


def test_write_cleans_contents(write: Request) -> None:
    result = write(
        [{"content": " Run\tthe\r\nbuild \u202e", "activeForm": "Building\n", "status": "pending"}]
    )
    assert rows(result) == [("Todos", "Run the build", "pending")]
    assert task(result, "Run the build")["activeForm"] == "Building"
