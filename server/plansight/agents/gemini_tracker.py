"""Gemini CLI: its task tracker's calls (`tracker_create_task`, `tracker_update_task`,
`tracker_add_dependency`), as its `AfterTool` hook event carries them.

Shapes: npm `@google/gemini-cli` 0.61.0, `bundle/chunk-5FZXKDXH.js`
(`packages/core/src/tools/definitions/trackerTools.ts`: TRACKER_CREATE_TASK_DEFINITION
`{title, description, type: epic|task|bug, parentId?, dependencies?}`,
TRACKER_UPDATE_TASK_DEFINITION `{id, title?, description?, status?: open|in_progress|
blocked|closed, dependencies?}`, TRACKER_ADD_DEPENDENCY_DEFINITION `{taskId,
dependencyId}`). The tracker makes a new task's id (six hex digits) itself: it is only in
the result, `Created task <id>: <title>` (`TrackerCreateTaskInvocation.execute`).
"""

from __future__ import annotations

import re
from typing import Any

from plansight.agents.reading import PayloadReader
from plansight.core.incoming import Incoming, NothingToChange, TaskCreation, TaskUpdate
from plansight.core.model import TaskStatus

STATUSES: dict[str, TaskStatus] = {
    "open": "pending",
    "in_progress": "in_progress",
    "blocked": "blocked",
    "closed": "completed",
}
TOOLS = ("tracker_create_task", "tracker_update_task", "tracker_add_dependency")
_CREATED = re.compile(r"^Created task (\S+): ")


def tracker_call(payload: dict[str, Any]) -> Incoming:
    """`{tool_name, tool_input, tool_response}` of one tracker call (the hook's whole
    AfterTool event carries the same members)."""
    reader = PayloadReader()
    name = payload.get("tool_name")
    tool_input = reader.object(payload.get("tool_input"), "payload.tool_input")
    if name not in TOOLS:
        reader.fail("payload.tool_name", "Expected one of " + ", ".join(TOOLS))
    if tool_input is None or name not in TOOLS:
        reader.done()
    assert tool_input is not None
    if name == "tracker_create_task":
        result = _create(reader, tool_input, payload.get("tool_response"))
    elif name == "tracker_update_task":
        result = _update(reader, tool_input)
    else:
        result = _dependency(reader, tool_input)
    reader.done()
    return result


def _create(reader: PayloadReader, tool_input: dict[str, Any], response: Any) -> Incoming:
    path = "payload.tool_input"
    title = reader.text(tool_input, "title", path)
    description = reader.optional_text(tool_input, "description", path)
    parent = reader.optional_text(tool_input, "parentId", path)
    dependencies = reader.text_list(tool_input, "dependencies", path)
    said = response.get("llmContent") if isinstance(response, dict) else None
    created = _CREATED.match(said) if isinstance(said, str) else None
    if created is None:
        reader.fail(
            "payload.tool_response.llmContent",
            'Expected "Created task <id>: <title>" (the id the tracker gave the task)',
        )
        return NothingToChange()
    # The tracker's `type` (epic, task, bug) is not kept: a plan's task has no kind.
    return TaskCreation(
        created.group(1),
        title or "",
        path,
        content_key="title",
        id_path="payload.tool_response.llmContent",
        description=description,
        parent=parent or None,
        parent_path=f"{path}.parentId",
        blocked_by=dependencies,
    )


def _update(reader: PayloadReader, tool_input: dict[str, Any]) -> Incoming:
    path = "payload.tool_input"
    task_id = reader.text(tool_input, "id", path)
    status = reader.choice(tool_input, "status", path, STATUSES) if "status" in tool_input else None
    return TaskUpdate(
        task_id or "",
        path,
        content_key="title",
        content=reader.optional_text(tool_input, "title", path),
        description=reader.optional_text(tool_input, "description", path),
        status=status,
        blocked_by=(
            reader.text_list(tool_input, "dependencies", path)
            if tool_input.get("dependencies") is not None
            else None
        ),
    )


def _dependency(reader: PayloadReader, tool_input: dict[str, Any]) -> Incoming:
    path = "payload.tool_input"
    task_id = reader.text(tool_input, "taskId", path)
    dependency = reader.text(tool_input, "dependencyId", path)
    return TaskUpdate(task_id or "", path, add_blocked_by=[dependency] if dependency else [])
