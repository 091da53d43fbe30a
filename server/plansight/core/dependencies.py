"""What a task waits for: references resolved to ids, and the rules a dependency keeps
(no task waits for itself, for an unknown task, or in a cycle)."""

from __future__ import annotations

from plansight.core.errors import OpRefused
from plansight.core.model import Plan, Task
from plansight.protocol.text import clean_content


def resolve_blockers(plan: Plan, task: Task, refs: list[str]) -> list[str]:
    """`refs` (task ids or exact contents of the plan's tasks) as ids, each once, in
    order; OpRefused names the first rule broken."""
    by_id = {t.id: t for t in plan.tasks()}
    ids: list[str] = []
    for raw in refs:
        ref = clean_content(raw)
        found = by_id.get(ref) or next((t for t in plan.tasks() if t.content == ref), None)
        if found is None:
            raise OpRefused(f'Task "{ref}" not found')
        if found is task:
            raise OpRefused(f'Task "{task.content}" cannot wait for itself')
        if found.id not in ids:
            ids.append(found.id)
    cycle = _cycle(by_id, task, ids)
    if cycle:
        raise OpRefused("Dependency cycle: " + " -> ".join(f'"{t.content}"' for t in cycle))
    return ids


def _cycle(by_id: dict[str, Task], task: Task, blockers: list[str]) -> list[Task]:
    """The path task -> ... -> task if `task` waiting for `blockers` closes a cycle."""

    def waits_for(t: Task) -> list[str]:
        return blockers if t is task else t.blocked_by

    seen: set[str] = set()

    def walk(t: Task, path: list[Task]) -> list[Task]:
        for blocker_id in waits_for(t):
            blocker = by_id.get(blocker_id)
            if blocker is None:
                continue
            if blocker is task:
                return [*path, task]
            if blocker.id in seen:
                continue
            seen.add(blocker.id)
            found = walk(blocker, [*path, blocker])
            if found:
                return found
        return []

    return walk(task, [task])


def forget_removed(plan: Plan) -> None:
    """A removed task is no longer waited for."""
    tasks = plan.task_list()
    waiting = [task for task in tasks if task.blocked_by]  # most wait for none
    if not waiting:
        return
    present = {task.id for task in tasks}
    for task in waiting:
        if any(b not in present for b in task.blocked_by):
            task.blocked_by = [b for b in task.blocked_by if b in present]
