"""VS Code's chat: its `manage_todo_list` tool input.

Shape: microsoft/vscode `src/vs/workbench/contrib/chat/common/tools/manageTodoListTool.ts`:
`{operation?: "write" | "read", todoList: [{id: number, title, description, status}]}`,
statuses not-started, in-progress, completed.
"""

from __future__ import annotations

from typing import Any

from plansight.agents.reading import PayloadReader
from plansight.core.incoming import Incoming, IncomingTask, NothingToChange, Replacement
from plansight.core.model import TaskStatus

STATUSES: dict[str, TaskStatus] = {
    "not-started": "pending",
    "in-progress": "in_progress",
    "completed": "completed",
}
OPERATIONS = ("write", "read")


def manage_todo_list(payload: dict[str, Any]) -> Incoming:
    """The whole list (`operation: "read"` only reads it); `title` is the content and the
    numeric `id` the externalId."""
    reader = PayloadReader()
    operation = payload.get("operation", "write")
    if operation not in OPERATIONS:
        reader.fail("payload.operation", 'Expected "write" or "read"')
    if operation == "read":
        reader.done()
        return NothingToChange()
    tasks: list[IncomingTask] = []
    for path, todo in reader.entries(payload, "todoList", "payload"):
        read = reader.task(todo, path, "title", STATUSES)
        description = reader.optional_text(todo, "description", path)
        external_id = _id(reader, todo, path)
        if read:
            tasks.append(
                IncomingTask(
                    *read,
                    path,
                    content_key="title",
                    description=description,
                    external_id=external_id,
                )
            )
    # Not VS Code's: what Plansight's Copilot CLI hook could not take from Copilot's table,
    # noted on the task in progress as Codex's explanation is (`hook/copilot_todos.py`).
    note = reader.optional_text(payload, "note", "payload")
    reader.done()
    return Replacement(
        tasks,
        "payload.todoList",
        note=note,
        note_path="payload.note",
        statuses=frozenset(STATUSES.values()),
    )


def _id(reader: PayloadReader, todo: dict[str, Any], path: str) -> str | None:
    """The number as a string ("3"); a whole float (3.0) is the same number."""
    value = todo.get("id")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        reader.fail(f"{path}.id", "Expected a number")
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)
