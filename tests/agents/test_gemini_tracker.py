"""Gemini CLI's task tracker calls through `plansight/ingest` (protocol 4, format
`gemini-tracker`): one task at a time, named by the tracker's id (the externalId); a
`parentId` makes a subtask, `dependencies` and an added dependency what it waits for."""

from __future__ import annotations

from typing import Any

import pytest

from plansight.core.errors import RequestRefused
from plansight.protocol.requests import IngestParams
from plansight.service import PlanService

from .fixtures import payload

Json = dict[str, Any]


def ingest(service: PlanService, call: Json, **params: Any) -> Json:
    request = {"format": "gemini-tracker", "payload": call, **params}
    return service.ingest(IngestParams.validate(request), request).result


def create(task_id: str, title: str, kind: str = "task", **tool_input: Any) -> Json:
    return {
        "tool_name": "tracker_create_task",
        "tool_input": {"title": title, "description": f"About {title}", "type": kind, **tool_input},
        "tool_response": {"llmContent": f"Created task {task_id}: {title}", "returnDisplay": {}},
    }


def by_tracker_id(state: Json) -> dict[str, Json]:
    return {t["externalId"]: t for p in state["phases"] for t in p["tasks"]}


def order(state: Json) -> list[str]:
    return [t["externalId"] for p in state["phases"] for t in p["tasks"]]


def test_the_recorded_calls_make_a_subtask_that_waits_then_starts(service: PlanService) -> None:
    # The recorded run's epic and its first task, then a top-level task of this test's.
    ingest(service, create("811b0c", "Fix the login bug", "epic"))
    ingest(service, create("cb21eb", "Reproduce the login bug", parentId="811b0c"))
    ingest(service, create("77aa01", "Ship it"))

    created = ingest(service, payload("gemini-tracker-create"))
    assert created["errors"] == []
    tasks = by_tracker_id(created)
    epic, first, new = tasks["811b0c"], tasks["cb21eb"], tasks["6066e6"]
    assert (new["content"], new["status"]) == ("Fix the session check", "pending")
    assert new["description"] == "Read the right cookie in app.py."
    assert (new["parent"], first["parent"]) == (epic["id"], epic["id"])
    assert new["blockedBy"] == [first["id"]]
    # The last subtask of its parent, before the next top-level task.
    assert order(created) == ["811b0c", "cb21eb", "6066e6", "77aa01"]

    started = ingest(service, payload("gemini-tracker-update"))
    assert by_tracker_id(started)["cb21eb"]["status"] == "in_progress"


def test_statuses_title_and_the_whole_list_of_dependencies(service: PlanService) -> None:
    for task_id in ("aaaaaa", "bbbbbb", "cccccc"):
        ingest(service, create(task_id, f"Task {task_id}"))

    def update(**tool_input: Any) -> Json:
        call = {"tool_name": "tracker_update_task", "tool_input": {"id": "cccccc", **tool_input}}
        return by_tracker_id(ingest(service, call))

    tasks = update(dependencies=["aaaaaa", "bbbbbb"], title="Task C")
    assert [t for t in tasks["cccccc"]["blockedBy"]] == [
        tasks["aaaaaa"]["id"],
        tasks["bbbbbb"]["id"],
    ]
    assert tasks["cccccc"]["content"] == "Task C"
    tasks = update(dependencies=["bbbbbb"])  # the new list, not an addition
    assert tasks["cccccc"]["blockedBy"] == [tasks["bbbbbb"]["id"]]
    for status, ours in (("blocked", "blocked"), ("closed", "completed"), ("open", "pending")):
        assert update(status=status)["cccccc"]["status"] == ours

    linked = ingest(service, payload("gemini-tracker-dependency") | {
        "tool_input": {"taskId": "cccccc", "dependencyId": "aaaaaa"}
    })  # fmt: skip
    tasks = by_tracker_id(linked)
    assert tasks["cccccc"]["blockedBy"] == [tasks["bbbbbb"]["id"], tasks["aaaaaa"]["id"]]


def test_unknown_ids_are_error_lines_and_nothing_is_lost(service: PlanService) -> None:
    made = ingest(service, create("dddddd", "Orphan", parentId="ffffff"))
    assert made["errors"] == ['Task id "ffffff" not found']
    assert by_tracker_id(made)["dddddd"]["parent"] is None  # kept, at the top level
    call = {"tool_name": "tracker_update_task", "tool_input": {"id": "eeeeee", "status": "closed"}}
    assert ingest(service, call)["errors"] == ['Task id "eeeeee" not found']


def test_refusals_name_the_path(service: PlanService) -> None:
    with pytest.raises(RequestRefused) as refused:
        ingest(service, {"tool_name": "tracker_visualize", "tool_input": {}})
    assert refused.value.errors[0].path == "payload.tool_name"
    no_id = create("x", "X") | {"tool_response": {"llmContent": "Error creating task: boom"}}
    with pytest.raises(RequestRefused) as refused:
        ingest(service, no_id)
    assert refused.value.errors[0].path == "payload.tool_response.llmContent"
    bad = {"tool_name": "tracker_update_task", "tool_input": {"id": "a", "status": "done"}}
    with pytest.raises(RequestRefused) as refused:
        ingest(service, bad)
    assert refused.value.errors[0].path == "payload.tool_input.status"
