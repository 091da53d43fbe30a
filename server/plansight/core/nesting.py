"""The nesting rules every change ends with (protocol 4): a subtask sits in its parent's
phase, every phase keeps its tasks in document order, and a parent's status is its
subtasks'. `settle` applies them; it is idempotent, so it runs after every change
(`pipeline.py`) and between the ops of a batch (a later op reads parents' statuses)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from operator import is_

from plansight.core.model import Phase, Plan, Task, TaskStatus
from plansight.core.tree import PhaseTree, in_document_order, in_order


def parent_ids(tasks: Iterable[Task]) -> set[str]:
    """The ids some task of `tasks` names as its parent: the parents among them."""
    parents = {task.parent for task in tasks}
    parents.discard(None)
    return parents  # type: ignore[return-value]  # None discarded


def leaves(tasks: Iterable[Task]) -> list[Task]:
    """The tasks without subtasks, in the order given."""
    listed = list(tasks)
    parents = parent_ids(listed)
    if not parents:
        return listed  # a flat list (most plans): every task a leaf
    return [task for task in listed if task.id not in parents]


def started_leaves(tasks: list[Task]) -> list[Task]:
    """The leaves of `tasks` in progress, in the order given, when `tasks` are settled
    (`settle`, every phase whole): a parent is in progress exactly when one of its
    subtasks is, so the parents among the tasks in progress are those that these name;
    no look at the other tasks' parents."""
    started = [task for task in tasks if task.status == "in_progress"]
    if not started:
        return started
    parents = {task.parent for task in started}
    if parents == {None}:
        return started
    return [task for task in started if task.id not in parents]


def settled_current(plan: Plan) -> Task | None:
    """`Plan.current` of a settled plan (`started_leaves`): the leaf in progress started
    most recently, the first on a tie."""
    current: Task | None = None
    for task in started_leaves(plan.task_list()):
        if current is None or task.started_rank > current.started_rank:
            current = task
    return current


@dataclass(slots=True)
class _SettledAs:
    """A plan as `settle` left it: its phases, and each one's tasks, their marks, ids and
    parents."""

    phases: list[Phase]
    places: list[list[Task]]
    marks: list[list[int]]
    ids: list[list[str]]
    parents: list[list[str | None]]

    def settled_again(self, plan: Plan, now: str) -> bool:
        """When `plan` holds the same phases and only tasks' fields other than their ids and
        parents moved since: the parents of the phases whose marks moved derived again,
        those phases' marks taken, True. False when a phase, a task's place, id or parent
        moved (settle the whole plan). A phase whose marks did not move holds the same
        task objects, unchanged (`core/model.py`): neither its ids nor its parents are
        looked at, nor anything of a plan that did not change since."""
        phases = plan.phases
        if len(phases) != len(self.phases) or not all(map(is_, phases, self.phases)):
            return False
        moved = [
            (at, phase)
            for at, (phase, was) in enumerate(zip(phases, self.marks, strict=True))
            if [task.mark for task in phase.tasks] != was
        ]
        if not moved:
            return True
        for at, phase in moved:
            tasks, places = phase.tasks, self.places[at]
            if len(tasks) != len(places) or not all(map(is_, tasks, places)):
                return False
            if [task.id for task in tasks] != self.ids[at]:
                return False
            if [task.parent for task in tasks] != self.parents[at]:
                return False
        # Settled anew (this one is left as it is: a copy may share it).
        marks = list(self.marks)
        for at, phase in moved:
            _derive_phase(phase, now)
            marks[at] = [task.mark for task in phase.tasks]
        plan.settled_as = _SettledAs(self.phases, self.places, marks, self.ids, self.parents)
        return True


def settle(plan: Plan, now: str) -> None:
    """Subtasks in their parents' phases, each phase in document order, each parent's
    status (and its times) from its subtasks'. It runs several times a change: what it
    settled last is cached on the plan, and when only tasks' statuses may have moved since
    (the same tasks, places, ids and parents), only the phases whose tasks changed have
    their parents' statuses derived again (nothing when no task changed)."""
    settled: _SettledAs | None = getattr(plan, "settled_as", None)
    if settled is not None and settled.settled_again(plan, now):
        return
    tasks = plan.task_list()
    parents = [task.parent for task in tasks]
    if parents.count(None) == len(parents):
        return  # a flat plan is settled: no subtask, no parent (most plans, every change)
    _gather_subtrees(plan)
    for phase in plan.phases:
        if not in_order(phase.tasks):
            phase.tasks = in_document_order(phase.tasks)
    derive_parent_statuses(plan, now)
    plan.settled_as = _SettledAs(
        list(plan.phases),
        [list(phase.tasks) for phase in plan.phases],
        [[task.mark for task in phase.tasks] for phase in plan.phases],
        [[task.id for task in phase.tasks] for phase in plan.phases],
        [[task.parent for task in phase.tasks] for phase in plan.phases],
    )


def _gather_subtrees(plan: Plan) -> None:
    """A subtask goes to the phase of its top-level ancestor (a parent link names where it
    belongs more precisely than a phase does); a parent naming no task, or a cycle across
    phases, leaves the task at the top of its own phase: nothing is lost."""
    by_id = {task.id: task for task in plan.tasks()}
    phase_of = {task.id: phase for phase, task in plan.tasks_with_phase()}
    moving: dict[int, Phase] = {}
    # Each task's top-level ancestor, as found: in document order a parent comes first,
    # so most tasks' root is their parent's (one look-up, not a walk to the top).
    roots: dict[str, Task] = {}
    for phase, task in plan.tasks_with_phase():
        if task.parent is None:
            roots[task.id] = task
            continue
        if task.parent not in by_id or task.parent == task.id:
            task.parent = None
            roots[task.id] = task
            continue
        root = roots.get(task.parent) or _root(task, by_id)
        if root is None:  # a cycle: break it here
            task.parent = None
            roots[task.id] = task
            continue
        roots[task.id] = root
        home = phase_of[root.id]
        if home is not phase:
            moving[id(task)] = home
    if not moving:
        return
    for phase in plan.phases:
        staying = []
        for task in phase.tasks:
            # Popped: a task moved to a later phase is met there again and stays (looked
            # up, it was appended to that phase again while it was walked: a hang the
            # steering property test found, a subtask's parent in a later phase).
            target = moving.pop(id(task), None)
            if target is None:
                staying.append(task)
            else:
                target.tasks.append(task)
        phase.tasks = staying


def _root(task: Task, by_id: dict[str, Task]) -> Task | None:
    """The top-level task above `task`; None when its parents form a cycle."""
    seen = {task.id}
    while task.parent is not None and task.parent in by_id:
        task = by_id[task.parent]
        if task.id in seen:
            return None
        seen.add(task.id)
    return task


def status_of_subtasks(statuses: list[TaskStatus]) -> TaskStatus:
    """A parent's status from its subtasks' (the contract's order of rules)."""
    present = set(statuses)
    if "completed" in present and present <= _FINISHED:
        return "completed"
    if present == _ABANDONED:
        return "abandoned"
    if "in_progress" in present:
        return "in_progress"
    if "blocked" in present:
        return "blocked"
    return "pending"


_FINISHED = frozenset(("completed", "abandoned"))
_ABANDONED = frozenset(("abandoned",))


def derive_parent_statuses(plan: Plan, now: str) -> None:
    """Deepest first: in document order a task's subtasks follow it, so walking a phase
    backwards settles every subtask before its parent."""
    for phase in plan.phases:
        _derive_phase(phase, now)


def _derive_phase(phase: Phase, now: str) -> None:
    """`derive_parent_statuses` for one phase."""
    if [task.parent for task in phase.tasks].count(None) == len(phase.tasks):
        return  # a flat phase has no parent to derive
    ids = {task.id for task in phase.tasks}
    # The statuses of each parent's subtasks, gathered as the walk passes them.
    below: dict[str, list[TaskStatus]] = {}
    for task in reversed(phase.tasks):
        statuses = below.pop(task.id, None)
        if statuses:
            task.set_status(status_of_subtasks(statuses), now)
        parent = task.parent
        if parent is not None and parent != task.id and parent in ids:
            below.setdefault(parent, []).append(task.status)


def depth_problem(plan: Plan, max_depth: int) -> tuple[Task, str] | None:
    """The first task in document order deeper than `max_depth`, and the contract's line."""
    for phase in plan.phases:
        tree = PhaseTree(phase.tasks)
        for task in phase.tasks:
            depth = tree.depth(task)
            if depth > max_depth:
                return task, too_deep_line(task.content, depth, max_depth)
    return None


def too_deep_line(content: str, depth: int, max_depth: int) -> str:
    return f'Too deep: "{content}" would be at depth {depth}, the limit is {max_depth}'
