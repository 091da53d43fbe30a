"""`plansight/sessions` from the tables, without reading any plan whole.

Every store reads the same things for it, each in its own SQL: its sessions newest first,
a count of tasks per session and status, the tasks in progress in plan order, and the
tasks a current one names as blockers. This turns them into exactly what `summary_of`
says of each whole plan (a contract test compares the two on every backend).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from plansight.checkouts import checkout_from_text
from plansight.core.model import Phase, Plan, Progress, Task
from plansight.store.base import SessionSummary
from plansight.store.rows import task_of

Head = Sequence[Any]  # name, title, version, updated_at, checkout
SessionTaskRow = Sequence[Any]  # session, then a task row (`rows.TASK_COLUMNS`)


def current_tasks(in_progress: Iterable[SessionTaskRow]) -> dict[str, Task]:
    """Each session's current task, as `Plan.current`: of its tasks in progress (given in
    plan order), the one started most recently, the first on a tie."""
    current: dict[str, Task] = {}
    for session, *row in in_progress:
        task = task_of(row)
        if session not in current or task.started_rank > current[session].started_rank:
            current[session] = task
    return current


def blockers_wanted(current: dict[str, Task]) -> dict[str, list[str]]:
    """The ids each session's current task names as blockers, where it names any: the
    tasks to read to tell whether it waits."""
    return {session: task.blocked_by for session, task in current.items() if task.blocked_by}


def summaries_of(
    heads: Iterable[Head],
    counts: Iterable[Sequence[Any]],
    current: dict[str, Task],
    blockers: Iterable[SessionTaskRow],
) -> list[SessionSummary]:
    """The summaries of `heads`, in their order; `counts` are (session, status, count)."""
    statuses: dict[str, dict[str, int]] = {}
    for session, status, count in counts:
        statuses.setdefault(session, {})[status] = int(count)
    named: dict[str, list[Task]] = {}
    for session, *row in blockers:
        named.setdefault(session, []).append(task_of(row))
    summaries = []
    for session, title, version, updated_at, checkout in heads:
        counted = statuses.get(session, {})
        progress = Progress(
            completed=counted.get("completed", 0),
            abandoned=counted.get("abandoned", 0),
            total=sum(counted.values()),
            blocked=counted.get("blocked", 0),
        )
        task = current.get(session)
        waiting = task is not None and bool(task.blocked_by) and _waits(session, task, named)
        summaries.append(
            SessionSummary(
                session,
                title,
                int(version),
                updated_at,
                progress,
                task,
                waiting,
                checkout_from_text(checkout),
            )
        )
    return summaries


def _waits(session: str, task: Task, named: dict[str, list[Task]]) -> bool:
    """`Plan.is_waiting`, given only the task and those it names."""
    plan = Plan(session, phases=[Phase("", [task, *named.get(session, [])])])
    return plan.is_waiting(task)
