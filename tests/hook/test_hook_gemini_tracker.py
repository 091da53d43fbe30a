"""Gemini CLI's task tracker through its AfterTool hook (protocol 4, `gemini-tracker`): a
created task, a subtask under it (`parentId`) and a status change arrive in the
conversation's plan, by the tracker's own ids."""

from __future__ import annotations

from replay import Replay
from test_hook_steering import _store

SESSION = "gemini:b07f5632-ad94-4bcb-855a-8544934d2a62"


def test_tracker_calls_arrive_as_tasks_and_subtasks(machine: Replay) -> None:
    machine.replay("gemini", "BeforeAgent")
    machine.replay("gemini", "AfterTool-tracker_create_task")
    machine.replay("gemini", "AfterTool-tracker_create_task-sub")
    machine.replay("gemini", "AfterTool-tracker_update_task")

    store = _store(machine)
    try:
        tasks = list(store.load(SESSION).tasks())
    finally:
        store.close()
    bug, fix = tasks
    assert (bug.content, bug.external_id, bug.parent) == ("Reproduce the login bug", "9c21e4", None)
    assert (fix.content, fix.external_id, fix.parent) == ("Fix the session check", "4be0f7", bug.id)
    assert fix.status == "in_progress"
