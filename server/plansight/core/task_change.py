"""One task created, changed or removed by the agent's own id (Claude Code's task tools),
through the core's own operations where one fits."""

from __future__ import annotations

import dataclasses
from typing import Any

from plansight.core.errors import FieldError, RequestRefused
from plansight.core.incoming import TaskCreation, TaskDeletion, TaskUpdate
from plansight.core.items import clean_owner
from plansight.core.limits import content_problem, description_problem, task_count_problem
from plansight.core.model import DEFAULT_PHASE, Phase, Plan, Task
from plansight.core.nesting import too_deep_line
from plansight.core.ops import apply_ops
from plansight.core.settings import Settings
from plansight.core.tree import PhaseTree
from plansight.protocol.requests import RmOp, UpdateOp
from plansight.protocol.text import clean_content, clean_note

TaskChange = TaskCreation | TaskUpdate | TaskDeletion


def change_task(plan: Plan, change: TaskChange, settings: Settings, now: str) -> list[str]:
    """Apply `change`; returns error lines (an unknown id: `Task id "X" not found`).

    Raises RequestRefused, changing nothing, when a new task cannot be kept as sent."""
    # The agent says what is in progress: nothing is started for it.
    settings = dataclasses.replace(settings, auto_start=False)
    if isinstance(change, TaskCreation):
        existing = _by_external_id(plan, change.external_id)
        if existing is not None:  # the same event again: the task is already there
            return _update(plan, _as_update(change), existing, settings, now)
        return _create(plan, change, settings, now)
    task = _by_external_id(plan, change.external_id)
    if task is None:
        return [f'Task id "{clean_content(change.external_id)}" not found']
    if isinstance(change, TaskDeletion):
        return apply_ops(plan, [RmOp(op="rm", id=task.id)], settings, now)
    return _update(plan, change, task, settings, now)


def _by_external_id(plan: Plan, external_id: str) -> Task | None:
    wanted = clean_content(external_id)
    return next((t for t in plan.tasks() if t.external_id == wanted), None)


def _create(plan: Plan, change: TaskCreation, settings: Settings, now: str) -> list[str]:
    """The new task, last in the list or (v4) last under the parent the agent named;
    then what it waits for. Returns error lines (a parent or dependency not found: the
    task is kept, at the top level or waiting for the ones found)."""
    content = clean_content(change.content)
    description = clean_note(change.description or "")
    errors: list[FieldError] = []
    content_path = f"{change.path}.{change.content_key}"
    if not content:
        errors.append(FieldError(content_path, "Content must not be empty"))
    elif problem := content_problem(content, settings):
        errors.append(FieldError(content_path, problem))
    if problem := description_problem(content, description, settings):
        errors.append(FieldError(f"{change.path}.description", problem))
    if problem := content_problem(clean_content(change.external_id), settings, "Task id"):
        errors.append(FieldError(change.id_path, problem))
    if problem := task_count_problem(plan.task_count() + 1, settings):
        errors.append(FieldError(change.path, problem))
    if errors:
        raise RequestRefused(errors)
    task = plan.new_task(
        content,
        now,
        active_form=clean_content(change.active_form or "") or None,
        description=description,
        owner=clean_owner(change.owner),
        external_id=clean_content(change.external_id),
    )
    errors_out: list[str] = []
    parent = _by_external_id(plan, change.parent) if change.parent else None
    if change.parent and parent is None:
        errors_out.append(f'Task id "{clean_content(change.parent)}" not found')
    if parent is None:
        _last_phase(plan).tasks.append(task)
    else:
        depth = PhaseTree(_phase_of(plan, parent).tasks).depth(parent) + 1
        if depth > settings.max_depth:
            line = too_deep_line(content, depth, settings.max_depth)
            raise RequestRefused([FieldError(change.parent_path or change.path, line)])
        _place_under(plan, parent, task)
    if change.blocked_by:
        errors_out.extend(_wait_for(plan, task, change.blocked_by, settings, now))
    return errors_out


def _phase_of(plan: Plan, task: Task) -> Phase:
    found = plan.with_phase(task.id)
    assert found is not None, "a task of the plan"
    return found[0]


def _place_under(plan: Plan, parent: Task, task: Task) -> None:
    """`task` as the last subtask of `parent`: right after its subtree, in its phase."""
    phase = _phase_of(plan, parent)
    last = PhaseTree(phase.tasks).subtree(parent)[-1]
    phase.tasks.insert(phase.tasks.index(last) + 1, task)
    task.parent = parent.id


def _wait_for(plan: Plan, task: Task, refs: list[str], settings: Settings, now: str) -> list[str]:
    """Make `task` wait for the tasks the agent's ids name (an `update` op: a cycle is
    refused as it would be for any op); an id not found is an error line."""
    found = [_by_external_id(plan, ref) for ref in refs]
    errors = [
        f'Task id "{clean_content(ref)}" not found'
        for ref, hit in zip(refs, found, strict=True)
        if hit is None
    ]
    ids = [hit.id for hit in found if hit is not None]
    if ids:
        op = UpdateOp.named_fields(op="update", id=task.id, blocked_by=ids)
        errors.extend(apply_ops(plan, [op], settings, now))
    return errors


def _last_phase(plan: Plan) -> Phase:
    """Where a task created on its own goes: after the last task of the list."""
    for phase in reversed(plan.phases):
        if phase.tasks:
            return phase
    if plan.phases:
        return plan.phases[0]
    phase = Phase(DEFAULT_PHASE)
    plan.phases.append(phase)
    return phase


def _as_update(change: TaskCreation) -> TaskUpdate:
    return TaskUpdate(
        change.external_id,
        change.path,
        content_key=change.content_key,
        content=change.content,
        description=change.description,
        active_form=change.active_form,
        owner=change.owner,
    )


def _update(plan: Plan, change: TaskUpdate, task: Task, settings: Settings, now: str) -> list[str]:
    """An `update` op on the task (a status has the effect of its op: `in_progress`
    starts it), then one on each task it now blocks."""
    fields: dict[str, Any] = {"op": "update", "id": task.id}
    for key, value in (
        ("content", change.content),
        ("active_form", change.active_form),
        ("description", change.description),
        ("owner", change.owner),
        ("status", change.status),
    ):
        if value is not None:
            fields[key] = value
    waits_for = change.add_blocked_by if change.blocked_by is None else change.blocked_by
    blockers = [_by_external_id(plan, ref) for ref in waits_for]
    blocked = [_by_external_id(plan, ref) for ref in change.add_blocks]
    unknown = [
        f'Task id "{clean_content(ref)}" not found'
        for ref, found in zip(waits_for + change.add_blocks, blockers + blocked, strict=True)
        if found is None
    ]
    if unknown:
        return unknown  # the dependency would be lost: skip the whole update
    known = [t.id for t in blockers if t is not None]
    if change.blocked_by is not None:  # the whole list (Gemini's tracker `dependencies`)
        fields["blocked_by"] = known
    elif known:
        fields["blocked_by"] = task.blocked_by + [i for i in known if i not in task.blocked_by]
    # The adapter has read every value as its type: the ops are made, not validated.
    ops = [UpdateOp.named_fields(**fields)]
    ops.extend(
        UpdateOp.named_fields(op="update", id=t.id, blocked_by=[*t.blocked_by, task.id])
        for t in blocked
        if t is not None and task.id not in t.blocked_by
    )
    # One update of Claude's is one op: when any part is refused (an `addBlocks` that
    # closes a cycle), the rename and the start that came with it are skipped too.
    saved = plan.next_id, [Phase(p.name, [t.copy() for t in p.tasks]) for p in plan.phases]
    errors = apply_ops(plan, ops, settings, now)
    if errors:
        plan.next_id, plan.phases = saved
    return errors
