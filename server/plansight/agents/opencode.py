"""OpenCode: its `todowrite` tool input.

Shape: npm `opencode-ai` (its binary) and anomalyco/opencode
`packages/opencode/src/tool/todo.ts`: `{todos: [{content, status, priority}]}`, statuses
pending, in_progress, completed, cancelled; earlier releases also sent an `id`.

`priority` is a required field of OpenCode's Todo (1.18.33's schema: "Priority level of
the task: high, medium, low"), so its model writes one on every item, `medium` when
nothing stands out: `medium` is read as no priority (a task's own, if a person set one,
stays), `high` and `low` stay.
"""

from __future__ import annotations

from typing import Any

from plansight.agents.reading import PayloadReader, priority_of
from plansight.core.incoming import Incoming, IncomingTask, Replacement
from plansight.core.model import TaskStatus

# What OpenCode's model writes on an item when nothing stands out (see above).
UNMARKED_PRIORITY = "medium"

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
            said = todo.get("priority")
            priority = None if said == UNMARKED_PRIORITY else priority_of(said)
            tasks.append(
                IncomingTask(*read, path, priority=priority, external_id=external_id or None)
            )
    reader.done()
    return Replacement(tasks, "payload.todos", statuses=frozenset(STATUSES.values()))
