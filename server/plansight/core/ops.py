"""`plansight/apply`: ordered operations, each skipped on its own when bad, then normalization."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from plansight.core.errors import OpRefused
from plansight.core.items import TaskSpec, phase_name, task_spec
from plansight.core.limits import (
    note_count_problem,
    note_problem,
    phase_count_problem,
    task_count_problem,
)
from plansight.core.model import FINISHED, Phase, Plan, Task, TaskStatus
from plansight.core.settings import Settings
from plansight.core.text import clean_content, clean_note
from plansight.protocol import AppendOp, DoneOp, DropOp, InitOp, Item, NoteOp, Op, RmOp, StartOp


def apply_ops(plan: Plan, ops: Sequence[Op], settings: Settings, now: str) -> list[str]:
    """Run `ops` in order on `plan`; returns the error lines of the ops that were skipped.

    There is no rollback: an op either applies whole or not at all, and the batch goes on.
    """
    errors: list[str] = []
    for op in ops:
        try:
            _HANDLERS[op.op](plan, op, settings, now)
        except OpRefused as refused:
            errors.extend(refused.lines)
    normalize(plan, settings.auto_start, now)
    return errors


def normalize(plan: Plan, auto_start: bool, now: str) -> None:
    """At most one task in progress (the first keeps it); with auto-start, exactly one
    as long as a task is pending."""
    current: Task | None = None
    for task in plan.tasks():
        if task.status == "in_progress":
            if current is None:
                current = task
            else:
                task.set_status("pending", now)
    if current is None and auto_start:
        for task in plan.tasks():
            if task.status == "pending":
                task.set_status("in_progress", now)
                break


# ---------------------------------------------------------------- targeting


def _find(
    plan: Plan, content: str | None, task_id: str | None, phase: str | None
) -> tuple[Phase, Task]:
    scope = plan.phases
    if phase is not None:
        found = plan.phase(clean_content(phase))
        if found is None:
            raise OpRefused(f'Phase "{clean_content(phase)}" not found')
        scope = [found]
    if task_id is not None:
        for ph in scope:
            for task in ph.tasks:
                if task.id == task_id:
                    return ph, task
        raise OpRefused(f'Task id "{clean_content(task_id)}" not found')
    wanted = clean_content(content or "")
    for ph in scope:
        for task in ph.tasks:
            if task.content == wanted:
                return ph, task
    where = f' in phase "{scope[0].name}"' if phase is not None else ""
    raise OpRefused(f'Task "{wanted}" not found{where}')


def _has_target(task: str | None, task_id: str | None) -> bool:
    return task_id is not None or task is not None


def _targets(plan: Plan, op: DoneOp | DropOp | RmOp) -> list[tuple[Phase, Task]]:
    """One task when named; else every task of the phase; else every task."""
    if _has_target(op.task, op.id):
        if op.task is not None and not clean_content(op.task) and op.id is None:
            raise OpRefused(f"Missing task for {op.op} operation")
        return [_find(plan, op.task, op.id, op.phase)]
    if op.phase is not None:
        name = clean_content(op.phase)
        phase = plan.phase(name)
        if phase is None:
            raise OpRefused(f'Phase "{name}" not found')
        return [(phase, task) for task in phase.tasks]
    return list(plan.tasks_with_phase())


# ---------------------------------------------------------------- operations


def _new_tasks(plan: Plan, specs: list[TaskSpec], now: str) -> list[Task]:
    return [
        plan.new_task(s.content, now, active_form=s.active_form, status=s.status, notes=s.notes)
        for s in specs
    ]


def _specs(items: list[Item], operation: str, settings: Settings) -> list[TaskSpec]:
    specs: list[TaskSpec] = []
    problems: list[str] = []
    for item in items:
        try:
            specs.append(task_spec(item, operation, settings))
        except OpRefused as refused:
            problems.extend(refused.lines)
    if problems:
        raise OpRefused(*problems)
    return specs


def _init(plan: Plan, op: InitOp, settings: Settings, now: str) -> None:
    if not op.phases:
        raise OpRefused("Missing list for init operation")
    grouped: dict[str, list[TaskSpec]] = {}
    for entry in op.phases:
        name = phase_name(entry.phase, "init", settings)
        if not entry.items:
            raise OpRefused(f'Missing items for phase "{name}" in init operation')
        # A phase named twice is one phase: its items are gathered in order.
        grouped.setdefault(name, []).extend(_specs(entry.items, "init", settings))
    problem = phase_count_problem(len(grouped), settings) or task_count_problem(
        sum(len(specs) for specs in grouped.values()), settings
    )
    if problem:
        raise OpRefused(problem)
    plan.phases = [Phase(name, _new_tasks(plan, specs, now)) for name, specs in grouped.items()]


def _start(plan: Plan, op: StartOp, settings: Settings, now: str) -> None:
    if _has_target(op.task, op.id):
        _, target = _find(plan, op.task, op.id, None)
    else:
        pending = next((t for t in plan.tasks() if t.status == "pending"), None)
        if pending is None:
            raise OpRefused("No pending task to start")
        target = pending
    for task in plan.tasks():
        if task.status == "in_progress" and task is not target:
            task.set_status("pending", now)
    target.set_status("in_progress", now)


def _finish(status: TaskStatus) -> Callable[[Plan, DoneOp | DropOp, Settings, str], None]:
    def finish(plan: Plan, op: DoneOp | DropOp, settings: Settings, now: str) -> None:
        if _has_target(op.task, op.id):
            for _, task in _targets(plan, op):
                task.set_status(status, now)
            return
        # Marking a whole phase or list done leaves what already ended as it ended.
        for _, task in _targets(plan, op):
            if task.status not in FINISHED:
                task.set_status(status, now)

    return finish


def _rm(plan: Plan, op: RmOp, settings: Settings, now: str) -> None:
    doomed = {id(task) for _, task in _targets(plan, op)}
    for phase in plan.phases:
        phase.tasks = [task for task in phase.tasks if id(task) not in doomed]


def _append(plan: Plan, op: AppendOp, settings: Settings, now: str) -> None:
    name = phase_name(op.phase, "append", settings)
    if not op.items:
        raise OpRefused("Missing items for append operation")
    specs = _specs(op.items, "append", settings)
    existing = {task.content for task in plan.tasks()}
    duplicates = []
    for spec in specs:
        if spec.content in existing:
            duplicates.append(f'Task "{spec.content}" already exists')
        existing.add(spec.content)
    if duplicates:
        raise OpRefused(*duplicates)
    phase = plan.phase(name)
    problem = task_count_problem(plan.task_count() + len(specs), settings)
    if phase is None:
        problem = problem or phase_count_problem(len(plan.phases) + 1, settings)
    if problem:
        raise OpRefused(problem)
    # Appended tasks are new work: they start pending whatever the item says.
    for spec in specs:
        spec.status = "pending"
    if phase is None:
        phase = Phase(name)
        plan.phases.append(phase)
    phase.tasks.extend(_new_tasks(plan, specs, now))


def _note(plan: Plan, op: NoteOp, settings: Settings, now: str) -> None:
    text = clean_note(op.text or "")
    if not text:
        raise OpRefused("Missing text for note operation")
    if _has_target(op.task, op.id):
        _, task = _find(plan, op.task, op.id, None)
    else:
        current = plan.current()
        if current is None:
            raise OpRefused("No task is in progress to add the note to; name one with task or id")
        task = current
    problem = note_problem(text, settings) or note_count_problem(
        task.content, len(task.notes) + 1, settings
    )
    if problem:
        raise OpRefused(problem)
    task.add_note(text, now)


_HANDLERS: dict[str, Callable[..., None]] = {
    "init": _init,
    "start": _start,
    "done": _finish("completed"),
    "drop": _finish("abandoned"),
    "rm": _rm,
    "append": _append,
    "note": _note,
}
