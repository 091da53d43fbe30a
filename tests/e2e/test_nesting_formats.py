"""Agents' formats and nesting (protocol 4), end to end over stdio against a real store:
a flat format's full list keeps each kept task's parent; Gemini's tracker nests by its
own ids."""

from __future__ import annotations

from typing import Any

from plansight_client import PlansightClient


def outline(state: dict[str, Any]) -> list[tuple[str, str | None]]:
    tasks = [t for p in state["phases"] for t in p["tasks"]]
    content = {t["id"]: t["content"] for t in tasks}
    return [(t["content"], content.get(t["parent"])) for t in tasks]


async def test_a_flat_list_keeps_the_parents_of_the_tasks_it_keeps(
    client: PlansightClient,
) -> None:
    nested = "## P\n- [ ] Build\n  - [ ] Compile\n  - [ ] Link\n- [ ] Ship\n"
    await client.call("plansight/import", {"session": "flat", "markdown": nested})

    # TodoWrite cannot say where a task nests, and sends a subtask before its parent.
    todos = [
        {"content": "Compile", "status": "in_progress", "activeForm": "Compiling"},
        {"content": "Build", "status": "pending", "activeForm": "Building"},
        {"content": "Link", "status": "pending", "activeForm": "Linking"},
        {"content": "Test", "status": "pending", "activeForm": "Testing"},
        {"content": "Ship", "status": "pending", "activeForm": "Shipping"},
    ]
    result = await client.call(
        "plansight/ingest",
        {"session": "flat", "format": "claude-todowrite", "payload": {"todos": todos}},
    )
    assert outline(result) == [
        ("Build", None),
        ("Compile", "Build"),  # kept under its parent, in document order
        ("Link", "Build"),
        ("Test", None),  # a new task of a flat format is at the top level
        ("Ship", None),
    ]

    # The parent gone from the list: its kept subtask takes the top level.
    plan = [{"step": "Compile", "status": "completed"}, {"step": "Ship", "status": "pending"}]
    result = await client.call(
        "plansight/ingest", {"session": "flat", "format": "codex-plan", "payload": {"plan": plan}}
    )
    assert outline(result) == [("Compile", None), ("Ship", None)]


async def test_gemini_tracker_calls_nest_by_the_trackers_ids(client: PlansightClient) -> None:
    def created(task_id: str, title: str, **tool_input: Any) -> dict[str, Any]:
        return {
            "tool_name": "tracker_create_task",
            "tool_input": {"title": title, "description": title, "type": "task", **tool_input},
            "tool_response": {"llmContent": f"Created task {task_id}: {title}"},
        }

    for call in (
        created("a1a1a1", "Move sessions to the database"),
        created("b2b2b2", "Ship it"),
        created("c3c3c3", "Write the migration", parentId="a1a1a1"),
    ):
        result = await client.call(
            "plansight/ingest", {"session": "gt", "format": "gemini-tracker", "payload": call}
        )
        assert result["errors"] == []
    assert outline(result) == [
        ("Move sessions to the database", None),
        ("Write the migration", "Move sessions to the database"),
        ("Ship it", None),
    ]
    update = {
        "tool_name": "tracker_update_task",
        "tool_input": {"id": "c3c3c3", "status": "closed"},
    }
    result = await client.call(
        "plansight/ingest", {"session": "gt", "format": "gemini-tracker", "payload": update}
    )
    assert [t["status"] for p in result["phases"] for t in p["tasks"]][1] == "completed"
