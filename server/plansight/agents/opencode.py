"""OpenCode: its `todowrite` tool input.

Shape: npm `opencode-ai` (its binary) and anomalyco/opencode
`packages/opencode/src/tool/todo.ts`: `{todos: [{content, status, priority}]}`, statuses
pending, in_progress, completed, cancelled; earlier releases also sent an `id`.
"""

from __future__ import annotations

from typing import Any

from plansight.agents.reading import PayloadReader, priority_of
from plansight.core.incoming import Incoming, IncomingTask, Replacement
from plansight.core.model import TaskStatus

STATUSES: dict[str, TaskStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
    "cancelled": "abandoned",
}


def todo_write(payload: dict[str, Any]) -> Incoming:
    """The whole list; `id`, when sent, is the task's externalId."""
    reader = PayloadReader()
    tasks: list[IncomingTask] = []
    for path, todo in reader.entries(payload, "todos", "payload"):
        read = reader.task(todo, path, "content", STATUSES)
        external_id = reader.optional_text(todo, "id", path)
        if read:
            priority = priority_of(todo.get("priority"))
            tasks.append(
                IncomingTask(*read, path, priority=priority, external_id=external_id or None)
            )
    reader.done()
    return Replacement(tasks, "payload.todos")
