"""Protocol 3's other requests end to end over stdio: `plansight/undo` stepping back one
change per call (results and pushes, on both backends), the `update` op's `notes`, and
`plansight/context` with `full`; a version 2 client sees what it always saw."""

from __future__ import annotations

from typing import Any

import pytest
from plansight_client import PlansightClient
from pygls.exceptions import JsonRpcException

from plansight.protocol.models import ApplyResult, ContextResult

PLAN = [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]


def tasks(state: dict[str, Any]) -> list[tuple[str, str]]:
    return [(t["content"], t["status"]) for p in state["phases"] for t in p["tasks"]]


async def test_initialize_announces_version_3_with_undo(client: PlansightClient) -> None:
    assert client.initialize_result is not None
    announced = client.initialize_result.capabilities.experimental["plansight"]
    assert announced["protocolVersion"] == 4
    assert "plansight/undo" in announced["methods"]
    # What a version 2 client looks for is all still there.
    assert {"plansight/restore", "plansight/history", "plansight/ingest"} <= set(
        announced["methods"]
    )


@pytest.mark.both_backends
async def test_undo_twice_steps_back_twice_and_each_step_is_pushed(
    client: PlansightClient,
) -> None:
    first = await client.call("plansight/apply", {"session": "u", "ops": PLAN})
    second = await client.call(
        "plansight/apply", {"session": "u", "ops": [{"op": "done", "task": "a"}]}
    )
    await client.call(
        "plansight/apply",
        {"session": "u", "ops": [{"op": "append", "phase": "P", "items": ["c"]}]},
    )
    once = await client.call("plansight/undo", {"session": "u", "origin": "user"})
    ApplyResult.model_validate(once)
    assert once["version"] == 4 and tasks(once) == tasks(second)
    push = await client.change_where(lambda c: c["session"] == "u" and c["version"] == 4)
    assert push["origin"] == "user" and [t["content"] for t in push["removedTasks"]] == ["c"]
    twice = await client.call("plansight/undo", {"session": "u", "origin": "user"})
    assert twice["version"] == 5 and tasks(twice) == tasks(first)
    await client.change_where(lambda c: c["session"] == "u" and c["version"] == 5)

    history = await client.call("plansight/history", {"session": "u", "limit": 2})
    assert [(e["method"], e["origin"]) for e in history["events"]] == [
        ("plansight/undo", "user"),
        ("plansight/undo", "user"),
    ]
    assert history["events"][0]["changes"] == ['started "a"', 'marked "b" pending']

    # An agent's change ends the run: the next undo takes back only that change.
    await client.call(
        "plansight/apply",
        {"session": "u", "ops": [{"op": "note", "task": "a", "text": "see the log"}]},
    )
    back = await client.call("plansight/undo", {"session": "u", "origin": "user"})
    assert tasks(back) == tasks(first) and back["phases"][0]["tasks"][0]["notes"] == []


async def test_nothing_to_undo_is_an_error_line_not_a_failure(client: PlansightClient) -> None:
    result = await client.call("plansight/undo", {"session": "empty", "origin": "user"})
    assert result["isError"] is True and result["errors"] == ["Nothing to undo"]
    assert result["version"] == 0 and result["changed"] is False


async def test_undo_refuses_params_of_the_wrong_type(client: PlansightClient) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await client.call("plansight/undo", {"session": "u", "origin": "robot"})
    assert caught.value.code == -32602
    assert caught.value.data["errors"][0]["path"] == "origin"


@pytest.mark.both_backends
async def test_update_notes_edits_and_deletes_a_note(client: PlansightClient) -> None:
    await client.call(
        "plansight/apply",
        {
            "session": "n",
            "ops": [
                {
                    "op": "init",
                    "list": [{"phase": "P", "items": [{"content": "a", "notes": ["x", "y"]}]}],
                }
            ],
        },
    )
    edited = await client.call(
        "plansight/apply",
        {
            "session": "n",
            "origin": "user",
            "ops": [{"op": "update", "id": "t1", "notes": ["x, reworded  "]}],
        },
    )
    assert edited["phases"][0]["tasks"][0]["notes"] == ["x, reworded"] and edited["changed"]
    push = await client.change_where(lambda c: c["version"] == edited["version"])
    assert push["phases"][0]["tasks"][0]["notes"] == ["x, reworded"]
    context = await client.call("plansight/context", {"session": "n"})
    assert 'edited a note of "a": "x, reworded"; deleted a note of "a": "y"' in context["text"]


async def test_context_full_holds_the_whole_list(client: PlansightClient) -> None:
    await client.call("plansight/apply", {"session": "c", "ops": PLAN})
    result = await client.call("plansight/context", {"session": "c", "full": True})
    ContextResult.model_validate(result)
    assert result["text"].splitlines() == [
        "Todo list: 0/2 completed, 2 remaining.",
        "Current: a",
        "P:",
        "  [>] a",
        "  [ ] b",
    ]
    short = await client.call("plansight/context", {"session": "c"})
    assert "  [ ] b" not in short["text"]  # without full (a version 2 client): as before
    with pytest.raises(JsonRpcException) as caught:
        await client.call("plansight/context", {"session": "c", "full": "yes"})
    assert caught.value.data["errors"][0]["path"] == "full"
