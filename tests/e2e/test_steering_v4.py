"""Steering (v4) through a real `plansight serve`: a status the agent's format cannot carry
is not the agent's change (rule 7), a person's start keeps it over the agent's and the
Kept line says only what the result holds (rule 6), and an editor's "Overwrite" takes
only the conflicts it listed (`merge: "mine"`)."""

from __future__ import annotations

from typing import Any

import pytest
from plansight_client import PlansightClient
from pygls.exceptions import JsonRpcException

KEPT = "Kept the user's changes your list does not have: "


def todo(content: str, status: str = "pending") -> dict[str, str]:
    return {"content": content, "activeForm": f"Doing {content}", "status": status}


def statuses(state: dict[str, Any]) -> list[tuple[str, str]]:
    return [(t["content"], t["status"]) for p in state["phases"] for t in p["tasks"]]


def kept(state: dict[str, Any]) -> str | None:
    return next((line for line in state["summary"].split("\n") if line.startswith(KEPT)), None)


async def todo_write(client: PlansightClient, *todos: dict[str, str]) -> dict[str, Any]:
    """Claude Code's TodoWrite, as its hook sends it."""
    payload = {"todos": list(todos)}
    return await client.call(
        "plansight/ingest", {"session": "s", "format": "claude-todowrite", "payload": payload}
    )


async def person(client: PlansightClient, *ops: dict[str, Any]) -> dict[str, Any]:
    return await client.call("plansight/apply", {"session": "s", "origin": "user", "ops": ops})


# ---------------------------------------------------------------- rule 7


@pytest.mark.both_backends
async def test_a_persons_drop_survives_todowrite_which_cannot_say_abandoned(
    client: PlansightClient,
) -> None:
    await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))
    await person(client, {"op": "drop", "task": "B"}, {"op": "block", "task": "C"})

    # Claude's copy lacks both: the drop and the block are kept and told (rule 1).
    told = await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))
    assert statuses(told) == [("A", "in_progress"), ("B", "abandoned"), ("C", "blocked")]
    assert kept(told) == KEPT + 'dropped "B"; marked "C" blocked'

    # Told, Claude keeps B and C the only way TodoWrite can: as pending. That is no
    # change of the agent's (rule 7): the drop and the block stay, and nothing new is told.
    again = await todo_write(client, todo("A", "completed"), todo("B"), todo("C"))
    assert statuses(again) == [("A", "completed"), ("B", "abandoned"), ("C", "blocked")]
    assert kept(again) is None
    # What the format can say is still the agent's: starting the task re-opens it.
    reopened = await todo_write(client, todo("A", "completed"), todo("B", "in_progress"))
    assert ("B", "in_progress") in statuses(reopened)


async def test_a_format_that_can_say_cancelled_reopens_a_dropped_task(
    client: PlansightClient,
) -> None:
    """Rule 7 reads each format's statuses: OpenCode has `cancelled`, so its `pending` for
    a dropped task is the agent's change; it has no `blocked`, so a block stays."""

    async def opencode(*todos: tuple[str, str]) -> dict[str, Any]:
        items = [{"content": c, "status": s, "priority": "medium"} for c, s in todos]
        payload = {"todos": items}
        return await client.call(
            "plansight/ingest", {"session": "s", "format": "opencode-todos", "payload": payload}
        )

    await opencode(("A", "in_progress"), ("B", "pending"), ("C", "pending"))
    await person(client, {"op": "drop", "task": "B"}, {"op": "block", "task": "C"})
    await opencode(("A", "in_progress"), ("B", "cancelled"), ("C", "pending"))  # told

    again = await opencode(("A", "in_progress"), ("B", "pending"), ("C", "pending"))
    assert statuses(again) == [("A", "in_progress"), ("B", "pending"), ("C", "blocked")]


@pytest.mark.both_backends
async def test_a_persons_completion_of_the_started_task_survives_a_revised_plain_checklist(
    client: PlansightClient,
) -> None:
    """A plan mode's plan is a plain checklist: `[ ]` and `[x]`, no mark for in progress.
    The server auto-started its first task; the person finished it; the agent's revised
    plan still shows it `[ ]`, its only mark for a task not done. That is no change of the
    agent's (rule 7): the completion stays and the Kept line tells it. It was set back to
    pending and auto-started again, while the agent was told it was kept."""
    plan = "## Investigate\n- [ ] Reproduce\n- [ ] Read\n\n## Fix\n- [ ] Patch\n"
    first = await markdown_list(client, plan)
    assert statuses(first)[0] == ("Reproduce", "in_progress")  # auto-started
    await person(client, {"op": "done", "task": "Reproduce"})

    revised = await markdown_list(client, plan.replace("Patch", "Patch the check"))

    assert statuses(revised) == [
        ("Reproduce", "completed"),
        ("Read", "in_progress"),
        ("Patch the check", "pending"),
    ]
    assert kept(revised) == KEPT + 'completed "Reproduce"'


async def test_a_checklist_with_plansights_marks_sets_a_task_back_itself(
    client: PlansightClient,
) -> None:
    """A checklist that uses Plansight's other marks (`[/]` in progress) can say a task is
    in progress, so its `[ ]` for the task in progress is the agent's change."""
    await markdown_list(client, "- [/] A\n- [ ] B\n")

    again = await markdown_list(client, "- [ ] A\n- [/] B\n")

    assert statuses(again) == [("A", "pending"), ("B", "in_progress")]


# ---------------------------------------------------------------- rule 6


@pytest.mark.both_backends
async def test_a_persons_start_keeps_it_over_the_agents_and_is_told_truthfully(
    client: PlansightClient,
) -> None:
    await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))
    await person(client, {"op": "start", "task": "C"})

    # The agent's stale copy finishes A and starts B: the person's C keeps it.
    stale = await todo_write(client, todo("A", "completed"), todo("B", "in_progress"), todo("C"))

    assert statuses(stale) == [("A", "completed"), ("B", "pending"), ("C", "in_progress")]
    assert kept(stale) == KEPT + 'started "C" (so "B" is pending again)'


@pytest.mark.both_backends
async def test_a_task_the_person_added_and_started_keeps_it(client: PlansightClient) -> None:
    await todo_write(client, todo("A", "in_progress"), todo("B"))
    await person(
        client,
        {"op": "append", "phase": "Todos", "items": ["X"]},
        {"op": "start", "task": "X"},
    )

    stale = await todo_write(client, todo("A", "completed"), todo("B", "in_progress"))

    assert statuses(stale) == [("A", "completed"), ("B", "pending"), ("X", "in_progress")]
    assert kept(stale) == (
        KEPT + 'added "X" to phase "Todos"; started "X" (so "B" is pending again)'
    )


async def test_an_agents_own_start_is_not_demoted_without_a_persons(
    client: PlansightClient,
) -> None:
    """Nothing started by the person: the agent's start stands, nothing is told."""
    await todo_write(client, todo("A", "in_progress"), todo("B"))
    await person(client, {"op": "note", "task": "A", "text": "careful"})

    stale = await todo_write(client, todo("A", "completed"), todo("B", "in_progress"))

    assert statuses(stale) == [("A", "completed"), ("B", "in_progress")]
    assert kept(stale) == KEPT + 'added a note to "A": "careful"'


# ---------------------------------------------------------------- merge: "mine"


async def _story(client: PlansightClient) -> int:
    """The agent's plan as the editor's document shows it, then the agent's own changes the
    editor has not seen: A done, C noted, E removed, D added. Returns the shown version."""
    shown = await client.call(
        "plansight/write",
        {
            "session": "s",
            "todos": [todo("A", "in_progress"), todo("B"), todo("C"), todo("E")],
        },
    )
    await client.call(
        "plansight/apply",
        {
            "session": "s",
            "ops": [
                {"op": "done", "task": "A"},
                {"op": "done", "task": "B"},
                {"op": "note", "task": "C", "text": "agent's note"},
                {"op": "rm", "task": "E"},
                {"op": "append", "phase": "Todos", "items": ["D"]},
            ],
        },
    )
    return int(shown["version"])


def _persons_stale_edit() -> str:
    """The person, from the shown version: blocks B, removes C, completes E."""
    return "## Todos\n- [/] A\n- [!] B\n- [x] E\n"


@pytest.mark.both_backends
async def test_overwrite_takes_only_the_listed_conflicts_of_the_persons_side(
    client: PlansightClient,
) -> None:
    shown = await _story(client)
    edit = {
        "session": "s",
        "origin": "user",
        "baseVersion": shown,
        "markdown": _persons_stale_edit(),
    }
    with pytest.raises(JsonRpcException) as caught:
        await client.call("plansight/import", {**edit, "merge": True})
    assert sorted((c["content"], c["field"]) for c in caught.value.data["conflicts"]) == [
        ("B", "status"),
        ("C", "task"),
        ("E", "task"),
    ]

    result = await client.call("plansight/import", {**edit, "merge": "mine"})

    tasks = {t["content"]: t for p in result["phases"] for t in p["tasks"]}
    # The listed conflicts take the person's side: B blocked, C removed, E back, completed,
    # as a new task of the person's.
    assert tasks["B"]["status"] == "blocked"
    assert "C" not in tasks
    assert (tasks["E"]["status"], tasks["E"]["createdBy"]) == ("completed", "user")
    assert tasks["E"]["id"] not in ("t1", "t2", "t3", "t4", "t5")
    # What the dialog never listed is not reverted: A stays done, D stays.
    assert tasks["A"]["status"] == "completed"
    assert "D" in tasks


@pytest.mark.both_backends
async def test_write_with_merge_mine_merges_as_import_does(client: PlansightClient) -> None:
    shown = await _story(client)
    stale = [
        {**todo("A", "in_progress"), "id": "t1"},
        {**todo("B", "blocked"), "id": "t2"},
        {**todo("E again"), "id": "t4"},
    ]
    edit = {"session": "s", "origin": "user", "baseVersion": shown, "todos": stale}

    result = await client.call("plansight/write", {**edit, "merge": "mine"})

    assert statuses(result) == [
        ("A", "completed"),
        ("B", "blocked"),
        ("D", "pending"),  # kept right after the task before it (rule 4's placing)
        ("E again", "pending"),
    ]


async def test_merge_takes_only_true_false_or_mine(client: PlansightClient) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await client.call(
            "plansight/import",
            {"session": "s", "origin": "user", "markdown": "- [ ] A\n", "merge": "yours"},
        )
    assert caught.value.code == -32602
    assert caught.value.data["errors"] == [
        {"path": "merge", "message": "Input should be a valid boolean or 'mine'"}
    ]


# ---------------------------------------------------------------- positions (v4)


@pytest.mark.both_backends
async def test_a_task_keeps_following_the_neighbour_the_person_moved_it_with(
    client: PlansightClient,
) -> None:
    """Found by the steering property test: the person moves C first and D after it; the
    agent's stale list (A B C D) changed no position, so each task follows what it
    follows now: C D A B. Re-inserting only the tasks whose neighbour changed (C, A) left
    D behind, after B (C B D A), an order nobody made."""
    await todo_write(client, todo("A"), todo("B"), todo("C"), todo("D"))
    await person(client, {"op": "move", "task": "C", "before": "A"})
    await person(client, {"op": "move", "task": "D", "after": "C"})

    stale = await todo_write(client, todo("A"), todo("B"), todo("C"), todo("D"))

    assert [c for c, _ in statuses(stale)] == ["C", "D", "A", "B"]


@pytest.mark.both_backends
async def test_a_persons_reorder_survives_an_agents_stale_list(client: PlansightClient) -> None:
    """A task's place among its siblings is merged as a field: the person's move stays,
    the agent's own change lands, and the agent is told."""
    await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))
    # The person puts C first (an editor's whole-list write of the plan as it is).
    await client.call(
        "plansight/write",
        {
            "session": "s",
            "origin": "user",
            "todos": [todo("C"), todo("A", "in_progress"), todo("B")],
        },
    )

    stale = await todo_write(client, todo("A", "completed"), todo("B", "in_progress"), todo("C"))

    assert statuses(stale) == [("C", "pending"), ("A", "completed"), ("B", "in_progress")]
    assert kept(stale) == KEPT + 'moved "C" before "A"'
    # The agent's own move wins where it made one: it puts B first.
    moved = await todo_write(client, todo("B", "in_progress"), todo("C"), todo("A", "completed"))
    assert [c for c, _ in statuses(moved)] == ["B", "C", "A"]


# ------------------------------------------- found by the steering property test (v4)


async def markdown_list(client: PlansightClient, text: str) -> dict[str, Any]:
    """An agent's plan as a markdown checklist (Gemini's plan mode, Codex's proposed plan)."""
    payload = {"text": text}
    return await client.call(
        "plansight/ingest", {"session": "s", "format": "markdown", "payload": payload}
    )


def parents(state: dict[str, Any]) -> dict[str, str | None]:
    tasks = [t for p in state["phases"] for t in p["tasks"]]
    content = {t["id"]: t["content"] for t in tasks}
    return {t["content"]: content.get(t["parent"]) for t in tasks}


@pytest.mark.both_backends
async def test_an_agents_markdown_line_in_the_place_of_a_persons_task_is_not_a_rename(
    client: PlansightClient,
) -> None:
    """A line edited where it stands keeps its task in a person's document only: the
    agent's stale checklist still names C, which the person removed, where the person's
    added task P now stands. P stays (rule 4) and C stays removed (rule 5); it was read
    as P renamed to C, and the person's task was gone."""
    stale = "- [/] A\n- [ ] B\n- [ ] C\n"
    await markdown_list(client, stale + "- [ ] D\n")
    await person(client, {"op": "append", "phase": "Todos", "items": ["P"]})
    await person(client, {"op": "rm", "task": "C"})
    await markdown_list(client, stale)  # told: P kept, C removed

    again = await markdown_list(client, stale)

    assert [c for c, _ in statuses(again)] == ["A", "B", "P", "C"]


@pytest.mark.both_backends
async def test_a_parent_in_progress_through_its_subtask_is_not_a_persons_start(
    client: PlansightClient,
) -> None:
    """Rule 6 counts leaves: the person puts the agent's task in progress, A, under B,
    so B is in progress through A. B was taken for the person's start, A set back to
    pending, and then B too: nothing was in progress."""
    await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))
    await person(client, {"op": "move", "task": "A", "parent": "B"})

    stale = await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))

    assert statuses(stale) == [("B", "in_progress"), ("A", "in_progress"), ("C", "pending")]
    assert "pending again" not in (kept(stale) or "")


@pytest.mark.both_backends
async def test_a_subtask_stays_under_a_persons_task_the_list_never_had(
    client: PlansightClient,
) -> None:
    """The person adds P and moves the agent's C under it; the agent's list, flat, never
    names P. Its second stale list (the base now has C under P) left C's parent out only
    because the list's own result dropped P: C stays under P, and nothing is told again."""
    await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))
    await person(client, {"op": "append", "phase": "Todos", "items": ["P"]})
    await person(client, {"op": "move", "task": "C", "parent": "P"})
    told = await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))
    assert parents(told)["C"] == "P"

    again = await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))

    assert parents(again)["C"] == "P"
    assert kept(again) is None


@pytest.mark.both_backends
async def test_the_kept_line_names_a_parents_status_as_its_subtasks_leave_it(
    client: PlansightClient,
) -> None:
    """The person completes C and moves it under B (B completed through it); the agent's
    stale list reopens C, its change (rule 1), so B is pending again. The Kept line said
    `completed "B"`, which the result does not hold."""
    await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))
    await person(client, {"op": "done", "task": "C"})
    await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))  # told
    await person(client, {"op": "move", "task": "C", "parent": "B"})

    stale = await todo_write(client, todo("A", "in_progress"), todo("B"), todo("C"))

    assert statuses(stale) == [("A", "in_progress"), ("B", "pending"), ("C", "pending")]
    assert 'completed "B"' not in (kept(stale) or "")
