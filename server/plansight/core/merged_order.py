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
    """`common` laid out by each task's merged position: the sibling it follows in the
    list where the list moved it (differs from the base), else the one it follows now.
    Each task goes right after the one it follows; of two that follow the same one, the
    list's first comes first, with what follows it. A task whose neighbour others moved
    keeps following it (base A B C D, now C D A B, the list as the base: C D A B), which
    re-inserting only the tasks others moved did not (it gave C B D A)."""
    base, was, mine = (
        sorted(common, key=places.__getitem__) for places in (at_base, at_was, at_mine)
    )
    after_base, after_was, after_mine = (_follows(order) for order in (base, was, mine))
    followers: dict[str | None, list[str]] = {}
    for task_id in mine:
        moved_by_list = after_mine[task_id] != after_base[task_id]
        follows = after_mine[task_id] if moved_by_list else after_was[task_id]
        followers.setdefault(follows, []).append(task_id)
    order: list[str] = []
    placed: set[str] = set()

    def place_after(head: str | None) -> None:
        """The followers of `head`, each with its own followers right after it."""
        stack = list(reversed(followers.get(head, [])))
        while stack:
            task_id = stack.pop()
            if task_id not in placed:
                placed.add(task_id)
                order.append(task_id)
                stack.extend(reversed(followers.get(task_id, [])))

    place_after(None)
    for task_id in mine:  # tasks following each other in a circle: the list's first
        if task_id not in placed:
            placed.add(task_id)
            order.append(task_id)
            place_after(task_id)
    return order


def _follows(order: list[str]) -> dict[str, str | None]:
    return {task_id: (order[i - 1] if i else None) for i, task_id in enumerate(order)}
