"""Steering (v3) end to end over stdio, the story of issue 21: an agent writes its plan,
the person adds a task and completes another from the editor, and the agent's next write,
made from its own stale copy, keeps both and says so; the agent's next list still keeps
the person's task; a task the person removed stays removed; an editor's stale edit is
merged, or refused with its conflicts."""

from __future__ import annotations

from typing import Any

import pytest
from plansight_client import PlansightClient
from pygls.exceptions import JsonRpcException

KEPT = "Kept the user's changes your list does not have: "


def todo(content: str, status: str = "pending") -> dict[str, str]:
    return {"content": content, "activeForm": f"Doing {content}", "status": status}


def tasks(state: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (t["content"], t["status"], t["createdBy"]) for p in state["phases"] for t in p["tasks"]
    ]


@pytest.mark.both_backends
async def test_the_persons_changes_survive_the_agents_stale_writes(
    client: PlansightClient,
) -> None:
    agents_copy = [todo("A", "in_progress"), todo("B")]
    await client.call("plansight/write", {"session": "s", "todos": agents_copy})
    added = await client.call(
        "plansight/apply",
        {
            "session": "s",
            "origin": "user",
            "ops": [
                {"op": "append", "phase": "Todos", "items": ["C"]},
                {"op": "done", "task": "B"},
            ],
        },
    )
    assert added["current"]["content"] == "A"

    stale = await client.call("plansight/write", {"session": "s", "todos": agents_copy})

    assert tasks(stale) == [
        ("A", "in_progress", "agent"),
        ("B", "completed", "agent"),
        ("C", "pending", "user"),
    ]
    assert stale["removedTasks"] == []
    assert stale["summary"].split("\n")[1] == (KEPT + 'completed "B"; added "C" to phase "Todos"')
    # The merge is what the plan already was: nothing to commit, only to tell.
    assert (stale["changed"], stale["version"]) == (False, added["version"])

    # Its next list still lacks C: a person's task is never removed by a list (rule 4).
    later = await client.call(
        "plansight/write",
        {"session": "s", "todos": [todo("A", "completed"), todo("B", "completed")]},
    )
    assert [t[0] for t in tasks(later)] == ["A", "B", "C"]

    # A task the person removes stays removed, though the agent's copy still has it.
    await client.call(
        "plansight/apply", {"session": "s", "origin": "user", "ops": [{"op": "rm", "task": "C"}]}
    )
    again = await client.call(
        "plansight/write",
        {"session": "s", "todos": [todo("A", "completed"), todo("B", "completed"), todo("C")]},
    )
    assert [t[0] for t in tasks(again)] == ["A", "B"]
    assert KEPT + 'removed "C"' in again["summary"]


@pytest.mark.both_backends
async def test_an_editors_stale_edit_is_merged_or_refused_with_the_conflicts(
    client: PlansightClient,
) -> None:
    first = await client.call(
        "plansight/write", {"session": "e", "todos": [todo("A", "in_progress"), todo("B")]}
    )
    shown = first["version"]  # what the editor's document shows
    await client.call("plansight/apply", {"session": "e", "ops": [{"op": "done", "task": "A"}]})

    merged = await client.call(
        "plansight/import",
        {
            "session": "e",
            "origin": "user",
            "baseVersion": shown,
            "merge": True,
            "markdown": "## Todos\n- [/] A\n- [ ] B\n- [ ] D\n",
        },
    )
    assert [(t[0], t[1]) for t in tasks(merged)] == [
        ("A", "completed"),
        ("B", "in_progress"),
        ("D", "pending"),
    ]

    with pytest.raises(JsonRpcException) as caught:
        await client.call(
            "plansight/import",
            {
                "session": "e",
                "origin": "user",
                "baseVersion": shown,
                "merge": True,
                "markdown": "## Todos\n- [/] A\n- [!] B\n",
            },
        )
    assert caught.value.code == -32801
    assert caught.value.data == {
        "currentVersion": merged["version"],
        "conflicts": [{"id": "t2", "content": "B", "field": "status"}],
    }

    with pytest.raises(JsonRpcException) as unlisted:
        await client.call(
            "plansight/write",
            {"session": "e", "origin": "user", "baseVersion": 0, "merge": True, "todos": []},
        )
    assert unlisted.value.code == -32801
    assert unlisted.value.data == {"currentVersion": merged["version"]}
