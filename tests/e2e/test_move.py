"""Protocol 4's `move` op end to end over stdio: where each of before, after, parent,
`parent: null` and phase puts a task (its subtasks going with it), the moves skipped
(under itself, past maxDepth, none or several places named), a move to where the task
is, the history's words, and a person's move undone. Nesting is made with moves too."""

from __future__ import annotations

from typing import Any

import pytest
from plansight_client import PlansightClient

from plansight.protocol.models import ApplyResult

Json = dict[str, Any]


def outline(state: Json) -> list[str]:
    """Each phase as `# name`, then its tasks in order, two spaces deeper per parent."""
    lines: list[str] = []
    for phase in state["phases"]:
        lines.append(f"# {phase['name']}")
        depth: dict[str | None, int] = {None: -1}
        for task in phase["tasks"]:
            depth[task["id"]] = depth.get(task["parent"], -1) + 1
            lines.append("  " * depth[task["id"]] + task["content"])
    return lines


async def apply(client: PlansightClient, *ops: Json, origin: str = "agent") -> Json:
    result = await client.call(
        "plansight/apply", {"session": "m", "ops": list(ops), "origin": origin}
    )
    ApplyResult.model_validate(result)
    return result


async def plan_with_subtasks(client: PlansightClient) -> Json:
    """P: a (a1, a2), b, c; Q: q; made with `parent` moves."""
    return await apply(
        client,
        {"op": "init", "list": [{"phase": "P", "items": ["a", "a1", "a2", "b", "c"]}]},
        {"op": "append", "phase": "Q", "items": ["q"]},
        {"op": "move", "task": "a1", "parent": "a"},
        {"op": "move", "task": "a2", "parent": "a"},
    )


async def last_words(client: PlansightClient) -> list[str]:
    history = await client.call("plansight/history", {"session": "m", "limit": 1})
    changes: list[str] = history["events"][0]["changes"]
    return changes


async def test_parent_makes_last_subtasks_in_document_order(client: PlansightClient) -> None:
    state = await plan_with_subtasks(client)
    assert not state["errors"]
    assert outline(state) == ["# P", "a", "  a1", "  a2", "b", "c", "# Q", "q"]


@pytest.mark.both_backends
@pytest.mark.parametrize(
    ("move", "expected", "words"),
    [
        (
            {"task": "a", "after": "b"},
            ["# P", "b", "a", "  a1", "  a2", "c", "# Q", "q"],
            ['moved "a" after "b"'],
        ),
        (
            {"task": "c", "before": "a"},
            ["# P", "c", "a", "  a1", "  a2", "b", "# Q", "q"],
            ['moved "c" before "a"'],
        ),
        (
            # Before a subtask: a sibling of it, under its parent.
            {"task": "c", "before": "a2"},
            ["# P", "a", "  a1", "  c", "  a2", "b", "# Q", "q"],
            ['moved "c" before "a2"'],
        ),
        (
            {"task": "a", "parent": "b"},
            ["# P", "b", "  a", "    a1", "    a2", "c", "# Q", "q"],
            # b's status is now its subtasks' (a1, started by the init, is under it).
            ['started "b"', 'moved "a" under "b"'],
        ),
        (
            {"task": "a1", "parent": None},
            ["# P", "a", "  a2", "b", "c", "a1", "# Q", "q"],
            # a's status is its subtasks': with a1 (started by the init) gone, pending.
            ['marked "a" pending', 'moved "a1" to the top level'],
        ),
        (
            # To another phase, with its subtasks; the phase is made when missing.
            {"task": "a", "phase": "R"},
            ["# P", "b", "c", "# Q", "q", "# R", "a", "  a1", "  a2"],
            ['moved "a" to phase "R"'],
        ),
        (
            {"task": "a2", "after": "q"},
            ["# P", "a", "  a1", "b", "c", "# Q", "q", "a2"],
            ['moved "a2" to phase "Q"'],
        ),
    ],
)
async def test_a_move_puts_the_task_with_its_subtasks_where_it_says(
    client: PlansightClient, move: Json, expected: list[str], words: list[str]
) -> None:
    before = await plan_with_subtasks(client)
    result = await apply(client, {"op": "move", **move})
    assert not result["errors"] and result["changed"]
    assert outline(result) == expected
    assert result["version"] == before["version"] + 1
    push = await client.change_where(lambda c: c["version"] == result["version"])
    assert outline(push) == expected
    assert await last_words(client) == words


async def test_targets_and_places_by_id(client: PlansightClient) -> None:
    state = await plan_with_subtasks(client)
    ids = {t["content"]: t["id"] for p in state["phases"] for t in p["tasks"]}
    result = await apply(client, {"op": "move", "id": ids["c"], "parent": ids["b"]})
    assert outline(result) == ["# P", "a", "  a1", "  a2", "b", "  c", "# Q", "q"]


@pytest.mark.parametrize(
    "places",
    [{}, {"before": "b", "after": "c"}, {"parent": None, "phase": "Q"}, {"before": None}],
)
async def test_none_or_several_places_is_a_bad_op(client: PlansightClient, places: Json) -> None:
    state = await plan_with_subtasks(client)
    result = await apply(client, {"op": "move", "task": "c", **places})
    assert result["errors"] == ["Move needs one of before, after, parent or phase"]
    assert not result["changed"] and outline(result) == outline(state)


@pytest.mark.parametrize("place", [{"parent": "a"}, {"parent": "a1"}, {"before": "a2"}])
async def test_a_task_cannot_move_under_itself(client: PlansightClient, place: Json) -> None:
    state = await plan_with_subtasks(client)
    result = await apply(client, {"op": "move", "task": "a", **place})
    assert result["errors"] == ['Task "a" cannot move under itself']
    assert not result["changed"] and outline(result) == outline(state)


async def test_a_move_past_max_depth_is_skipped_and_the_batch_goes_on(
    client: PlansightClient,
) -> None:
    await apply(
        client,
        {"op": "init", "list": [{"phase": "P", "items": ["d1", "d2", "d3", "d4", "x", "y"]}]},
        {"op": "move", "task": "d2", "parent": "d1"},
        {"op": "move", "task": "d3", "parent": "d2"},
        {"op": "move", "task": "d4", "parent": "d3"},
        {"op": "move", "task": "y", "parent": "x"},
    )
    result = await apply(
        client,
        {"op": "move", "task": "x", "parent": "d3"},  # y would be at depth 5
        {"op": "move", "task": "y", "before": "d4"},  # depth 4: the limit, allowed
    )
    assert result["errors"] == ['Too deep: "y" would be at depth 5, the limit is 4']
    assert outline(result) == ["# P", "d1", "  d2", "    d3", "      y", "      d4", "x"]


@pytest.mark.parametrize(
    "move",
    [
        {"task": "b", "after": "a"},  # after a's whole subtree: where b is
        {"task": "b", "before": "c"},
        {"task": "b", "before": "b"},
        {"task": "a2", "parent": "a"},  # already its last subtask
        {"task": "c", "parent": None},  # already last at the top level
        {"task": "q", "phase": "Q"},
    ],
)
async def test_a_move_to_where_the_task_is_changes_nothing(
    client: PlansightClient, move: Json
) -> None:
    state = await plan_with_subtasks(client)
    result = await apply(client, {"op": "move", **move})
    assert not result["errors"] and not result["changed"]
    assert result["version"] == state["version"] and outline(result) == outline(state)


async def test_a_move_leaves_statuses_and_an_emptied_phase_alone(client: PlansightClient) -> None:
    await plan_with_subtasks(client)
    await apply(client, {"op": "done", "task": "b"})
    result = await apply(client, {"op": "move", "task": "q", "phase": "P"})
    assert outline(result) == ["# P", "a", "  a1", "  a2", "b", "c", "q", "# Q"]
    statuses = {t["content"]: t["status"] for p in result["phases"] for t in p["tasks"]}
    assert statuses["b"] == "completed" and statuses["q"] == "pending"
    assert [p["name"] for p in result["phases"]] == ["P", "Q"]


@pytest.mark.both_backends
async def test_a_persons_move_is_undone_by_their_undo(client: PlansightClient) -> None:
    state = await plan_with_subtasks(client)
    moved = await apply(client, {"op": "move", "task": "a", "after": "c"}, origin="user")
    assert moved["changed"]
    history = await client.call("plansight/history", {"session": "m", "limit": 1})
    assert history["events"][0]["origin"] == "user"
    assert history["events"][0]["changes"] == ['moved "a" after "c"']
    undone = await client.call("plansight/undo", {"session": "m", "origin": "user"})
    assert outline(undone) == outline(state)
    assert await last_words(client) == ['moved "a" before "b"']
