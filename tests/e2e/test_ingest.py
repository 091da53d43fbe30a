"""`plansight/ingest` end to end over stdio: the result, the push, the refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plansight_client import PlansightClient
from pygls.exceptions import JsonRpcException

from plansight.protocol.models import ApplyResult, DidChangeParams
from plansight.protocol.requests import FORMATS

FIXTURES = Path(__file__).parent.parent / "fixtures" / "agents"


def recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return data


async def test_the_server_announces_every_format(client: PlansightClient) -> None:
    assert client.initialize_result is not None
    announced = client.initialize_result.capabilities.experimental["plansight"]
    assert announced["formats"] == list(FORMATS)
    assert "plansight/ingest" in announced["methods"]


async def test_an_agent_payload_is_answered_and_pushed(client: PlansightClient) -> None:
    fixture = recorded("codex-plan")
    result = await client.call(
        "plansight/ingest",
        {"session": "codex:1", "format": fixture["format"], "payload": fixture["payload"]},
    )
    ApplyResult.model_validate(result)
    assert result["version"] == 1 and result["changed"]
    assert result["current"]["content"] == "Handle dates without a time zone"
    assert result["current"]["notes"] == [fixture["payload"]["explanation"]]
    pushed = await client.change_where(lambda c: c["session"] == "codex:1")
    DidChangeParams.model_validate(pushed)
    assert pushed["version"] == 1 and pushed["origin"] == "agent"
    assert pushed["phases"] == result["phases"]
    got = await client.call("plansight/get", {"session": "codex:1"})
    assert got["phases"] == result["phases"]


async def test_every_recorded_replacement_goes_through(client: PlansightClient) -> None:
    for name in (
        "claude-todowrite",
        "opencode-todos",
        "acp-plan-update",
        "vscode-todos",
        "roo-todos",
    ):
        fixture = recorded(name)
        result = await client.call(
            "plansight/ingest",
            {"session": name, "format": fixture["format"], "payload": fixture["payload"]},
        )
        assert result["changed"] and not result["isError"], name
        assert result["current"] is not None, name


async def test_a_bad_status_is_invalid_params_naming_its_path(client: PlansightClient) -> None:
    fixture = recorded("claude-todowrite")
    fixture["payload"]["todos"][2]["status"] = "done"
    with pytest.raises(JsonRpcException) as caught:
        await client.call(
            "plansight/ingest", {"format": "claude-todowrite", "payload": fixture["payload"]}
        )
    assert caught.value.code == -32602
    assert caught.value.data["errors"] == [
        {
            "path": "payload.todos.2.status",
            "message": 'Unknown status "done": expected one of pending, in_progress, completed',
        }
    ]
    got = await client.call("plansight/get", {})
    assert got["version"] == 0


async def test_an_unknown_format_is_invalid_params_at_format(client: PlansightClient) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await client.call("plansight/ingest", {"format": "cursor", "payload": {}})
    assert caught.value.code == -32602
    assert [e["path"] for e in caught.value.data["errors"]] == ["format"]


async def test_claude_task_calls_and_a_title_end_to_end(client: PlansightClient) -> None:
    session = {"session": "claude-code:6f1c2a9e"}
    created = await client.call(
        "plansight/ingest",
        {
            **session,
            "format": "claude-tasks",
            "payload": recorded("claude-taskcreate")["payload"],
            "title": "Payment retries",
        },
    )
    assert created["title"] == "Payment retries"
    assert created["phases"][0]["tasks"][0]["externalId"] == "1"
    updated = await client.call(
        "plansight/ingest",
        {**session, "format": "claude-tasks", "payload": recorded("claude-taskupdate")["payload"]},
    )
    assert updated["current"]["externalId"] == "1" and updated["title"] == "Payment retries"
    pushed = await client.change_where(
        lambda c: c["session"] == session["session"] and c["version"] == 2
    )
    DidChangeParams.model_validate(pushed)
    assert pushed["current"]["owner"] == "main" and pushed["removedTasks"] == []
    deleted = await client.call(
        "plansight/ingest",
        {
            **session,
            "format": "claude-tasks",
            "payload": {
                "tool_name": "TaskUpdate",
                "tool_input": {"taskId": "1", "status": "deleted"},
            },
        },
    )
    assert deleted["phases"] == [] or deleted["phases"][0]["tasks"] == []
    pushed = await client.change_where(
        lambda c: c["session"] == session["session"] and c["version"] == 3
    )
    assert [t["content"] for t in pushed["removedTasks"]] == ["Add retry to the payment client"]
