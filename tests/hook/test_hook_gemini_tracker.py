"""Gemini CLI's task tracker through its AfterTool hook (protocol 4, `gemini-tracker`), on
the events Gemini CLI 0.61 sent in a real run with `experimental.taskTracker`
(`tests/fixtures/hooks/README.md`): an epic, three tasks under it (`parentId`), one
waiting for another (`dependencies`, then `tracker_add_dependency`), and one started and
closed, arrive in the conversation's plan nested by the tracker's own ids."""

from __future__ import annotations

from replay import Replay
from test_hook_steering import _store

SESSION = "gemini:b07f5632-ad94-4bcb-855a-8544934d2a62"
RUN = (
    "AfterTool-tracker_create_task",
    "AfterTool-tracker_create_task-sub",
    "AfterTool-tracker_create_task-waits",
    "AfterTool-tracker_update_task",
    "AfterTool-tracker_create_task-sub-2",
    "AfterTool-tracker_add_dependency",
)


def _tasks(machine: Replay) -> dict[str, tuple[str, str, str | None, list[str]]]:
    """By the tracker's id: content, status, the parent's and the awaited tracker ids."""
    store = _store(machine)
    try:
        tasks = list(store.load(SESSION).tasks())
    finally:
        store.close()
    tracker_id = {task.id: task.external_id for task in tasks}
    return {
        str(task.external_id): (
            task.content,
            task.status,
            tracker_id.get(task.parent) if task.parent else None,
            [str(tracker_id[waited]) for waited in task.blocked_by],
        )
        for task in tasks
    }


def test_the_recorded_tracker_run_arrives_as_an_epic_with_its_subtasks(machine: Replay) -> None:
    machine.replay("gemini", "BeforeAgent")
    for event in RUN:
        machine.replay("gemini", event)

    assert _tasks(machine) == {
        "811b0c": ("Fix the login bug", "in_progress", None, []),
        "cb21eb": ("Reproduce the login bug", "in_progress", "811b0c", []),
        "6066e6": ("Fix the session check", "pending", "811b0c", ["cb21eb"]),
        "34f884": ("Write a regression test", "pending", "811b0c", ["6066e6"]),
    }


def test_the_recorded_close_completes_the_subtask_and_not_its_epic(machine: Replay) -> None:
    machine.replay("gemini", "BeforeAgent")
    for event in (*RUN, "AfterTool-tracker_update_task-closed"):
        machine.replay("gemini", event)

    tasks = _tasks(machine)
    assert tasks["cb21eb"][1] == "completed"
    # The epic's status follows its subtasks (v4): two are left, none started.
    assert tasks["811b0c"][1] == "pending"
