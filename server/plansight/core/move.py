"""The `move` op (protocol 4): one task, with its subtasks, put somewhere else in the plan.

Before or after a sibling, as the last subtask of a task, at the top level of its phase,
or at the end of another phase. A phase keeps document order (core/tree.py), so a task's
subtree is one run of its phase's list: a move takes that run out and puts it back whole.
A move changes no status; the parents' statuses follow their subtasks when the batch is
normalized, as after every op."""

from __future__ import annotations

from dataclasses import dataclass

from plansight.core.errors import OpRefused
from plansight.core.items import phase_name
from plansight.core.limits import phase_count_problem
from plansight.core.model import Phase, Plan, Task
from plansight.core.nesting import too_deep_line
from plansight.core.settings import Settings
from plansight.core.tree import PhaseTree
from plansight.protocol.requests import MoveOp
from plansight.protocol.text import clean_content

NEEDS_ONE = "Move needs one of before, after, parent or phase"


@dataclass(frozen=True, slots=True)
class _Place:
    """Where the moved run goes: into `phase` at `index` (of the list without the run),
    under `parent` (None: the top level)."""

    phase: Phase
    index: int
    parent: str | None


def move(plan: Plan, op: MoveOp, settings: Settings, now: str) -> None:
    where = _destination_names(op)
    target_phase, target = _target(plan, op)
    run = PhaseTree(target_phase.tasks).subtree(target)
    place = _place(plan, op, where, target_phase, target, run, settings)
    kept = _without(target_phase, run)
    moved = [*kept[: place.index], *run, *kept[place.index :]]
    if (
        place.phase is target_phase
        and target.parent == place.parent
        and all(a is b for a, b in zip(moved, target_phase.tasks, strict=True))
    ):
        return  # already there: nothing changes
    target_phase.tasks = kept
    rest = place.phase.tasks
    place.phase.tasks = [*rest[: place.index], *run, *rest[place.index :]]
    target.parent = place.parent
    target.updated_at = now


def _destination_names(op: MoveOp) -> str:
    """Which one of the four the op names; none or several is a bad op."""
    named = [
        name
        for name in ("before", "after", "parent", "phase")
        # `parent: null` names the top level; a null `before` names nothing.
        if (name == "parent" and "parent" in op.named) or getattr(op, name) is not None
    ]
    if len(named) != 1:
        raise OpRefused(NEEDS_ONE)
    return named[0]


def _target(plan: Plan, op: MoveOp) -> tuple[Phase, Task]:
    if op.id is not None:
        found = plan.with_phase(op.id)
        if found is None:
            raise OpRefused(f'Task id "{clean_content(op.id)}" not found')
        return found
    wanted = clean_content(op.task or "")
    if not wanted:
        raise OpRefused("Missing task for move operation")
    for phase, task in plan.tasks_with_phase():
        if task.content == wanted:
            return phase, task
    raise OpRefused(f'Task "{wanted}" not found')


def _reference(plan: Plan, raw: str) -> tuple[Phase, Task]:
    """A task named by id, else by exact content (the contract's order for a move)."""
    found = plan.with_phase(raw)
    if found is not None:
        return found
    wanted = clean_content(raw)
    for phase, task in plan.tasks_with_phase():
        if task.content == wanted:
            return phase, task
    raise OpRefused(f'Task "{wanted}" not found')


def _place(
    plan: Plan,
    op: MoveOp,
    where: str,
    target_phase: Phase,
    target: Task,
    run: list[Task],
    settings: Settings,
) -> _Place:
    if where == "phase":
        name = phase_name(op.phase, "move", settings)
        phase = plan.phase(name)
        if phase is None:
            if problem := phase_count_problem(len(plan.phases) + 1, settings):
                raise OpRefused(problem)
            phase = Phase(name)
            plan.phases = [*plan.phases, phase]
        return _Place(phase, len(_without(phase, run)), None)
    if where == "parent" and op.parent is None:
        return _Place(target_phase, len(_without(target_phase, run)), None)
    raw = op.parent if where == "parent" else op.before if where == "before" else op.after
    phase, reference = _reference(plan, raw or "")
    if any(task is reference for task in run) and not (reference is target and where != "parent"):
        raise OpRefused(f'Task "{target.content}" cannot move under itself')
    tree = PhaseTree(phase.tasks)
    depth = tree.depth(reference) + (1 if where == "parent" else 0)
    _check_depth(target, run, depth, PhaseTree(target_phase.tasks), settings)
    rest = _without(phase, run)
    if where == "parent":
        # The last subtask: right after the reference's whole subtree.
        end = _last_staying(tree, reference, run)
        return _Place(phase, _index(rest, end) + 1, reference.id)
    if reference is target:  # before or after itself: where it is
        return _Place(phase, _index(phase.tasks, target), target.parent)
    if where == "before":
        return _Place(phase, _index(rest, reference), reference.parent)
    end = _last_staying(tree, reference, run)
    return _Place(phase, _index(rest, end) + 1, reference.parent)


def _last_staying(tree: PhaseTree, reference: Task, run: list[Task]) -> Task:
    """The last task of `reference`'s subtree that the move leaves in place (the moved
    task may be under it: moving a subtask after its own parent)."""
    moving = {id(task) for task in run}
    return [task for task in tree.subtree(reference) if id(task) not in moving][-1]


def _index(tasks: list[Task], wanted: Task) -> int:
    return next(at for at, task in enumerate(tasks) if task is wanted)


def _without(phase: Phase, run: list[Task]) -> list[Task]:
    """The phase's tasks but the run's (by identity: two tasks may have equal fields)."""
    moving = {id(task) for task in run}
    return [task for task in phase.tasks if id(task) not in moving]


def _check_depth(
    target: Task, run: list[Task], depth: int, tree: PhaseTree, settings: Settings
) -> None:
    """Skip a move that would put a task of the run deeper than `maxDepth`."""
    limit = settings.max_depth
    top = tree.depth(target)
    for task in run:  # document order: the first that would pass the limit is named
        at = depth + tree.depth(task) - top
        if at > limit:
            raise OpRefused(too_deep_line(task.content, at, limit))
