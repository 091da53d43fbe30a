"""An agent's whole list replacing the session's (`plansight/ingest`), leniently.

Unlike `write`, the agent's own tool already accepted the list: what an agent is sloppy
about (several tasks in progress) is repaired and said, not refused. What a person or an
earlier request gave a task and the agent's tool cannot carry (notes, its phase, its
dependencies, files) stays with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from plansight.core.dependencies import forget_removed
from plansight.core.errors import FieldError, RequestRefused
from plansight.core.incoming import IncomingTask, Replacement
from plansight.core.items import clean_owner
from plansight.core.limits import (
    content_problem,
    description_problem,
    note_count_problem,
    note_problem,
    task_count_problem,
)
from plansight.core.model import DEFAULT_PHASE, Phase, Plan, Task, TaskStatus
from plansight.core.rebuild import tidy_nesting
from plansight.core.settings import Settings
from plansight.protocol.text import clean_content, clean_note


@dataclass(slots=True)
class _Placed:
    phase: str
    task: Task


def replace_tasks(plan: Plan, replacement: Replacement, settings: Settings, now: str) -> list[str]:
    """Make `plan` hold the tasks of `replacement`; returns what was repaired, in words.

    Raises RequestRefused, changing nothing, when a task cannot be kept as sent."""
    incoming = _cleaned(replacement, settings)
    matches = _matches(plan, incoming)
    notices = _one_in_progress_per_owner(incoming, matches)
    placed = _place(plan, incoming, matches, now, replacement.statuses)
    order = [phase.name for phase in plan.phases]
    for item in placed:
        if item.phase not in order:
            order.append(item.phase)
    plan.phases = [
        Phase(name, tasks)
        for name in order
        if (tasks := [item.task for item in placed if item.phase == name])
    ]
    forget_removed(plan)
    # (v4) A flat list says nothing of nesting: a kept task keeps its parent, in order.
    tidy_nesting(plan)
    if replacement.note:
        notices.extend(_note_current(plan, clean_note(replacement.note), settings, now))
    return notices


def _cleaned(replacement: Replacement, settings: Settings) -> list[IncomingTask]:
    errors: list[FieldError] = []
    seen_ids: set[str] = set()
    for task in replacement.tasks:
        content_path = f"{task.path}.{task.content_key}" if task.content_key else task.path
        task.content = clean_content(task.content)
        if not task.content:
            errors.append(FieldError(content_path, "Content must not be empty"))
        elif problem := content_problem(task.content, settings):
            errors.append(FieldError(content_path, problem))
        if task.active_form is not None:
            task.active_form = clean_content(task.active_form) or None
            if task.active_form and (
                problem := content_problem(task.active_form, settings, "Active form")
            ):
                errors.append(FieldError(f"{task.path}.activeForm", problem))
        if task.description is not None:
            task.description = clean_note(task.description)
            if problem := description_problem(task.content, task.description, settings):
                errors.append(FieldError(f"{task.path}.description", problem))
        task.owner = clean_owner(task.owner)
        if task.external_id is not None:
            # An agent's id names one task of the session: a repeated one names the first.
            task.external_id = clean_content(task.external_id) or None
            if task.external_id and (
                problem := content_problem(task.external_id, settings, "Task id")
            ):
                errors.append(FieldError(f"{task.path}.id", problem))
            if task.external_id in seen_ids:
                task.external_id = None
            elif task.external_id is not None:
                seen_ids.add(task.external_id)
    if problem := task_count_problem(len(replacement.tasks), settings):
        errors.append(FieldError(replacement.path, problem))
    if replacement.note and (problem := note_problem(clean_note(replacement.note), settings)):
        errors.append(FieldError(replacement.note_path, problem))
    if errors:
        raise RequestRefused(errors)
    return replacement.tasks


def _matches(plan: Plan, incoming: list[IncomingTask]) -> list[Task | None]:
    """For each incoming task, the task it continues: the one with its externalId, else
    the first one not taken with its content."""
    by_external = {t.external_id: t for t in plan.tasks() if t.external_id is not None}
    used: set[str] = set()
    matches: list[Task | None] = []
    for item in incoming:
        old = by_external.get(item.external_id) if item.external_id is not None else None
        if old is not None:
            used.add(old.id)
        matches.append(old)
    by_content: dict[str, list[Task]] = {}
    for task in plan.tasks():
        by_content.setdefault(task.content, []).append(task)
    for index, item in enumerate(incoming):
        if matches[index] is None:
            old = next((t for t in by_content.get(item.content, ()) if t.id not in used), None)
            if old is not None:
                used.add(old.id)
                matches[index] = old
    return matches


def _one_in_progress_per_owner(
    incoming: list[IncomingTask], matches: list[Task | None]
) -> list[str]:
    """Of one owner's tasks in progress the first keeps it; the others wait, and the
    agent is told."""
    kept: dict[str | None, IncomingTask] = {}
    demoted: dict[str | None, list[str]] = {}
    for item, old in zip(incoming, matches, strict=True):
        if item.status != "in_progress":
            continue
        owner = item.owner if item.owner is not None else (old.owner if old else None)
        if owner not in kept:
            kept[owner] = item
        else:
            item.status = "pending"
            demoted.setdefault(owner, []).append(f'"{item.content}"')
    return [
        f'Only one task can be in progress: kept "{kept[owner].content}", '
        f"set back to pending: {', '.join(names)}"
        for owner, names in demoted.items()
    ]


def _place(
    plan: Plan,
    incoming: list[IncomingTask],
    matches: list[Task | None],
    now: str,
    statuses: frozenset[TaskStatus],
) -> list[_Placed]:
    """Each incoming task carried over from the task it continues, in that task's phase;
    a new one goes to the phase of the task before it."""
    phase_of = {task.id: phase.name for phase, task in plan.tasks_with_phase()}
    previous = plan.phases[0].name if plan.phases else DEFAULT_PHASE
    placed: list[_Placed] = []
    for item, old in zip(incoming, matches, strict=True):
        if old is None:
            task = plan.new_task(
                item.content,
                now,
                active_form=item.active_form,
                status=item.status,
                **_fields(item),
            )
            phase = previous
        else:
            task = _carried(old, item, now, statuses)
            phase = phase_of[old.id]
        placed.append(_Placed(phase, task))
        previous = phase
    return placed


def _fields(item: IncomingTask) -> dict[str, Any]:
    """The Task fields the agent's tool carries; those it left out (None) keep theirs."""
    values = {
        "description": item.description,
        "priority": item.priority,
        "owner": item.owner,
        "external_id": item.external_id,
    }
    return {name: value for name, value in values.items() if value is not None}


def _carried(old: Task, item: IncomingTask, now: str, statuses: frozenset[TaskStatus]) -> Task:
    """`old` as `item` says it is now; what the item leaves out stays as it was. A status
    the format cannot carry, shown as pending, is not the agent's change (steering rule 7):
    TodoWrite resends a task a person dropped as `pending`, its only way to keep it."""
    task = old.copy()
    same_content = item.content == old.content
    task.content = item.content
    task.active_form = item.active_form or (old.active_form if same_content else item.content)
    for name, value in _fields(item).items():
        setattr(task, name, value)
    if task.seen() != old.seen():
        task.updated_at = now
    if not (item.status == "pending" and old.status not in statuses):
        task.set_status(item.status, now)
    return task


def _note_current(plan: Plan, note: str, settings: Settings, now: str) -> list[str]:
    """The agent's explanation of this update, on the task in progress: once, however
    often the agent sends the same one again."""
    current = plan.current()
    if current is None or not note or (current.notes and current.notes[-1] == note):
        return []
    if problem := note_count_problem(current.content, len(current.notes) + 1, settings):
        return [f"The explanation was not added as a note: {problem}"]
    current.add_note(note, now)
    return []
