"""Taskmaster's `tasks.json` read behind the service (protocol 4, issue 32): a
`plansight/import` whose text is a Taskmaster file imports its tasks and subtasks, from
any client; a JSON object that is not one is refused at `markdown`, nothing changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from plansight.core.errors import RequestRefused
from plansight.protocol.requests import GetParams, ImportParams
from plansight.service import PlanService

FIXTURE = Path(__file__).parent.parent / "fixtures" / "taskmaster" / "tasks.json"


def imported(service: PlanService, text: str) -> dict[str, Any]:
    request = {"session": "tm", "markdown": text}
    result: dict[str, Any] = service.import_markdown(ImportParams.validate(request), request).result
    return result


def test_the_service_reads_a_taskmaster_file_sent_as_the_imports_text(
    service: PlanService,
) -> None:
    state = imported(service, FIXTURE.read_text(encoding="utf-8"))
    tasks = [t for p in state["phases"] for t in p["tasks"]]
    by_id = {t["id"]: t for t in tasks}
    generation = "Create Task File Generation System"
    assert [t["content"] for t in tasks if by_id.get(t["parent"] or "", {}).get("content")] == [
        "Design Task File Template Structure",
        "Implement Task File Generation Logic",
        "Implement File Naming and Organization System",
    ]
    assert {by_id[t["parent"]]["content"] for t in tasks if t["parent"]} == {generation}


@pytest.mark.parametrize(
    ("data", "path", "message"),
    [
        ({"a": 1}, "markdown", 'not a Taskmaster tasks file: no "tasks" list'),
        ({"tasks": [{"id": 1}]}, "markdown.tasks.0.title", "a task needs a title"),
        (
            {
                "master": {
                    "tasks": [{"id": 1, "title": "A", "subtasks": [{"title": "B", "status": "x"}]}]
                }
            },
            "markdown.tasks.0.subtasks.0.status",
            'unknown status "x"',
        ),
    ],
)
def test_json_that_is_not_taskmaster_is_refused_where_it_goes_wrong(
    service: PlanService, data: Any, path: str, message: str
) -> None:
    imported(service, "- [ ] Kept\n")
    with pytest.raises(RequestRefused) as refused:
        imported(service, json.dumps(data))
    assert [(e.path, e.message) for e in refused.value.errors] == [(path, message)]
    assert [
        t["content"]
        for p in service.get(GetParams.validate({"session": "tm"}))["phases"]
        for t in p["tasks"]
    ] == ["Kept"]
