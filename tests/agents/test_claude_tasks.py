"""Claude Code's TaskCreate / TaskUpdate calls through `plansight/ingest`: one task at a
time, named by Claude's own id (the task's externalId)."""

from __future__ import annotations

from typing import Any

import pytest

from plansight.core.errors import FieldError, RequestRefused
from plansight.core.settings import Settings
from plansight.protocol.requests import ApplyParams, GetParams, IngestParams
from plansight.service import PlanService

from .fixtures import payload

Json = dict[str, Any]


def ingest(service: PlanService, call: Json, **params: Any) -> Json:
    request = {"format": "claude-tasks", "payload": call, **params}
    return service.ingest(IngestParams.validate(request), request).result


def create(task_id: str, subject: str, **tool_input: Any) -> Json:
    return {
        "tool_name": "TaskCreate",
        "tool_input": {"subject": subject, "description": f"About {subject}", **tool_input},
        "tool_response": {"task": {"id": task_id, "subject": subject}},
    }


def update(task_id: str, **tool_input: Any) -> Json:
    return {
        "tool_name": "TaskUpdate",
        "tool_input": {"taskId": task_id, **tool_input},
        "tool_response": {"success": True, "taskId": task_id, "updatedFields": list(tool_input)},
    }


def tasks(state: Json) -> dict[str, Json]:
    """Tasks by Claude's id."""
    return {t["externalId"]: t for p in state["phases"] for t in p["tasks"]}


def test_the_recorded_create_then_update(service: PlanService) -> None:
    created = ingest(service, payload("claude-taskcreate"))
    task = tasks(created)["1"]
    assert (task["content"], task["status"], task["activeForm"]) == (
        "Add retry to the payment client",
        "pending",  # a new task waits: ingest never starts one
        "Adding retry to the payment client",
    )
    assert task["description"].startswith("Retry idempotent calls")
    assert created["phases"][0]["name"] == "Todos" and created["current"] is None
    updated = ingest(service, payload("claude-taskupdate"))
    task = tasks(updated)["1"]
    assert (task["status"], task["owner"]) == ("in_progress", "main")
    assert updated["current"]["externalId"] == "1"


def test_tasks_are_created_in_order_after_the_last_task(service: PlanService) -> None:
    request = {
        "ops": [
            {"op": "init", "list": [{"phase": "A", "items": ["a"]}, {"phase": "B", "items": ["b"]}]}
        ]
    }
    service.apply(ApplyParams.validate(request), request)
    ingest(service, create("1", "one"))
    result = ingest(service, create("2", "two"))
    assert [(p["name"], [t["content"] for t in p["tasks"]]) for p in result["phases"]] == [
        ("A", ["a"]),
        ("B", ["b", "one", "two"]),
    ]


def test_a_replayed_create_does_not_add_a_second_task(service: PlanService) -> None:
    ingest(service, create("1", "one"))
    result = ingest(service, create("1", "one"))
    assert len(tasks(result)) == 1 and not result["changed"]


def test_in_progress_acts_as_start_and_completed_completes(service: PlanService) -> None:
    for task_id, subject in (("1", "one"), ("2", "two")):
        ingest(service, create(task_id, subject))
    ingest(service, update("1", status="in_progress"))
    result = ingest(service, update("2", status="in_progress"))
    assert tasks(result)["1"]["status"] == "pending"  # one in progress per owner
    assert tasks(result)["2"]["status"] == "in_progress"
    done = ingest(service, update("2", status="completed"))
    assert done["completedTasks"] == [
        {"id": tasks(done)["2"]["id"], "content": "two", "phase": "Todos"}
    ]
    assert done["current"] is None  # no auto-start


def test_owners_keep_their_own_task_in_progress(service: PlanService) -> None:
    for task_id, subject in (("1", "one"), ("2", "two")):
        ingest(service, create(task_id, subject))
    ingest(service, update("1", status="in_progress", owner="lead"))
    result = ingest(service, update("2", status="in_progress", owner="researcher"))
    assert tasks(result)["1"]["status"] == tasks(result)["2"]["status"] == "in_progress"
    assert result["current"]["externalId"] == "2"  # the most recently started


def test_fields_of_an_update(service: PlanService) -> None:
    ingest(service, create("1", "Add retry"))
    result = ingest(
        service,
        update("1", subject="Add retry with jitter", description="Backoff and jitter"),
    )
    task = tasks(result)["1"]
    assert task["content"] == "Add retry with jitter"
    assert task["activeForm"] == "Add retry with jitter"  # it was the content: it follows
    assert task["description"] == "Backoff and jitter"


def test_dependencies_in_both_directions(service: PlanService) -> None:
    for task_id, subject in (("1", "design"), ("2", "build"), ("3", "ship")):
        ingest(service, create(task_id, subject))
    ingest(service, update("2", addBlockedBy=["1"]))
    result = ingest(service, update("2", addBlocks=["3"]))
    by_id = tasks(result)
    assert by_id["2"]["blockedBy"] == [by_id["1"]["id"]] and by_id["2"]["waiting"]
    assert by_id["3"]["blockedBy"] == [by_id["2"]["id"]]
    assert '  [ ] build (waits for "design")' in result["summary"]
    cycle = ingest(service, update("1", addBlockedBy=["3"]))
    assert cycle["isError"] and cycle["errors"][0].startswith("Dependency cycle: ")
    assert tasks(cycle)["1"]["blockedBy"] == []


def test_deleted_removes_the_task_and_its_dependents_stop_waiting(service: PlanService) -> None:
    for task_id, subject in (("1", "design"), ("2", "build")):
        ingest(service, create(task_id, subject))
    ingest(service, update("2", addBlockedBy=["1"]))
    result = ingest(service, update("1", status="deleted"))
    assert set(tasks(result)) == {"2"}
    assert tasks(result)["2"]["blockedBy"] == []
    assert [t["content"] for t in result["removedTasks"]] == ["design"]


def test_an_unknown_id_is_an_error_line_and_nothing_changes(service: PlanService) -> None:
    ingest(service, create("1", "one"))
    for call, unknown in (
        (update("9", status="completed"), "9"),
        (update("9", status="deleted"), "9"),
        (update("1", status="completed", addBlockedBy=["7"]), "7"),
    ):
        result = ingest(service, call)
        assert result["isError"] and not result["changed"]
        assert result["errors"] == [f'Task id "{unknown}" not found']
        assert result["summary"].startswith(f'Errors: Task id "{unknown}" not found\n')
    assert service.get(GetParams())["version"] == 1


def test_an_update_claude_refused_changes_nothing(service: PlanService) -> None:
    ingest(service, create("1", "one"))
    failed = update("1", status="completed")
    failed["tool_response"] = {"success": False, "taskId": "1", "updatedFields": [], "error": "x"}
    result = ingest(service, failed)
    assert not result["changed"] and not result["isError"]
    assert tasks(result)["1"]["status"] == "pending"


def test_a_create_past_a_limit_is_refused(service: PlanService) -> None:
    service.settings = Settings(max_tasks=1)
    ingest(service, create("1", "one"))
    with pytest.raises(RequestRefused) as caught:
        ingest(service, create("2", "two"))
    assert caught.value.errors == [
        FieldError("payload.tool_input", "Too many tasks (2, the limit is 1)")
    ]
    with pytest.raises(RequestRefused) as caught:
        ingest(service, create("3", "  "))
    assert caught.value.errors[0] == FieldError(
        "payload.tool_input.subject", "Content must not be empty"
    )


def test_an_update_whose_add_blocks_closes_a_cycle_is_skipped_whole(
    service: PlanService,
) -> None:
    for task_id, subject in (("1", "design"), ("2", "build")):
        ingest(service, create(task_id, subject))
    before = ingest(service, update("2", addBlockedBy=["1"]))
    # "design" would wait for "build", which waits for "design": the whole update is a bad
    # op (the cycle is named as the update would have left it), its rename and start too.
    result = ingest(service, update("2", subject="make", status="in_progress", addBlocks=["1"]))
    assert result["isError"] and not result["changed"]
    assert result["errors"] == ['Dependency cycle: "design" -> "make" -> "design"']
    by_id = tasks(result)
    assert by_id["2"]["content"] == "build" and by_id["2"]["status"] == "pending"
    assert by_id["1"]["blockedBy"] == []
    assert by_id["2"]["blockedBy"] == [by_id["1"]["id"]]
    assert result["version"] == before["version"]
