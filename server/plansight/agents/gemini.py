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
    for path, todo in reader.entries(payload, "todos", "payload"):
        if read := reader.task(todo, path, "description", STATUSES):
            tasks.append(IncomingTask(*read, path, content_key="description"))
    reader.done()
    return Replacement(tasks, "payload.todos", statuses=frozenset(STATUSES.values()))
