"""Roo Code: its `update_todo_list` tool input, a checklist in one string.

Shape: RooCodeInc/Roo-Code `src/core/tools/UpdateTodoListTool.ts` (parseMarkdownChecklist):
one item a line, `- ` optional, `[ ]` pending, `[-]` (or `[~]`) in progress, `[x]` done.
"""

from __future__ import annotations

import re
from typing import Any

from plansight.agents.reading import PayloadReader
from plansight.core.incoming import Incoming, IncomingTask, Replacement
from plansight.core.model import TaskStatus

# Roo's own pattern: spaces allowed inside the brackets, `[X]` as `[x]`.
_ITEM = re.compile(r"^(?:-\s*)?\[\s*([ xX\-~]?)\s*\]\s+(.+)$")
MARKS: dict[str, TaskStatus] = {
    "": "pending",
    " ": "pending",
    "x": "completed",
    "X": "completed",
    "-": "in_progress",  # Roo's and Kiro's meaning, not Plansight's markdown one
    "~": "in_progress",
}


def update_todo_list(payload: dict[str, Any]) -> Incoming:
    """`{todos: "<checklist>"}`: the whole list; a line that is not an item is refused."""
    reader = PayloadReader()
    text = reader.text(payload, "todos", "payload")
    tasks: list[IncomingTask] = []
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text or "")):
        line = line.strip()
        if not line:
            continue
        path = f"payload.todos.{number}"  # the line, counted from 0
        item = _ITEM.match(line)
        if item is None:
            reader.fail(path, f"Line {number + 1} is not a checklist item: {line[:60]}")
            continue
        mark, content = item.groups()
        tasks.append(IncomingTask(content, MARKS[mark], path, content_key=""))
    reader.done()
    return Replacement(tasks, "payload.todos", statuses=frozenset(MARKS.values()))
