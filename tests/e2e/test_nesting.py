"""Protocol 4's nested tasks through a real `plansight serve`: a parent's status is its
subtasks', ops on a parent act on its subtree, and the ways of making subtasks (append
with `parent`, an Item's `subtasks`, a WriteItem's `parent`), with `maxDepth`."""

from __future__ import annotations

from typing import Any

import pytest
from plansight_client import PlansightClient
from pygls.exceptions import JsonRpcException

from plansight.protocol.models import ApplyResult

Json = dict[str, Any]

# Build [Compile [Parse, Emit], Test]; Ship [Tag]
NESTED = {
    "op": "init",
    "list": [
        {
            "phase": "Build",
            "items": [{"content": "Compile", "subtasks": ["Parse", "Emit"]}, "Test"],
        },
        {"phase": "Ship", "items": ["Tag"]},
    ],
}


async def apply(client: PlansightClient, *ops: Json, **params: Any) -> Json:
    result: Json = await client.call(
        "plansight/apply", {"session": "n", "ops": list(ops), **params}
    )
    ApplyResult.model_validate(result)
    return result


async def write(client: PlansightClient, todos: list[Json], **params: Any) -> Json:
    result: Json = await client.call("plansight/write", {"session": "n", "todos": todos, **params})
    return result


def rows(state: Json) -> list[tuple[str, str, str, str | None]]:
    """(phase, content, status, parent's content) of every task, as the wire lists them."""
    by_id = {t["id"]: t["content"] for p in state["phases"] for t in p["tasks"]}
    return [
        (p["name"], t["content"], t["status"], by_id.get(t["parent"]) if t["parent"] else None)
        for p in state["phases"]
        for t in p["tasks"]
    ]


def status(state: Json, content: str) -> str:
    return next(s for _, c, s, _ in rows(state) if c == content)


def task(state: Json, content: str) -> Json:
    return next(t for p in state["phases"] for t in p["tasks"] if t["content"] == content)


def item(content: str, status: str = "pending", **fields: Any) -> Json:
    return {"content": content, "activeForm": content, "status": status, **fields}


# ---------------------------------------------------------------- making subtasks


async def test_init_nests_items_in_document_order_and_counts_leaves(
    client: PlansightClient,
) -> None:
    result = await apply(client, NESTED)
    assert rows(result) == [
        ("Build", "Compile", "in_progress", None),
        ("Build", "Parse", "in_progress", "Compile"),
        ("Build", "Emit", "pending", "Compile"),
        ("Build", "Test", "pending", None),
        ("Ship", "Tag", "pending", None),
    ]
    # Auto-start picked the first leaf; the parent follows it; current is that leaf.
    assert result["current"]["content"] == "Parse"
    assert result["progress"]["total"] == 4
    assert result["phases"][0]["progress"]["total"] == 3
    assert "  [>] Compile\n    [>] Parse\n    [ ] Emit\n  [ ] Test" in result["summary"]


async def test_append_with_parent_adds_its_last_subtasks_in_its_phase(
    client: PlansightClient,
) -> None:
    await apply(client, NESTED)
    result = await apply(
        client,
        {"op": "append", "parent": "Compile", "items": [{"content": "Link", "subtasks": ["Map"]}]},
    )
    assert rows(result)[:6] == [
        ("Build", "Compile", "in_progress", None),
        ("Build", "Parse", "in_progress", "Compile"),
        ("Build", "Emit", "pending", "Compile"),
        ("Build", "Link", "pending", "Compile"),
        ("Build", "Map", "pending", "Link"),
        ("Build", "Test", "pending", None),
    ]
    tag = task(result, "Tag")["id"]
    by_id = await apply(client, {"op": "append", "parent": tag, "items": ["Push"]})
    assert rows(by_id)[-1] == ("Ship", "Push", "pending", "Tag")


async def test_append_under_an_unknown_parent_is_an_error_line(client: PlansightClient) -> None:
    await apply(client, NESTED)
    result = await apply(client, {"op": "append", "parent": "Nope", "items": ["X"]})
    assert result["errors"] == ['Task "Nope" not found']
    assert "X" not in [c for _, c, _, _ in rows(result)]


async def test_append_past_max_depth_is_skipped_naming_the_first_too_deep(
    client: PlansightClient,
) -> None:
    await apply(client, NESTED)
    deep = {"content": "L3", "subtasks": [{"content": "L4", "subtasks": ["L5a", "L5b"]}]}
    result = await apply(client, {"op": "append", "parent": "Parse", "items": [deep]})
    assert result["errors"] == ['Too deep: "L5a" would be at depth 5, the limit is 4']
    assert result["changed"] is False
    assert len(rows(result)) == 5


async def test_max_depth_is_a_setting(db: Any) -> None:
    from plansight_client import start_client, stop_client

    client = await start_client(db, options={"maxDepth": 2})
    try:
        await apply(client, {"op": "init", "list": [{"phase": "P", "items": ["Keep"]}]})
        await apply(client, {"op": "update", "task": "Keep", "status": "pending"}, origin="user")
        deep = {"content": "A", "subtasks": [{"content": "B", "subtasks": ["C"]}]}
        result = await apply(client, {"op": "init", "list": [{"phase": "P", "items": [deep]}]})
        assert result["errors"] == ['Too deep: "C" would be at depth 3, the limit is 2']
        # Nothing changed: not even auto-start of the pending task.
        assert result["changed"] is False
        assert rows(result) == [("P", "Keep", "pending", None)]
        with pytest.raises(JsonRpcException) as refused:
            await write(
                client,
                [item("A"), item("B", parent="A"), item("C", parent="B")],
            )
        assert refused.value.code == -32602
        assert refused.value.data["errors"] == [
            {
                "path": "todos.2.parent",
                "message": 'Too deep: "C" would be at depth 3, the limit is 2',
            }
        ]
    finally:
        await stop_client(client)


async def test_write_nests_by_parent_id_or_content_and_keeps_a_parent_left_out(
    client: PlansightClient,
) -> None:
    first = await write(
        client,
        [
            item("Plan", phase="Design"),
            item("Sketch", "in_progress", parent="Plan", phase="Elsewhere"),
            item("Review", parent="Plan"),
        ],
    )
    # A phase beside parent is ignored: a subtask sits in its parent's phase.
    assert rows(first) == [
        ("Design", "Plan", "in_progress", None),
        ("Design", "Sketch", "in_progress", "Plan"),
        ("Design", "Review", "pending", "Plan"),
    ]
    plan_id = task(first, "Plan")["id"]
    # Without parent a task keeps its own; parent by the id of the task an item continues.
    second = await write(
        client,
        [
            item("Plan", "completed", phase="Design"),
            item("Sketch", "completed", phase="Design"),
            item("Review", "in_progress", phase="Design"),
            item("Ask", parent=plan_id),
        ],
    )
    assert rows(second) == [
        ("Design", "Plan", "in_progress", None),
        ("Design", "Sketch", "completed", "Plan"),
        ("Design", "Review", "in_progress", "Plan"),
        ("Design", "Ask", "pending", "Plan"),
    ]
    # parent: null puts it at the top level.
    third = await write(
        client,
        [
            item("Plan", phase="Design"),
            item("Sketch", "completed", phase="Design"),
            item("Review", "completed", phase="Design", parent=None),
            item("Ask", "completed", phase="Design"),
        ],
    )
    assert rows(third) == [
        ("Design", "Plan", "completed", None),
        ("Design", "Sketch", "completed", "Plan"),
        ("Design", "Ask", "completed", "Plan"),
        ("Design", "Review", "completed", None),
    ]


async def test_write_with_a_parent_naming_no_earlier_item_is_refused_whole(
    client: PlansightClient,
) -> None:
    await write(client, [item("A")])
    with pytest.raises(JsonRpcException) as refused:
        await write(client, [item("B", parent="C"), item("C")])
    assert refused.value.code == -32602
    assert [e["path"] for e in refused.value.data["errors"]] == ["todos.0.parent"]
    state = await client.call("plansight/get", {"session": "n"})
    assert rows(state) == [("Todos", "A", "pending", None)]


async def test_write_counts_in_progress_on_leaves_only(client: PlansightClient) -> None:
    result = await write(
        client, [item("Parent", "in_progress"), item("Child", "in_progress", parent="Parent")]
    )
    assert status(result, "Parent") == "in_progress"
    assert result["current"]["content"] == "Child"


# ---------------------------------------------------------------- a parent's status


@pytest.mark.parametrize(
    ("children", "expected"),
    [
        (["completed", "abandoned"], "completed"),
        (["abandoned", "abandoned"], "abandoned"),
        (["in_progress", "blocked"], "in_progress"),
        (["blocked", "pending"], "blocked"),
        (["completed", "pending"], "pending"),
    ],
)
async def test_a_parents_status_is_its_subtasks(
    client: PlansightClient, children: list[str], expected: str
) -> None:
    result = await write(
        client,
        [item("P"), item("A", children[0], parent="P"), item("B", children[1], parent="P")],
    )
    parent = task(result, "P")
    assert parent["status"] == expected
    assert (parent["completedAt"] is not None) == (expected in ("completed", "abandoned"))
    assert (parent["startedAt"] is not None) == (expected == "in_progress")


async def test_done_on_a_parent_ends_its_unfinished_subtasks_and_lists_it(
    client: PlansightClient,
) -> None:
    await apply(client, NESTED, {"op": "drop", "task": "Emit"})
    result = await apply(client, {"op": "done", "task": "Compile"})
    assert [status(result, c) for c in ("Compile", "Parse", "Emit")] == [
        "completed",
        "completed",
        "abandoned",
    ]
    assert [c["content"] for c in result["completedTasks"]] == ["Compile", "Parse"]
    # A parent whose subtasks all ended: done changes nothing.
    again = await apply(client, {"op": "done", "task": "Compile"})
    assert again["changed"] is False


async def test_rm_on_a_parent_removes_its_subtree_listed_in_document_order(
    client: PlansightClient,
) -> None:
    await apply(client, NESTED)
    result = await apply(client, {"op": "rm", "task": "Compile"})
    assert [c for _, c, _, _ in rows(result)] == ["Test", "Tag"]
    assert [r["content"] for r in result["removedTasks"]] == ["Compile", "Parse", "Emit"]
    assert result["current"]["content"] == "Test"


async def test_start_on_a_parent_starts_its_first_pending_leaf(client: PlansightClient) -> None:
    await apply(client, NESTED, {"op": "done", "task": "Parse"})
    result = await apply(client, {"op": "start", "task": "Compile"})
    assert result["current"]["content"] == "Emit"
    await apply(client, {"op": "done", "task": "Emit"})
    none_left = await apply(client, {"op": "start", "task": "Compile"})
    assert none_left["errors"] == ['Task "Compile" has no subtask to start']


async def test_block_or_pending_on_a_parent_is_skipped(client: PlansightClient) -> None:
    await apply(client, NESTED)
    result = await apply(
        client,
        {"op": "block", "task": "Compile"},
        {"op": "update", "task": "Compile", "status": "pending", "content": "Renamed"},
    )
    line = 'Task "Compile" has subtasks: change them instead'
    assert result["errors"] == [line, line]
    assert status(result, "Compile") == "in_progress"
    assert result["changed"] is False


async def test_waiting_on_a_parent_until_it_ends(client: PlansightClient) -> None:
    await apply(client, NESTED)
    result = await apply(
        client,
        {"op": "update", "task": "Test", "blockedBy": ["Compile"]},
        {"op": "done", "task": "Parse"},
    )
    assert task(result, "Test")["waiting"] is True
    done = await apply(client, {"op": "done", "task": "Emit"})
    assert task(done, "Test")["waiting"] is False
    assert done["current"]["content"] == "Test"


async def test_a_parent_that_loses_its_last_subtask_is_a_leaf_again(
    client: PlansightClient,
) -> None:
    await apply(client, NESTED, {"op": "done", "task": "Parse"}, {"op": "done", "task": "Emit"})
    result = await apply(client, {"op": "rm", "task": "Parse"}, {"op": "rm", "task": "Emit"})
    assert status(result, "Compile") == "completed"
    assert result["progress"]["total"] == 3
    assert result["progress"]["completed"] == 1


async def test_context_counts_leaves(client: PlansightClient) -> None:
    await apply(client, NESTED)
    context = await client.call("plansight/context", {"session": "n"})
    assert "0/4 completed, 4 remaining" in context["text"]
    assert "Current task: Parse" in context["text"]
    full = await client.call("plansight/context", {"session": "n", "full": True})
    assert "  [>] Compile\n    [>] Parse" in full["text"]
