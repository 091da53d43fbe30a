"""The protocol models are the one source of truth: their JSON Schema names every method
and field of PROTOCOL.md in camelCase, and what the service answers fits them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import BaseModel

from plansight.core.model import FINISHED
from plansight.protocol.models import (
    DID_CHANGE,
    DID_PRUNE,
    METHODS,
    ApplyResult,
    ContextResult,
    DidChangeParams,
    SessionsResult,
    TextResult,
    TodoState,
    json_schema,
)
from plansight.protocol.requests import (
    ApplyParams,
    ClearParams,
    ContextParams,
    ExportParams,
    GetParams,
    ImportParams,
    WriteParams,
)
from plansight.service import PlanService
from plansight.wire import STATE_KEYS

Json = dict[str, Any]

# The requests table of PROTOCOL.md, field by field.
CONTRACT_PARAMS = {
    "plansight/apply": {"session", "ops", "baseVersion", "origin"},
    "plansight/write": {"session", "todos", "baseVersion", "origin", "merge"},
    "plansight/get": {"session"},
    "plansight/sessions": set(),
    "plansight/clear": {"session", "origin"},
    "plansight/export": {"session", "format"},
    "plansight/import": {"session", "markdown", "origin", "baseVersion", "merge"},
    "plansight/context": {"session", "full"},
    "plansight/history": {"session", "limit"},
    "plansight/restore": {"session", "version", "origin"},
    "plansight/ingest": {"session", "format", "payload", "title", "baseVersion", "origin"},
    "plansight/undo": {"session", "origin"},
}
TODO_STATE = {"session", "title", "version", "phases", "progress", "current", "updatedAt"}
APPLY_RESULT = TODO_STATE | {
    "summary",
    "errors",
    "isError",
    "completedTasks",
    "removedTasks",
    "changed",
}
CONTRACT_RESULTS = {
    "plansight/apply": APPLY_RESULT,
    "plansight/write": APPLY_RESULT,
    "plansight/get": TODO_STATE,
    "plansight/sessions": {"sessions"},
    "plansight/clear": APPLY_RESULT,
    "plansight/export": {"text"},
    "plansight/import": APPLY_RESULT,
    "plansight/context": {"text", "reminder"},
    "plansight/history": {"events"},
    "plansight/restore": APPLY_RESULT,
    "plansight/ingest": APPLY_RESULT,
    "plansight/undo": APPLY_RESULT,
}
TASK = {
    "description",
    "priority",
    "blockedBy",
    "waiting",
    "owner",
    "files",
    "externalId",
    "id",
    "content",
    "activeForm",
    "status",
    "notes",
    "createdAt",
    "updatedAt",
    "startedAt",
    "completedAt",
    "createdBy",
    "parent",  # (v4)
}
OPS = {
    "init": {"op", "list"},
    "start": {"op", "task", "id"},
    "done": {"op", "task", "id", "phase"},
    "drop": {"op", "task", "id", "phase"},
    "rm": {"op", "task", "id", "phase"},
    "append": {"op", "phase", "items"},
    "note": {"op", "task", "id", "text"},
    "block": {"op", "task", "id", "reason"},
    "update": {
        "op",
        "task",
        "id",
        "content",
        "activeForm",
        "description",
        "priority",
        "owner",
        "status",
        "blockedBy",
        "addFiles",
        "notes",  # (v3)
    },
}
STATUSES = ["pending", "in_progress", "completed", "abandoned", "blocked"]
V2_ITEM = {"description", "priority", "blockedBy", "owner"}
CAMEL = re.compile(r"^[a-z][a-zA-Z]*$")


def resolve(root: Json, node: Json) -> Json:
    while "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def fields(root: Json, node: Json) -> set[str]:
    return set(resolve(root, node).get("properties", {}))


def schema_defs(root: Json) -> dict[str, Json]:
    return root.get("$defs", {})


def test_the_schema_covers_every_request_and_notification_of_the_contract() -> None:
    schema = json_schema()
    assert schema["protocolVersion"] == 4
    assert set(METHODS) == set(CONTRACT_PARAMS)
    assert set(schema["requests"]) == set(CONTRACT_PARAMS)
    assert set(schema["notifications"]) == {DID_CHANGE, DID_PRUNE}
    assert {DID_CHANGE, DID_PRUNE} == {"plansight/didChange", "plansight/didPrune"}
    prune = schema["notifications"][DID_PRUNE]["params"]
    assert set(prune["properties"]) == {"sessions"} == set(prune["required"])


@pytest.mark.parametrize("method", sorted(CONTRACT_PARAMS))
def test_params_and_results_carry_the_contracts_field_names(method: str) -> None:
    entry = json_schema()["requests"][method]
    assert fields(entry["params"], entry["params"]) == CONTRACT_PARAMS[method]
    assert fields(entry["result"], entry["result"]) == CONTRACT_RESULTS[method]


def test_every_field_name_is_camel_case() -> None:
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for name in node.get("properties", {}):
                assert CAMEL.match(name), name
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json_schema())


def test_the_ops_and_items_have_the_contracts_shapes() -> None:
    params = json_schema()["requests"]["plansight/apply"]["params"]
    ops = params["properties"]["ops"]
    assert ops["minItems"] == 1
    variants = [resolve(params, v) for v in ops["items"]["oneOf"]]
    by_op = {v["properties"]["op"]["const"]: set(v["properties"]) for v in variants}
    assert by_op == OPS
    defs = schema_defs(params)
    assert (
        set(defs["ItemSpec"]["properties"])
        == {
            "content",
            "activeForm",
            "status",
            "notes",
        }
        | V2_ITEM
    )
    assert defs["ItemSpec"]["required"] == ["content"]
    assert set(defs["PhaseSpec"]["properties"]) == {"phase", "items"}


def test_write_items_have_the_todowrite_shape() -> None:
    params = json_schema()["requests"]["plansight/write"]["params"]
    item = schema_defs(params)["WriteItem"]
    assert (
        set(item["properties"])
        == {
            "content",
            "activeForm",
            "status",
            "id",
            "phase",
            "notes",
        }
        | V2_ITEM
    )
    assert set(item["required"]) == {"content", "activeForm", "status"}
    assert item["properties"]["status"]["enum"] == STATUSES


def test_results_describe_tasks_progress_and_completions() -> None:
    result = json_schema()["requests"]["plansight/apply"]["result"]
    defs = schema_defs(result)
    assert set(defs["TaskModel"]["properties"]) == TASK
    assert set(defs["ProgressModel"]["properties"]) == {
        "completed",
        "abandoned",
        "blocked",
        "total",
        "percent",
    }
    assert set(defs["Completion"]["properties"]) == {"id", "content", "phase"}
    assert set(defs["PhaseModel"]["properties"]) == {"name", "tasks", "progress"}
    notification = json_schema()["notifications"][DID_CHANGE]["params"]
    assert fields(notification, notification) == TODO_STATE | {
        "origin",
        "completedTasks",
        "removedTasks",
    }


def test_the_rules_say_which_statuses_are_finished_as_the_server_counts_them() -> None:
    """The editors read the finished statuses from `rules` (issue 30, item 7): the table is
    the server's own, each is a status, and each has its count in the progress, so
    `total` less those counts is what remains."""
    rules = json_schema()["rules"]
    assert set(rules["finishedStatuses"]) == FINISHED
    result = json_schema()["requests"]["plansight/get"]["result"]
    defs = schema_defs(result)
    assert set(rules["finishedStatuses"]) <= set(defs["TaskModel"]["properties"]["status"]["enum"])
    assert set(rules["finishedStatuses"]) <= set(defs["ProgressModel"]["properties"])


def test_history_events_have_the_contracts_shape() -> None:
    result = json_schema()["requests"]["plansight/history"]["result"]
    event = schema_defs(result)["HistoryEvent"]
    assert set(event["properties"]) == {"version", "origin", "method", "at", "changes"}


# ---------------------------------------------------------------- what the service answers


def fits(model: type[BaseModel], data: Json) -> None:
    """`data` validates against `model` and has exactly its fields, no more, no fewer."""
    assert model.model_validate(data).model_dump(by_alias=True, mode="json") == data


@pytest.fixture
def busy(service: PlanService) -> PlanService:
    """A store with a bit of everything: notes, finished tasks, an empty phase."""
    request: Json = {
        "ops": [
            {
                "op": "init",
                "list": [
                    {
                        "phase": "A",
                        "items": [
                            {"content": "a1", "status": "completed"},
                            {"content": "a2", "activeForm": "Doing a2", "notes": ["n"]},
                            {"content": "a3", "status": "abandoned"},
                        ],
                    },
                    {"phase": "B", "items": ["b1"]},
                ],
            },
            {"op": "rm", "phase": "B"},
        ]
    }
    service.apply(ApplyParams.validate(request), request)
    return service


def test_apply_results_fit_the_model(busy: PlanService) -> None:
    request: Json = {"ops": [{"op": "done", "task": "a2"}, {"op": "done", "task": "nope"}]}
    outcome = busy.apply(ApplyParams.validate(request), request)
    fits(ApplyResult, outcome.result)
    assert outcome.result["completedTasks"]
    assert outcome.result["errors"]
    state = {key: outcome.result[key] for key in STATE_KEYS}
    did_change = {
        **state,
        "origin": outcome.origin,
        "completedTasks": outcome.completed,
        "removedTasks": outcome.removed,
    }
    fits(DidChangeParams, did_change)


def test_write_clear_and_import_results_fit_the_model(busy: PlanService) -> None:
    request: Json = {
        "todos": [
            {"content": "w", "activeForm": "Doing w", "status": "in_progress", "notes": ["x"]},
            {"content": "a1", "activeForm": "a1", "status": "completed", "phase": "A"},
        ]
    }
    fits(ApplyResult, busy.write(WriteParams.validate(request), request).result)
    request = {"markdown": "## M\n- [x] m1\n- [/] m2\n  > note\n"}
    fits(ApplyResult, busy.import_markdown(ImportParams.validate(request), request).result)
    fits(ApplyResult, busy.clear(ClearParams(), {}).result)


def test_read_results_fit_their_models(busy: PlanService) -> None:
    fits(TodoState, busy.get(GetParams()))
    fits(TodoState, busy.get(GetParams(session="never-used")))
    fits(SessionsResult, busy.sessions())
    fits(TextResult, busy.export(ExportParams(format="markdown")))
    fits(TextResult, busy.export(ExportParams(format="json")))
    fits(ContextResult, busy.context(ContextParams()))
