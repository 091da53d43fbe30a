"""Taskmaster's `tasks.json` (eyaltoledano/claude-task-master), for `plansight/import`: its
tasks with their `subtasks`, as the markdown checklist the import reads (so it is imported,
checked and steered exactly as a checklist is). An agent's format, read behind the
service: the command line sends the file's text as it is.

Shape (`.taskmaster/tasks/tasks.json`): tags, each `{tasks: [...], metadata}` (`master`
is Taskmaster's default tag; an older file is `{tasks: [...]}` alone); a task `{id,
title, description, status, dependencies: [id], priority, details, testStrategy,
subtasks?}`, a subtask the same without `subtasks`, its `dependencies` naming its
siblings by number or any subtask as `"<task>.<subtask>"`.
"""

from __future__ import annotations

import json
from typing import Any

from plansight.core.errors import FieldError, RequestRefused
from plansight.core.markdown import to_markdown
from plansight.core.model import DEFAULT_PHASE, Phase, Plan, Task, TaskStatus

STATUSES: dict[str, TaskStatus] = {
    "pending": "pending",
    "in-progress": "in_progress",
    "review": "in_progress",  # done but being reviewed: not finished yet
    "done": "completed",
    "deferred": "pending",
    "cancelled": "abandoned",
    "blocked": "blocked",
}
PRIORITIES = ("high", "medium", "low")
_NOW = "1970-01-01T00:00:00Z"  # the plan is only written out: the import sets the times


class NotTaskmaster(ValueError):
    """The text is JSON, but not a Taskmaster tasks file: `path` says where in it."""

    def __init__(self, path: str, message: str) -> None:
        self.path, self.message = path, message
        super().__init__(f"{path}: {message}" if path else message)


def checklist_of(text: str, path: str = "markdown") -> str:
    """The markdown an import reads: `text` itself, or a Taskmaster tasks.json (a JSON
    object: a checklist never starts with `{`) as the checklist of its tasks; a JSON
    object that is not one is refused at `path` (nothing changes)."""
    if not text.lstrip().startswith("{"):
        return text
    try:
        data = json.loads(text)
    except ValueError:
        return text  # not JSON: the import reads it, and says which lines it cannot
    try:
        return taskmaster_markdown(data)
    except NotTaskmaster as exc:
        where = f"{path}.{exc.path}" if exc.path else path
        raise RequestRefused([FieldError(where, exc.message)]) from None


def tasks_of(data: Any) -> list[Any] | None:
    """The tasks of the file's `master` tag (else its first tag, or an untagged file's
    list); None when `data` has no Taskmaster shape at all."""
    if not isinstance(data, dict):
        return None
    untagged = data.get("tasks")
    if isinstance(untagged, list):
        return untagged
    tags = [value for value in data.values() if isinstance(value, dict)]
    tag = data.get("master") if isinstance(data.get("master"), dict) else next(iter(tags), None)
    tasks = tag.get("tasks") if tag is not None else None
    return tasks if isinstance(tasks, list) else None


def taskmaster_markdown(data: Any) -> str:
    """The checklist of a Taskmaster file's tasks, nested as its subtasks are; raises
    NotTaskmaster naming what it could not read."""
    tasks = tasks_of(data)
    if tasks is None:
        raise NotTaskmaster("", 'not a Taskmaster tasks file: no "tasks" list')
    plan = Plan("taskmaster")
    made: dict[str, Task] = {}  # by Taskmaster's id: "4" and "4.2"
    waits: list[tuple[Task, list[str]]] = []
    listed: list[Task] = []
    for n, item in enumerate(tasks):
        task = _task(plan, item, f"tasks.{n}")
        made[_key(item.get("id"))] = task
        listed.append(task)
        waits.append((task, [_key(d) for d in _list(item, "dependencies")]))
        for m, sub in enumerate(_list(item, "subtasks")):
            subtask = _task(plan, sub, f"tasks.{n}.subtasks.{m}")
            subtask.parent = task.id
            parent_key = _key(item.get("id"))
            made[f"{parent_key}.{_key(sub.get('id'))}"] = subtask
            listed.append(subtask)
            refs = [_key(d) for d in _list(sub, "dependencies")]
            # A plain number names a sibling subtask.
            waits.append((subtask, [r if "." in r else f"{parent_key}.{r}" for r in refs]))
    for task, refs in waits:
        task.blocked_by = [made[ref].id for ref in refs if ref in made]
    plan.phases = [Phase(DEFAULT_PHASE, listed)]
    return to_markdown(plan)


def _task(plan: Plan, item: Any, path: str) -> Task:
    if not isinstance(item, dict):
        raise NotTaskmaster(path, "not a task")
    title, status = item.get("title"), item.get("status", "pending")
    if not isinstance(title, str) or not title.strip():
        raise NotTaskmaster(f"{path}.title", "a task needs a title")
    if status not in STATUSES:
        raise NotTaskmaster(f"{path}.status", f'unknown status "{status}"')
    description = item.get("description")
    priority = item.get("priority")
    task = plan.new_task(
        " ".join(title.split()),
        _NOW,
        description=description.strip() if isinstance(description, str) else "",
        priority=priority if priority in PRIORITIES else None,
    )
    task.status = STATUSES[status]
    return task


def _list(item: dict[str, Any], key: str) -> list[Any]:
    value = item.get(key)
    return value if isinstance(value, list) else []


def _key(value: Any) -> str:
    return str(value).strip()
