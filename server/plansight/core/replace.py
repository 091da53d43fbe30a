"""An agent's whole list replacing the session's (`plansight/ingest`), leniently.

Unlike `write`, the agent's own tool already accepted the list: what an agent is sloppy
about (several tasks in progress) is repaired and said, not refused. What a person added
to a task (notes, its phase) stays with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from plansight.core.errors import FieldError, RequestRefused
from plansight.core.incoming import IncomingTask, Replacement
from plansight.core.limits import (
    content_problem,
    note_count_problem,
    note_problem,
    task_count_problem,
)
from plansight.core.model import DEFAULT_PHASE, Phase, Plan, Task
from plansight.core.settings import Settings
from plansight.core.text import clean_content, clean_note


@dataclass(slots=True)
class _Placed:
    incoming: IncomingTask
    phase: str
    task: Task


def replace_tasks(plan: Plan, replacement: Replacement, settings: Settings, now: str) -> list[str]:
    """Make `plan` hold the tasks of `replacement`; returns what was repaired, in words.

    Raises RequestRefused, changing nothing, when a task cannot be kept as sent."""
    incoming = _cleaned(replacement, settings)
    notices = _one_in_progress(incoming)
    placed = _place(plan, incoming, now)
    order = [phase.name for phase in plan.phases]
    for item in placed:
        if item.phase not in order:
            order.append(item.phase)
    plan.phases = [
        Phase(name, tasks)
        for name in order
        if (tasks := [item.task for item in placed if item.phase == name])
    ]
    if replacement.note:
        notices.extend(_note_current(plan, clean_note(replacement.note), settings, now))
    return notices


def _cleaned(replacement: Replacement, settings: Settings) -> list[IncomingTask]:
    errors: list[FieldError] = []
    for task in replacement.tasks:
        content_path = f"{task.path}.{task.content_key}"
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
    if problem := task_count_problem(len(replacement.tasks), settings):
        errors.append(FieldError(replacement.path, problem))
    if replacement.note and (problem := note_problem(clean_note(replacement.note), settings)):
        errors.append(FieldError(replacement.note_path, problem))
    if errors:
        raise RequestRefused(errors)
    return replacement.tasks


def _one_in_progress(tasks: list[IncomingTask]) -> list[str]:
    """The first task in progress keeps it; the others wait, and the agent is told."""
    kept: IncomingTask | None = None
    demoted: list[str] = []
    for task in tasks:
        if task.status != "in_progress":
            continue
        if kept is None:
            kept = task
        else:
            task.status = "pending"
            demoted.append(f'"{task.content}"')
    if kept is None or not demoted:
        return []
    return [
        f'Only one task can be in progress: kept "{kept.content}", '
        f"set back to pending: {', '.join(demoted)}"
    ]


def _place(plan: Plan, incoming: list[IncomingTask], now: str) -> list[_Placed]:
    """Each incoming task carried over from the task it continues (same externalId, else
    same content), in that task's phase; a new one goes to the phase of the task before
    it."""
    phase_of = {task.id: phase.name for phase, task in plan.tasks_with_phase()}
    by_content: dict[str, list[Task]] = {}
    for task in plan.tasks():
        by_content.setdefault(task.content, []).append(task)
    used: set[str] = set()
    previous = plan.phases[0].name if plan.phases else DEFAULT_PHASE
    placed: list[_Placed] = []
    for item in incoming:
        old = next((t for t in by_content.get(item.content, ()) if t.id not in used), None)
        if old is None:
            task = plan.new_task(
                item.content, now, active_form=item.active_form, status=item.status
            )
            phase = previous
        else:
            used.add(old.id)
            task = _carried(old, item, now)
            phase = phase_of[old.id]
        placed.append(_Placed(item, phase, task))
        previous = phase
    return placed


def _carried(old: Task, item: IncomingTask, now: str) -> Task:
    """`old` as `item` says it is now; what the item leaves out stays as it was."""
    same_content = item.content == old.content
    active_form = item.active_form or (old.active_form if same_content else item.content)
    task = Task(
        id=old.id,
        content=item.content,
        active_form=active_form,
        status=old.status,
        notes=list(old.notes),
        created_at=old.created_at,
        updated_at=old.updated_at,
        started_at=old.started_at,
        completed_at=old.completed_at,
    )
    if (task.content, task.active_form) != (old.content, old.active_form):
        task.updated_at = now
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
