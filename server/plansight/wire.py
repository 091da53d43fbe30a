"""Plans as the JSON the contract describes (see `plansight.protocol.models` for the models)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from plansight.core.model import (
    LIST_FIELDS,
    WIRE_FIELDS,
    Plan,
    Progress,
    Task,
    progress_of,
    progress_of_tasks,
)
from plansight.protocol.shape import camel
from plansight.store.base import SessionSummary

Json = dict[str, Any]

# A task's JSON, written out from the model's one field list once at import (a loop of
# getattr calls per field costs several times more, on every task of every request).
_TASK_JSON = eval(
    "lambda t, waiting: {"
    + ", ".join(
        f"{camel(name)!r}: " + (f"list(t.{name})" if name in LIST_FIELDS else f"t.{name}")
        for name in WIRE_FIELDS
    )
    + ", 'waiting': waiting}"
)


def task_json(task: Task, waiting: bool = False) -> Json:
    """A Task; `waiting` is derived from the plan it is in (see `Plan.is_waiting`)."""
    out: Json = _TASK_JSON(task, waiting)
    return out


def _progress(progress: Progress) -> Json:
    return {
        "completed": progress.completed,
        "abandoned": progress.abandoned,
        "blocked": progress.blocked,
        "total": progress.total,
        "percent": progress.percent,
    }


def counts_json(progress: Progress) -> Json:
    """A Progress of counts made elsewhere (the encoder sums its phases')."""
    return _progress(progress)


def progress_json(plan: Plan) -> Json:
    return _progress(progress_of(plan))


def phase_progress_json(tasks: Iterable[Task]) -> Json:
    return _progress(progress_of_tasks(tasks))


# The members of a TodoState, in the order `state_json` writes them.
STATE_KEYS = ("session", "title", "version", "phases", "progress", "current", "updatedAt")

TaskEncoder = Callable[[Task, bool], Any]


def state_json(plan: Plan, task: TaskEncoder = task_json) -> Json:
    """TodoState; `task` turns each task (and whether it waits) into its JSON (or a
    stand-in for it)."""
    current = plan.current()
    return {
        "session": plan.session,
        "title": plan.title,
        "version": plan.version,
        "phases": [
            {
                "name": phase.name,
                "tasks": [task(t, plan.is_waiting(t)) for t in phase.tasks],
                "progress": phase_progress_json(phase.tasks),
            }
            for phase in plan.phases
        ],
        "progress": progress_json(plan),
        "current": task(current, plan.is_waiting(current)) if current else None,
        "updatedAt": plan.updated_at,
    }


def session_info_json(info: SessionSummary) -> Json:
    return {
        "session": info.session,
        "title": info.title,
        "version": info.version,
        "progress": _progress(info.progress),
        "current": task_json(info.current, info.waiting) if info.current else None,
        "updatedAt": info.updated_at,
        "checkout": info.checkout.wire() if info.checkout is not None else None,
    }


def change_json(
    summary: str,
    errors: list[str],
    completed: list[dict[str, str]],
    removed: list[dict[str, str]],
    changed: bool,
) -> Json:
    """What an ApplyResult adds to the TodoState it starts with."""
    return {
        "summary": summary,
        "errors": errors,
        "isError": bool(errors),
        "completedTasks": completed,
        "removedTasks": removed,
        "changed": changed,
    }
