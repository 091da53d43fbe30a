"""Plans as the JSON the contract describes (see `plansight.protocol` for the models)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from plansight.core.model import Plan, Task, progress_of

Json = dict[str, Any]


def task_json(task: Task) -> Json:
    return {
        "id": task.id,
        "content": task.content,
        "activeForm": task.active_form,
        "status": task.status,
        "notes": list(task.notes),
        "createdAt": task.created_at,
        "updatedAt": task.updated_at,
        "startedAt": task.started_at,
        "completedAt": task.completed_at,
    }


def progress_json(plan: Plan) -> Json:
    progress = progress_of(plan)
    return {
        "completed": progress.completed,
        "abandoned": progress.abandoned,
        "total": progress.total,
        "percent": progress.percent,
    }


# The members of a TodoState, in the order `state_json` writes them.
STATE_KEYS = ("session", "version", "phases", "progress", "current", "updatedAt")


def state_json(plan: Plan, task: Callable[[Task], Any] = task_json) -> Json:
    """TodoState; `task` turns each task into its JSON (or a stand-in for it)."""
    current = plan.current()
    return {
        "session": plan.session,
        "version": plan.version,
        "phases": [
            {"name": phase.name, "tasks": [task(t) for t in phase.tasks]} for phase in plan.phases
        ],
        "progress": progress_json(plan),
        "current": task(current) if current else None,
        "updatedAt": plan.updated_at,
    }


def session_info_json(plan: Plan) -> Json:
    current = plan.current()
    return {
        "session": plan.session,
        "version": plan.version,
        "progress": progress_json(plan),
        "current": task_json(current) if current else None,
        "updatedAt": plan.updated_at,
    }
