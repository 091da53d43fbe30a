"""Gemini CLI: its `write_todos` tool input.

Shape: npm `@google/gemini-cli`, `packages/core/src/tools/write-todos.ts` (in the bundle):
`{todos: [{description, status}]}`, statuses pending, in_progress, completed, cancelled,
blocked.
"""

from __future__ import annotations

from typing import Any

from plansight.agents.reading import PayloadReader
from plansight.core.incoming import Incoming, IncomingTask, Replacement
from plansight.core.model import TaskStatus

STATUSES: dict[str, TaskStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
    "cancelled": "abandoned",
    "blocked": "blocked",
}


def write_todos(payload: dict[str, Any]) -> Incoming:
    """The whole list; Gemini's `description` is the task's content."""
    reader = PayloadReader()
    tasks: list[IncomingTask] = []
    for index, item in enumerate(reader.items(payload, "todos", "payload") or []):
        path = f"payload.todos.{index}"
        todo = reader.object(item, path)
        if todo is None:
            continue
        content = reader.text(todo, "description", path)
        status = reader.choice(todo, "status", path, STATUSES)
        if content is not None and status is not None:
            tasks.append(IncomingTask(content, status, path, content_key="description"))
    reader.done()
    return Replacement(tasks, "payload.todos")
