"""Claude Code: its `TodoWrite` input, and its `TaskCreate` / `TaskUpdate` calls.

Shapes: `sdk-tools.d.ts` of the npm package `@anthropic-ai/claude-code` (TodoWriteInput,
TaskCreateInput / TaskCreateOutput, TaskUpdateInput / TaskUpdateOutput).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from plansight.agents.reading import PayloadReader
from plansight.core.incoming import (
    Incoming,
    IncomingTask,
    NothingToChange,
    Replacement,
    TaskCreation,
    TaskDeletion,
    TaskUpdate,
)
from plansight.core.model import TaskStatus

TODO_STATUSES: dict[str, TaskStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
}
# TaskUpdate's own statuses; "deleted" removes the task.
TASK_STATUSES: dict[str, TaskStatus | Literal["deleted"]] = {**TODO_STATUSES, "deleted": "deleted"}


def todo_write(payload: dict[str, Any]) -> Incoming:
    """`{todos: [{content, status, activeForm}]}`: the whole list."""
    reader = PayloadReader()
    tasks: list[IncomingTask] = []
    for path, todo in reader.entries(payload, "todos", "payload"):
        read = reader.task(todo, path, "content", TODO_STATUSES)
        active_form = reader.optional_text(todo, "activeForm", path)
        if read:
            tasks.append(IncomingTask(*read, path, active_form=active_form or None))
    reader.done()
    return Replacement(tasks, "payload.todos", statuses=frozenset(TODO_STATUSES.values()))


def task_call(payload: dict[str, Any]) -> Incoming:
    """`{tool_name, tool_input, tool_response}` of TaskCreate or TaskUpdate (a hook's
    whole PostToolUse event carries the same members)."""
    reader = PayloadReader()
    name = payload.get("tool_name")
    tool_input = reader.object(payload.get("tool_input"), "payload.tool_input")
    response = _response(payload.get("tool_response"))
    if name not in ("TaskCreate", "TaskUpdate"):
        reader.fail("payload.tool_name", 'Expected "TaskCreate" or "TaskUpdate"')
    if tool_input is None or name not in ("TaskCreate", "TaskUpdate"):
        reader.done()
    assert tool_input is not None
    result = (
        _create(reader, tool_input, response)
        if name == "TaskCreate"
        else _update(reader, tool_input, response)
    )
    reader.done()
    return result


def _response(value: Any) -> dict[str, Any] | None:
    """The tool's output object; some transcripts carry it as its JSON text."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def _create(
    reader: PayloadReader, tool_input: dict[str, Any], response: dict[str, Any] | None
) -> Incoming:
    path = "payload.tool_input"
    subject = reader.text(tool_input, "subject", path)
    description = reader.optional_text(tool_input, "description", path)
    active_form = reader.optional_text(tool_input, "activeForm", path)
    # Claude's id for the new task is only in the tool's output: {task: {id, subject}}.
    task = response.get("task") if response is not None else None
    task_id = task.get("id") if isinstance(task, dict) else None
    if not isinstance(task_id, str) or not task_id:
        reader.fail("payload.tool_response.task.id", "Field required (the id Claude gave the task)")
        return NothingToChange()
    return TaskCreation(
        task_id,
        subject or "",
        path,
        content_key="subject",
        id_path="payload.tool_response.task.id",
        description=description,
        active_form=active_form or None,
    )


def _update(
    reader: PayloadReader, tool_input: dict[str, Any], response: dict[str, Any] | None
) -> Incoming:
    path = "payload.tool_input"
    task_id = reader.text(tool_input, "taskId", path)
    status: TaskStatus | None = None
    deleted = False
    if "status" in tool_input:
        chosen = reader.choice(tool_input, "status", path, TASK_STATUSES)
        deleted = chosen == "deleted"
        status = None if chosen == "deleted" else chosen
    update = TaskUpdate(
        task_id or "",
        path,
        content_key="subject",
        content=reader.optional_text(tool_input, "subject", path),
        description=reader.optional_text(tool_input, "description", path),
        active_form=reader.optional_text(tool_input, "activeForm", path) or None,
        status=status,
        owner=reader.optional_text(tool_input, "owner", path),
        add_blocked_by=reader.text_list(tool_input, "addBlockedBy", path),
        add_blocks=reader.text_list(tool_input, "addBlocks", path),
    )
    if response is not None and response.get("success") is False:
        # Claude refused the update itself: its list did not change, neither does ours.
        return NothingToChange()
    if deleted:
        return TaskDeletion(update.external_id)
    return update
