"""The merged plan's ids (steering): each side's ids as the merged plan names them (a
`blockedBy`, a snapshot of the list), and its dependencies settled: removed tasks
forgotten, no cycle the merge would make.

Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from plansight.core.changes import Snapshot
from plansight.core.model import Plan, Task


def ids_in(ids: Iterable[str], result_id: dict[str, str]) -> list[str]:
    """`ids` as the merged plan names them."""
    return [result_id.get(i, i) for i in ids]


def id_in(task_id: str | None, result_id: dict[str, str]) -> str | None:
    """A task's `parent` as the merged plan names it."""
    return result_id.get(task_id, task_id) if task_id is not None else None


def settle_parents(current: Plan, result_id: dict[str, str], before: Iterable[Plan]) -> None:
    """Each `parent` in the merged plan's ids; a task whose parent went (the list removed
    it, or a person did) takes the gone parent's place: its parent becomes the gone
    parent's parent, as the first of the plans `before` that holds it has it."""
    present = {t.id for t in current.tasks()}
    last_parent: dict[str, str | None] = {}
    for plan in before:
        for task in plan.tasks():
            last_parent.setdefault(
                id_in(task.id, result_id) or task.id, id_in(task.parent, result_id)
            )
    for task in current.tasks():
        parent = id_in(task.parent, result_id)
        seen: set[str] = set()
        while parent is not None and parent not in present and parent not in seen:
            seen.add(parent)
            parent = last_parent.get(parent)
        task.parent = parent if parent in present else None


def settle_blockers(
    current: Plan, result_id: dict[str, str], fallbacks: list[tuple[Task, list[str]]]
) -> None:
    """blockedBy in the merged plan's ids, removed tasks forgotten. When the merge made a
    cycle, the tasks whose list won take their current blockers again: the current plan
    has no cycle, and no current task waits for a task new in the list."""
    present = {t.id for t in current.tasks()}

    def settled(ids: list[str]) -> list[str]:
        return list(dict.fromkeys(i for i in ids_in(ids, result_id) if i in present))

    waiting = [task for task in current.tasks() if task.blocked_by]
    for task in waiting:
        task.blocked_by = settled(task.blocked_by)
    if waiting and _has_cycle(current):
        for task, current_blockers in fallbacks:
            task.blocked_by = settled(current_blockers)


def _has_cycle(plan: Plan) -> bool:
    waits = {t.id: t.blocked_by for t in plan.tasks()}
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def visit(task_id: str) -> bool:
        state[task_id] = 1
        for blocker in waits.get(task_id, ()):
            mark = state.get(blocker)
            if mark == 1 or (mark is None and blocker in waits and visit(blocker)):
                return True
        state[task_id] = 2
        return False

    return any(state.get(i) is None and visit(i) for i in waits)


def renamed(seen: Snapshot, result_id: dict[str, str]) -> Snapshot:
    """What the list shows, in the merged plan's ids: to say what the merge kept that it
    lacks."""
    return Snapshot(
        seen.title,
        {
            result_id.get(i, i): dataclasses.replace(
                task,
                values={
                    **task.values,
                    "blocked_by": tuple(ids_in(task.values["blocked_by"], result_id)),
                },
            )
            if task.values["blocked_by"]
            else task
            for i, task in seen.tasks.items()
        },
        seen.phases,
        result_id.get(seen.current, seen.current) if seen.current is not None else None,
    )


def give_parents_back(
    base: Plan, mine: Plan, pairs: list[tuple[Task, Task | None]], result_id: dict[str, str]
) -> None:
    """A list that lacks a task's base parent says nothing of where the task nests: the
    task lost its parent only because the list's own result dropped that parent (`write`
    with no `parent`, a flat format), which the merge may keep (rule 4: a person's task).
    Where the list put the task where that parent's going would (top level, or one of its
    base ancestors), its parent (in `mine`, each pair's list task, in place) is the base's
    again: unchanged by the list, so the current one stays, and a parent that does go is
    replaced by its own (`settle_parents`). Found by the steering property test: a task
    under a person's task went to the top level on the agent's second stale `write`."""
    base_parent = {t.id: t.parent for t in base.tasks()}
    listed = {id_in(t.id, result_id) for t in mine.tasks()}
    for a, b in pairs:
        if b is None or b.parent is None or id_in(b.parent, result_id) in listed:
            continue
        above: set[str | None] = {None}
        up = base_parent.get(b.parent)
        while up is not None and id_in(up, result_id) not in above:
            above.add(id_in(up, result_id))
            up = base_parent.get(up)
        if id_in(a.parent, result_id) in above:  # else the list nested it: its change
            a.parent = b.parent
