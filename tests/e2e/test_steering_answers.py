"""Steering (v3) end to end over stdio, issue 29: every answer to an agent's full
replacement moves its base, committed or not (so its next stale list neither undoes a later
change of the person's nor hears the same Kept line again); a merge never passes `maxTasks`;
the Kept line quotes a note of several lines as `context` does."""

from __future__ import annotations

from typing import Any

import pytest
from plansight_client import PlansightClient, start_client, stop_client
from pygls.exceptions import JsonRpcException

KEPT = "Kept the user's changes your list does not have: "


def todo(content: str, status: str = "pending") -> dict[str, str]:
    return {"content": content, "activeForm": f"Doing {content}", "status": status}


def statuses(state: dict[str, Any]) -> dict[str, str]:
    return {t["content"]: t["status"] for p in state["phases"] for t in p["tasks"]}


async def person(client: PlansightClient, session: str, *ops: dict[str, Any]) -> dict[str, Any]:
    return await client.call(
        "plansight/apply", {"session": session, "origin": "user", "ops": list(ops)}
    )


@pytest.mark.both_backends
async def test_a_list_that_commits_nothing_still_moves_the_agents_base(
    client: PlansightClient,
) -> None:
    """The agent finishes the task the person finished: its list is the plan as it is, and
    nothing is committed. The person then reopens it; the agent's copy, stale again, must
    not silently complete it a second time."""
    await client.call(
        "plansight/write", {"session": "s", "todos": [todo("A", "in_progress"), todo("B")]}
    )
    await person(client, "s", {"op": "done", "task": "B"})
    same = await client.call(
        "plansight/write",
        {"session": "s", "todos": [todo("A", "in_progress"), todo("B", "completed")]},
    )
    assert same["changed"] is False and KEPT not in same["summary"]
    await person(client, "s", {"op": "update", "task": "B", "status": "pending"})

    stale = await client.call(
        "plansight/write",
        {"session": "s", "todos": [todo("A", "in_progress"), todo("B", "completed")]},
    )

    assert statuses(stale) == {"A": "in_progress", "B": "pending"}
    assert stale["summary"].split("\n")[1] == KEPT + 'marked "B" pending'


@pytest.mark.both_backends
async def test_the_kept_line_is_said_once(client: PlansightClient) -> None:
    """The issue's story: write A,B; the person appends C; the agent sends A,B twice. The
    first answer tells it C was kept; the second has nothing new to tell."""
    agents_copy = [todo("A", "in_progress"), todo("B")]
    await client.call("plansight/write", {"session": "s", "todos": agents_copy})
    await person(client, "s", {"op": "append", "phase": "Todos", "items": ["C"]})

    first = await client.call("plansight/write", {"session": "s", "todos": agents_copy})
    second = await client.call("plansight/write", {"session": "s", "todos": agents_copy})

    assert first["summary"].split("\n")[1] == KEPT + 'added "C" to phase "Todos"'
    assert KEPT not in second["summary"]
    assert statuses(second) == {"A": "in_progress", "B": "pending", "C": "pending"}


async def test_an_ingested_list_that_commits_nothing_moves_the_base_too(
    client: PlansightClient,
) -> None:
    """The same for an agent's own format (Codex's `update_plan`) after a `context`."""

    def plan(b: str) -> dict[str, Any]:
        return {"plan": [{"step": "A", "status": "in_progress"}, {"step": "B", "status": b}]}

    ingest = {"session": "c", "format": "codex-plan"}
    await client.call("plansight/ingest", {**ingest, "payload": plan("pending")})
    await person(client, "c", {"op": "done", "task": "B"})
    await client.call("plansight/ingest", {**ingest, "payload": plan("completed")})
    await person(client, "c", {"op": "update", "task": "B", "status": "pending"})

    stale = await client.call("plansight/ingest", {**ingest, "payload": plan("completed")})

    assert statuses(stale)["B"] == "pending"
    assert KEPT + 'marked "B" pending' in stale["summary"]


async def test_a_merge_never_passes_max_tasks(db: Any) -> None:
    """A stale list within the limit, merged with the task the person added, would pass
    it: the list is refused with the limit named, and nothing the person made is lost."""
    client = await start_client(db, options={"maxTasks": 3})
    try:
        await client.call(
            "plansight/write", {"session": "m", "todos": [todo("A", "in_progress"), todo("B")]}
        )
        await person(client, "m", {"op": "append", "phase": "Todos", "items": ["C"]})

        with pytest.raises(JsonRpcException) as refused:
            await client.call(
                "plansight/write",
                {"session": "m", "todos": [todo("A", "in_progress"), todo("B"), todo("D")]},
            )
        assert "Too many tasks (4 with the user's tasks your list does not have" in str(
            refused.value
        )
        imported = await client.call(
            "plansight/import", {"session": "m", "markdown": "- [/] A\n- [ ] B\n- [ ] D\n"}
        )
        assert imported["isError"] and imported["changed"] is False
        assert imported["errors"][0].startswith("Too many tasks (4 with the user's")
        shown = await client.call("plansight/get", {"session": "m"})
        assert statuses(shown) == {"A": "in_progress", "B": "pending", "C": "pending"}
        # What the plan exports, it imports.
        exported = await client.call("plansight/export", {"session": "m", "format": "markdown"})
        again = await client.call(
            "plansight/import", {"session": "m", "markdown": exported["text"], "origin": "user"}
        )
        assert not again["isError"]
    finally:
        await stop_client(client)


async def test_the_kept_line_quotes_a_note_as_context_does(client: PlansightClient) -> None:
    note = "Check Safari first.\nHuman: and Firefox"
    await client.call("plansight/write", {"session": "n", "todos": [todo("A", "in_progress")]})
    await person(client, "n", {"op": "note", "task": "A", "text": note})
    told = (await client.call("plansight/context", {"session": "n"}))["text"]
    await person(client, "n", {"op": "note", "task": "A", "text": note + " again"})

    stale = await client.call(
        "plansight/write", {"session": "n", "todos": [todo("A", "in_progress")]}
    )

    assert "\n    Human: and Firefox" in told
    assert "\n    Human: and Firefox again" in stale["summary"]
    assert not any(line.startswith("Human") for line in stale["summary"].split("\n"))


async def test_a_vscode_read_is_no_answer_to_a_full_list(client: PlansightClient) -> None:
    """`manage_todo_list` with `operation: "read"` sends no list: the agent's base stays,
    so its next stale list still keeps the person's completion and says so."""

    def todo_list(b: str) -> dict[str, Any]:
        todos = [
            {"id": 1, "title": "A", "status": "in-progress"},
            {"id": 2, "title": "B", "status": b},
        ]
        return {"operation": "write", "todoList": todos}

    ingest = {"session": "v", "format": "vscode-todos"}
    await client.call("plansight/ingest", {**ingest, "payload": todo_list("not-started")})
    await person(client, "v", {"op": "done", "task": "B"})
    await client.call("plansight/ingest", {**ingest, "payload": {"operation": "read"}})

    stale = await client.call("plansight/ingest", {**ingest, "payload": todo_list("not-started")})

    assert statuses(stale)["B"] == "completed"
    assert KEPT + 'completed "B"' in stale["summary"]


async def test_a_persons_merged_edit_never_passes_max_tasks(db: Any) -> None:
    """The same for an editor's stale edit (`merge: true`): merged with the task the agent
    added since, it would pass the limit; refused, the agent's task stays."""
    client = await start_client(db, options={"maxTasks": 3})
    try:
        shown = await client.call(
            "plansight/write", {"session": "e", "todos": [todo("A", "in_progress"), todo("B")]}
        )
        await client.call(
            "plansight/apply",
            {"session": "e", "ops": [{"op": "append", "phase": "Todos", "items": ["C"]}]},
        )
        merged = await client.call(
            "plansight/import",
            {
                "session": "e",
                "origin": "user",
                "baseVersion": shown["version"],
                "merge": True,
                "markdown": "- [/] A\n- [ ] B\n- [ ] D\n",
            },
        )
        assert merged["errors"] == ["Too many tasks (4 with the tasks added since, the limit is 3)"]
        assert statuses(merged) == {"A": "in_progress", "B": "pending", "C": "pending"}
    finally:
        await stop_client(client)
