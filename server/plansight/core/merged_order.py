"""Steering with subtasks (protocol 4): a task's position among its siblings merged as a
field. A task's position is the sibling it follows, among the siblings that the base,
the current plan (as the merge found it) and the sender's list all hold, so a sibling
added or removed elsewhere moves nobody. The list's position wins where it differs from
the base's (the sender moved the task); else a move made by others stays. In a person's
three-way merge the position never conflicts: the same rule (the request's order wins
where both moved the task).

Pure: no I/O. Run by the merge (`core.steering`) once the merged plan is laid out.
"""

from __future__ import annotations

from plansight.core.model import Plan, Task
from plansight.core.tree import in_document_order


def settle_positions(
    merged: Plan, base: Plan, was: Plan, mine: Plan, result_id: dict[str, str]
) -> set[str]:
    """Reorder each group of siblings of `merged` (in place) so that a move others made
    since `base` (seen in `was`, the current plan before the merge) that `mine` left
    alone stays; `mine`'s own order stands otherwise. Returns the ids of the tasks whose
    place among their siblings is not the list's."""
    moved: set[str] = set()
    at_base, at_was, at_mine = (_places(plan, result_id) for plan in (base, was, mine))
    for phase in merged.phases:
        groups: dict[str | None, list[Task]] = {}
        for task in phase.tasks:
            groups.setdefault(task.parent, []).append(task)
        reordered = False
        for siblings in groups.values():
            common = [
                t.id for t in siblings if t.id in at_base and t.id in at_was and t.id in at_mine
            ]
            if len(common) < 2:
                continue
            order = _merged_order(common, at_base, at_was, at_mine)
            if order != common:
                moved.update(i for i, j in zip(order, common, strict=True) if i != j)
                by_id = {t.id: t for t in siblings}
                slots = iter(order)
                # The tasks all three hold take each other's slots; the others stay put.
                placed = [
                    by_id[next(slots)]
                    if t.id in at_base and t.id in at_was and t.id in at_mine
                    else t
                    for t in siblings
                ]
                groups[siblings[0].parent] = placed
                reordered = True
        if reordered:
            phase.tasks = in_document_order(t for group in groups.values() for t in group)
    return moved


def _places(plan: Plan, result_id: dict[str, str]) -> dict[str, int]:
    """Each task's place in `plan`'s document order, by the merged plan's ids."""
    return {result_id.get(t.id, t.id): index for index, t in enumerate(plan.tasks())}


def _merged_order(
    common: list[str], at_base: dict[str, int], at_was: dict[str, int], at_mine: dict[str, int]
) -> list[str]:
    """The list's order of `common`, with each task others moved (and the list did not)
    put back right after the sibling it follows now (first, when it follows none)."""
    base, was, mine = (
        sorted(common, key=places.__getitem__) for places in (at_base, at_was, at_mine)
    )
    after_base, after_was, after_mine = (_follows(order) for order in (base, was, mine))
    order = list(mine)
    for task_id in was:
        if after_mine[task_id] == after_base[task_id] and after_was[task_id] != after_base[task_id]:
            order.remove(task_id)
            before = after_was[task_id]
            order.insert(0 if before is None else order.index(before) + 1, task_id)
    return order


def _follows(order: list[str]) -> dict[str, str | None]:
    return {task_id: (order[i - 1] if i else None) for i, task_id in enumerate(order)}
