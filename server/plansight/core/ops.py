"""`plansight/apply`: ordered operations, each skipped on its own when bad, then normalization."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from plansight.core.dependencies import forget_removed, resolve_blockers
from plansight.core.errors import OpRefused, TooDeep
from plansight.core.items import TaskSpec, clean_notes, optional_fields, phase_name, task_spec
from plansight.core.limits import (
    content_problem,
    file_count_problem,
    note_count_problem,
    note_problem,
    phase_count_problem,
    task_count_problem,
)
from plansight.core.model import (
    DEFAULT_PHASE,
    FINISHED,
    Phase,
    Plan,
    Task,
    TaskStatus,
    mark_now,
    start_rank,
)
from plansight.core.move import move
from plansight.core.nesting import leaves, settle, started_leaves, too_deep_line
from plansight.core.settings import Settings
from plansight.core.steering import Steering, steer
from plansight.core.tree import PhaseTree
from plansight.protocol.requests import (
    AppendOp,
    BlockOp,
    DoneOp,
    DropOp,
    InitOp,
    Item,
    NoteOp,
    Op,
    RmOp,
    StartOp,
    UpdateOp,
)
from plansight.protocol.text import clean_content, clean_note


def apply_ops(
    plan: Plan,
    ops: Sequence[Op],
    settings: Settings,
    now: str,
    auto_started: list[str] | None = None,
    steering: Steering | None = None,
) -> list[str]:
    """Run `ops` in order on `plan`; returns the error lines of the ops that were skipped.

    There is no rollback: an op either applies whole or not at all, and the batch goes on.
    `auto_started`, when given, receives the id of a task normalization started.
    `steering`, when given, merges an `init` with what a person changed (steering).
    """
    errors: list[str] = []
    too_deep_init = False
    for op in ops:
        try:
            if steering is not None and isinstance(op, InitOp):
                _steered_init(plan, op, settings, now, steering)
            else:
                _HANDLERS[op.op](plan, op, settings, now)
        except OpRefused as refused:
            errors.extend(refused.lines)
            too_deep_init = too_deep_init or (isinstance(refused, TooDeep) and op.op == "init")
        # The next op reads the parents' statuses (a blockedBy naming a parent).
        settle(plan, now)
    forget_removed(plan)
    if too_deep_init:
        # (v4) An init past maxDepth changes nothing, not even by normalization.
        return errors
    # Settled after the last op; `forget_removed` changes only what tasks wait for.
    started = normalize(plan, settings.auto_start, now, settled=bool(ops))
    if started is not None and auto_started is not None:
        auto_started.append(started.id)
    return errors


def normalize(plan: Plan, auto_start: bool, now: str, settled: bool = False) -> Task | None:
    """At most one task in progress per owner (the first keeps it; tasks without an owner
    count as one owner); with auto-start, a task without an owner is in progress as long
    as one is pending and not waiting. Returns the task it started, if any. (v4) Leaves
    only, in document order; the parents then follow their subtasks. `settled`: the
    caller has just settled the plan (`settle`), and changed no task's place, parent or
    status since."""
    if not settled:
        settle(plan, now)
    before = mark_now()
    started = _one_per_owner(plan, auto_start, now)
    if mark_now() != before + 1:  # it changed a task: the parents follow
        settle(plan, now)
    return started


def _one_per_owner(plan: Plan, auto_start: bool, now: str) -> Task | None:
    """Of a settled plan (`normalize`)."""
    owners: set[str | None] = set()
    # The leaves in progress (normalization runs on every change: no call a task).
    for task in started_leaves(plan.task_list()):
        if task.owner in owners:
            task.set_status("pending", now)
        else:
            owners.add(task.owner)
    if None in owners or not auto_start:
        return None
    for task in leaves(plan.task_list()):
        if task.status == "pending" and task.owner is None and not plan.is_waiting(task):
            task.set_status("in_progress", now)
            return task
    return None


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
    """One task when named, (v4) with its subtasks; else every task of the phase; else
    every task."""
    if _has_target(op.task, op.id):
        if op.task is not None and not clean_content(op.task) and op.id is None:
            raise OpRefused(f"Missing task for {op.op} operation")
        phase, task = _find(plan, op.task, op.id, op.phase)
        return [(phase, t) for t in PhaseTree(phase.tasks).subtree(task)]
    if op.phase is not None:
        name = clean_content(op.phase)
        named = plan.phase(name)
        if named is None:
            raise OpRefused(f'Phase "{name}" not found')
        return [(named, task) for task in named.tasks]
    return list(plan.tasks_with_phase())


# ---------------------------------------------------------------- operations


def _new_tasks(
    plan: Plan, specs: list[TaskSpec], now: str, parent: str | None = None
) -> list[Task]:
    """The tasks of `specs` and of their subtasks, in document order, the top ones under
    `parent`."""
    tasks: list[Task] = []
    for spec in specs:
        task = plan.new_task(
            spec.content,
            now,
            active_form=spec.active_form,
            status=spec.status,
            notes=spec.notes,
            parent=parent,
            **spec.fields,
        )
        tasks.append(task)
        tasks.extend(_new_tasks(plan, spec.subtasks, now, task.id))
    return tasks


def _all_specs(specs: list[TaskSpec]) -> list[TaskSpec]:
    """Every spec with its subtasks' specs, in document order (as `_new_tasks` makes them)."""
    return [flat for spec in specs for flat, _ in spec.flattened()]


def _depth_check(specs: list[TaskSpec], top_depth: int, settings: Settings) -> None:
    """TooDeep naming the first task in document order that would pass maxDepth."""
    for spec in specs:
        for flat, below in spec.flattened():
            depth = top_depth + below
            if depth > settings.max_depth:
                raise TooDeep(too_deep_line(flat.content, depth, settings.max_depth))


def _link(plan: Plan, tasks: list[Task], specs: list[TaskSpec]) -> None:
    """Give the new tasks the dependencies their items named (all tasks exist by now)."""
    for task, spec in zip(tasks, specs, strict=True):
        if spec.blocked_by:
            task.blocked_by = resolve_blockers(plan, task, spec.blocked_by)


def _saved(plan: Plan) -> tuple[int, list[Phase]]:
    return plan.next_id, list(plan.phases)


def _put_back(plan: Plan, saved: tuple[int, list[Phase]]) -> None:
    plan.next_id, plan.phases = saved


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
        sum(len(_all_specs(specs)) for specs in grouped.values()), settings
    )
    if problem:
        raise OpRefused(problem)
    for specs in grouped.values():
        _depth_check(specs, 1, settings)
    saved = _saved(plan)
    plan.phases = [Phase(name, _new_tasks(plan, specs, now)) for name, specs in grouped.items()]
    try:
        _link(
            plan, list(plan.tasks()), [s for specs in grouped.values() for s in _all_specs(specs)]
        )
    except OpRefused:
        _put_back(plan, saved)
        raise


def _steered_init(plan: Plan, op: InitOp, settings: Settings, now: str, steering: Steering) -> None:
    """An agent's `init`, merged: its tasks made anew from a copy of what the agent saw,
    then merged with the plan as the batch left it before the op."""

    def replace(mine: Plan) -> list[str]:
        _init(mine, op, settings, now)
        return []

    steer(plan, steering, replace, now, anew=True)
    # A later init of the same batch starts from this one: the agent made it.
    steering.base = None


def _start(plan: Plan, op: StartOp, settings: Settings, now: str) -> None:
    if _has_target(op.task, op.id):
        phase, target = _find(plan, op.task, op.id, None)
        target = _leaf_to_start(plan, phase, target)
    else:
        pending = next(
            (t for t in leaves(plan.tasks()) if t.status == "pending" and not plan.is_waiting(t)),
            None,
        )
        if pending is None:
            raise OpRefused("No pending task to start")
        target = pending
    _start_task(plan, target, now)


def _leaf_to_start(plan: Plan, phase: Phase, task: Task) -> Task:
    """(v4) Starting a parent starts its first pending, not waiting leaf, whatever its owner."""
    task_id = task.id
    if not any([other.parent == task_id for other in phase.tasks]):
        return task  # a leaf (most starts): no tree of the phase
    tree = PhaseTree(phase.tasks)
    for leaf in tree.leaves(task):
        if leaf.status == "pending" and not plan.is_waiting(leaf):
            return leaf
    raise OpRefused(f'Task "{task.content}" has no subtask to start')


def _refuse_parent(phase: Phase, task: Task) -> None:
    """(v4) A parent's status is its subtasks': it is not blocked or set pending itself."""
    if PhaseTree(phase.tasks).is_parent(task):
        raise OpRefused(f'Task "{task.content}" has subtasks: change them instead')


def _end_subtree(phase: Phase, task: Task, status: TaskStatus, now: str) -> None:
    """A status given to one task (`done`, `drop`, `update`); on a parent (only an ending
    one reaches it) every subtask of it that has not ended takes it."""
    tree = PhaseTree(phase.tasks)
    if not tree.is_parent(task):
        task.set_status(status, now)
        return
    for leaf in tree.leaves(task):
        if leaf.status not in FINISHED:
            leaf.set_status(status, now)


def _start_task(plan: Plan, target: Task, now: str) -> None:
    """In progress, and the newest started; its owner's other task in progress waits."""
    tasks = plan.task_list()
    for task in [task for task in tasks if task.status == "in_progress"]:
        if task is not target and task.owner == target.owner:
            task.set_status("pending", now)
    if not target.set_status("in_progress", now):
        target.started_rank = start_rank()


def _finish(status: TaskStatus) -> Callable[[Plan, DoneOp | DropOp, Settings, str], None]:
    def finish(plan: Plan, op: DoneOp | DropOp, settings: Settings, now: str) -> None:
        if _has_target(op.task, op.id):
            phase, task = _targets(plan, op)[0]
            _end_subtree(phase, task, status, now)
            return
        # Marking a whole phase or list done leaves what already ended as it ended; the
        # parents follow their subtasks.
        targets = [task for _, task in _targets(plan, op)]
        for task in leaves(targets):
            if task.status not in FINISHED:
                task.set_status(status, now)

    return finish


def _rm(plan: Plan, op: RmOp, settings: Settings, now: str) -> None:
    doomed = {id(task) for _, task in _targets(plan, op)}
    for phase in plan.phases:
        phase.tasks = [task for task in phase.tasks if id(task) not in doomed]


def _append_phase(plan: Plan, op: AppendOp, settings: Settings) -> str:
    """Where an `append` puts its tasks: its `phase`; without one, the phase of the task in
    progress, else the last phase, else `Todos`: one answer for every face (no editor keeps
    its own rule)."""
    if op.phase is not None:
        return phase_name(op.phase, "append", settings)
    current = plan.current()
    for phase in plan.phases:
        if current is not None and any(task is current for task in phase.tasks):
            return phase.name
    return plan.phases[-1].name if plan.phases else DEFAULT_PHASE


def _append(plan: Plan, op: AppendOp, settings: Settings, now: str) -> None:
    if op.parent is not None:
        _append_under(plan, op, settings, now)
        return
    name = _append_phase(plan, op, settings)
    if not op.items:
        raise OpRefused("Missing items for append operation")
    top = _specs(op.items, "append", settings)
    _depth_check(top, 1, settings)
    specs = _new_specs(plan, top, settings)
    phase = plan.phase(name)
    if phase is None and (problem := phase_count_problem(len(plan.phases) + 1, settings)):
        raise OpRefused(problem)
    saved = _saved(plan)
    if phase is None:
        phase = Phase(name)
        plan.phases = [*plan.phases, phase]
    old_tasks = phase.tasks
    tasks = _new_tasks(plan, top, now)
    phase.tasks = [*old_tasks, *tasks]
    try:
        _link(plan, tasks, specs)
    except OpRefused:
        phase.tasks = old_tasks
        _put_back(plan, saved)
        raise


def _append_under(plan: Plan, op: AppendOp, settings: Settings, now: str) -> None:
    """(v4) `append` with `parent`: the items become that task's last subtasks."""
    ref = clean_content(op.parent or "")
    if not ref:
        raise OpRefused("Missing parent for append operation")
    phase, parent = plan.with_phase(ref) or _find(plan, ref, None, None)
    if not op.items:
        raise OpRefused("Missing items for append operation")
    top = _specs(op.items, "append", settings)
    tree = PhaseTree(phase.tasks)
    _depth_check(top, tree.depth(parent) + 1, settings)
    specs = _new_specs(plan, top, settings)
    saved = _saved(plan)
    old_tasks = phase.tasks
    tasks = _new_tasks(plan, top, now, parent.id)
    # Right after the parent's subtree: its last subtasks, in document order.
    end = old_tasks.index(parent) + len(tree.subtree(parent))
    phase.tasks = [*old_tasks[:end], *tasks, *old_tasks[end:]]
    try:
        _link(plan, tasks, specs)
    except OpRefused:
        phase.tasks = old_tasks
        _put_back(plan, saved)
        raise


def _new_specs(plan: Plan, top: list[TaskSpec], settings: Settings) -> list[TaskSpec]:
    """Every spec an append makes, in document order, checked as new pending tasks: no
    content that already exists, within maxTasks."""
    specs = _all_specs(top)
    existing = {task.content for task in plan.tasks()}
    duplicates = []
    for spec in specs:
        if spec.content in existing:
            duplicates.append(f'Task "{spec.content}" already exists')
        existing.add(spec.content)
    if duplicates:
        raise OpRefused(*duplicates)
    if problem := task_count_problem(plan.task_count() + len(specs), settings):
        raise OpRefused(problem)
    # Appended tasks are new work: they start pending whatever the item says.
    for spec in specs:
        spec.status = "pending"
    return specs


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


def _target_or_current(plan: Plan, op: BlockOp | UpdateOp) -> tuple[Phase, Task]:
    if _has_target(op.task, op.id):
        return _find(plan, op.task, op.id, None)
    current = plan.current()
    if current is None:
        raise OpRefused(f"No task is in progress to {op.op}; name one with task or id")
    return next(ph for ph, t in plan.tasks_with_phase() if t is current), current


def _block(plan: Plan, op: BlockOp, settings: Settings, now: str) -> None:
    phase, task = _target_or_current(plan, op)
    _refuse_parent(phase, task)
    reason = clean_note(op.reason or "")
    if reason:
        problem = note_problem(reason, settings) or note_count_problem(
            task.content, len(task.notes) + 1, settings
        )
        if problem:
            raise OpRefused(problem)
        task.add_note(reason, now)
    task.set_status("blocked", now)


def _update(plan: Plan, op: UpdateOp, settings: Settings, now: str) -> None:
    """Every named field is checked before any is changed: the op applies whole or not."""
    phase, task = _target_or_current(plan, op)
    if op.status in ("pending", "blocked"):
        _refuse_parent(phase, task)
    named = op.named
    changes: dict[str, object] = {}
    problems: list[str] = []
    content = task.content
    if "content" in named:
        content = clean_content(op.content or "")
        if not content:
            raise OpRefused("Missing content for update operation")
        if problem := content_problem(content, settings):
            problems.append(problem)
        changes["content"] = content
        if "active_form" not in named and task.active_form == task.content:
            changes["active_form"] = content
    if "active_form" in named:
        active_form = clean_content(op.active_form or "") or content
        if problem := content_problem(active_form, settings, "Active form"):
            problems.append(problem)
        changes["active_form"] = active_form
    fields, field_problems = optional_fields(op, content, settings)
    changes.update(fields)
    problems.extend(field_problems)
    if "blocked_by" in named:
        changes["blocked_by"] = resolve_blockers(plan, task, op.blocked_by or [])
    if op.add_files:
        files = list(task.files)
        for path in (clean_content(raw) for raw in op.add_files):
            if path and path not in files:
                files.append(path)
        if problem := file_count_problem(content, len(files), settings):
            problems.append(problem)
        changes["files"] = files
    if "notes" in named:  # how a person edits or deletes a note: the whole list
        notes, note_problems = clean_notes(op.notes or [], content, settings)
        problems.extend(note_problems)
        changes["notes"] = notes
    if problems:
        raise OpRefused(*problems)
    # Found before anything changes: a parent with nothing to start skips the op whole.
    to_start = _leaf_to_start(plan, phase, task) if op.status == "in_progress" else None
    for name, value in changes.items():
        if getattr(task, name) != value:
            setattr(task, name, value)
            task.updated_at = now
    if to_start is not None:
        _start_task(plan, to_start, now)
    elif op.status is not None:
        _end_subtree(phase, task, op.status, now)


_HANDLERS: dict[str, Callable[..., None]] = {
    "init": _init,
    "start": _start,
    "done": _finish("completed"),
    "drop": _finish("abandoned"),
    "block": _block,
    "rm": _rm,
    "append": _append,
    "note": _note,
    "update": _update,
    "move": move,  # (v4) core/move.py
}
