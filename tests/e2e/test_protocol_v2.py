"""Protocol 2 end to end over stdio: a version 1 client keeps working with the version 1
field set only; blocked, dependencies, owners, removed tasks, history and restore reach
a client as results and pushes."""

from __future__ import annotations

from typing import Any

import pytest
from plansight_client import PlansightClient
from pygls.exceptions import JsonRpcException

from plansight.protocol.models import ApplyResult, TodoState

# What a version 1 client knows of a task and a state: nothing else is sent by it, and
# what it reads of the answers must still be there and mean the same.
V1_TASK = {
    "id",
    "content",
    "activeForm",
    "status",
    "notes",
    "createdAt",
    "updatedAt",
    "startedAt",
    "completedAt",
}
V1_STATE = {"session", "version", "phases", "progress", "current", "updatedAt"}


def tasks(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for p in state["phases"] for t in p["tasks"]]


@pytest.mark.both_backends
async def test_a_version_1_client_keeps_working(client: PlansightClient) -> None:
    v1_ops = [
        {
            "op": "init",
            "list": [
                {
                    "phase": "A",
                    "items": [
                        "one",
                        {
                            "content": "two",
                            "activeForm": "Doing two",
                            "status": "pending",
                            "notes": ["n"],
                        },
                    ],
                }
            ],
        },
        {"op": "start", "task": "two"},
        {"op": "note", "task": "two", "text": "more"},
        {"op": "done", "id": "t1"},
        {"op": "append", "phase": "B", "items": ["three"]},
        {"op": "drop", "task": "three"},
    ]
    result = await client.call("plansight/apply", {"session": "v1", "ops": v1_ops})
    assert result["errors"] == []
    assert set(result) >= V1_STATE and all(set(t) >= V1_TASK for t in tasks(result))
    assert [(t["content"], t["status"]) for t in tasks(result)] == [
        ("one", "completed"),
        ("two", "in_progress"),
        ("three", "abandoned"),
    ]
    assert result["current"]["activeForm"] == "Doing two"
    assert result["progress"]["percent"] == 33
    written = await client.call(
        "plansight/write",
        {
            "session": "v1",
            "todos": [
                {"content": "one", "activeForm": "one", "status": "completed"},
                {"content": "two", "active_form": "Doing two", "status": "completed"},
            ],
        },
    )
    assert written["summary"].startswith("Todo list updated: 2/2 completed")
    assert tasks(written)[1]["notes"] == ["n", "more"]
    await client.call("plansight/clear", {"session": "v1"})
    imported = await client.call(
        "plansight/import", {"session": "v1", "markdown": "## A\n- [x] one\n- [ ] two\n  > n\n"}
    )
    assert [(t["content"], t["status"], t["notes"]) for t in tasks(imported)] == [
        ("one", "completed", []),
        ("two", "in_progress", ["n"]),
    ]
    exported = await client.call("plansight/export", {"session": "v1"})
    assert exported["text"] == "## A\n- [x] one\n- [/] two\n  > n\n"
    state = await client.call("plansight/get", {"session": "v1"})
    assert set(state) >= V1_STATE
    context = await client.call("plansight/context", {"session": "v1"})
    assert "1/2 completed" in context["text"]


@pytest.mark.both_backends
async def test_v2_fields_ops_and_pushes(client: PlansightClient) -> None:
    result = await client.call(
        "plansight/write",
        {
            "session": "s",
            "todos": [
                {"content": "Build", "activeForm": "Building", "status": "in_progress"},
                {
                    "content": "Lint",
                    "activeForm": "Linting",
                    "status": "in_progress",
                    "owner": "sub",
                },
                {
                    "content": "Ship",
                    "activeForm": "Shipping",
                    "status": "pending",
                    "blockedBy": ["Build"],
                    "priority": "high",
                },
                {"content": "Docs", "activeForm": "Writing docs", "status": "pending"},
            ],
        },
    )
    ApplyResult.model_validate(result)
    ship = tasks(result)[2]
    assert ship["waiting"] is True and ship["priority"] == "high"
    assert result["current"]["content"] == "Lint"  # the newest start
    assert '[ ] Ship (waits for "Build")' in result["summary"]
    blocked = await client.call(
        "plansight/apply",
        {
            "session": "s",
            "ops": [
                {"op": "block", "task": "Docs", "reason": "needs a decision"},
                {"op": "update", "task": "Build", "addFiles": ["src/a.py"], "status": "completed"},
            ],
        },
    )
    assert blocked["errors"] == []
    by_content = {t["content"]: t for t in tasks(blocked)}
    assert by_content["Docs"]["status"] == "blocked"
    assert by_content["Build"]["files"] == ["src/a.py"]
    assert by_content["Ship"]["status"] == "in_progress" and by_content["Ship"]["waiting"] is False
    assert blocked["progress"]["blocked"] == 1 and blocked["phases"][0]["progress"]["blocked"] == 1
    cycle = await client.call(
        "plansight/apply",
        {"session": "s", "ops": [{"op": "update", "task": "Build", "blockedBy": ["Ship"]}]},
    )
    assert cycle["errors"] == ['Dependency cycle: "Build" -> "Ship" -> "Build"']

    shrunk = await client.call(
        "plansight/write",
        {
            "session": "s",
            "todos": [{"content": "Build", "activeForm": "Building", "status": "completed"}],
        },
    )
    assert [t["content"] for t in shrunk["removedTasks"]] == ["Lint", "Ship", "Docs"]
    push = await client.change_where(lambda c: c["version"] == shrunk["version"])
    TodoState.model_validate(push)
    assert push["removedTasks"] == shrunk["removedTasks"]

    history = await client.call("plansight/history", {"session": "s", "limit": 2})
    assert [e["version"] for e in history["events"]] == [shrunk["version"], blocked["version"]]
    assert history["events"][0]["method"] == "plansight/write"
    assert 'removed "Ship"' in history["events"][0]["changes"]

    restored = await client.call(
        "plansight/restore", {"session": "s", "version": blocked["version"], "origin": "user"}
    )
    assert restored["version"] == shrunk["version"] + 1
    assert [t["content"] for t in tasks(restored)] == ["Build", "Lint", "Ship", "Docs"]
    push = await client.change_where(lambda c: c["version"] == restored["version"])
    assert push["origin"] == "user"

    try:
        await client.call("plansight/restore", {"session": "s", "version": 999})
    except JsonRpcException as exc:
        assert exc.code == -32602
        assert exc.data["errors"][0]["path"] == "version"
    else:
        raise AssertionError("an unknown version was restored")
