"""Steering rule 6 (v4): a task the person started since the base keeps it over the task
the agent's list started, of the same owner, which goes back to pending; and the Kept line
says so beside the start (`started "C" (so "B" is pending again)`), never a start the
result does not hold.

Pure: no I/O. Run by the merge (`core.steering`) on the merged plan, before its words.
"""

from __future__ import annotations

import dataclasses

from plansight.core.changes import Snapshot
from plansight.core.model import Plan, Task


def keep_persons_starts(
    current: Plan, started: set[str], now: str
) -> list[tuple[Task, list[Task]]]:
    """One task in progress per owner, where the person started one since the base: the
    person's keeps it and the others of its owner go back to pending (rule 6; without one,
    normalization keeps the first as before). Returns each task kept in progress with the
    tasks it set back to pending."""
    # Leaves only: a parent's "in progress" is its subtasks' (settled after the merge), not
    # a start. Counting one made it the keeper, and every leaf in progress went back to
    # pending, the person's own start included (found by the steering property test).
    parents = {task.parent for task in current.tasks()}
    leaves = [task for task in current.tasks() if task.id not in parents]
    keeper: dict[str | None, Task] = {}
    for task in leaves:
        if task.id in started and task.status == "in_progress":
            keeper.setdefault(task.owner, task)
    demoted: dict[str, tuple[Task, list[Task]]] = {}
    for task in leaves:
        first = keeper.get(task.owner)
        if task.status == "in_progress" and first is not None and first is not task:
            task.set_status("pending", now)
            demoted.setdefault(first.id, (first, []))[1].append(task)
    return list(demoted.values())


def as_pending(seen: Snapshot, ids: set[str]) -> Snapshot:
    """What the list shows with the tasks `ids` pending: the Kept line says a task set back
    to pending beside the person's start that did it, not as a change of its own."""
    if not ids:
        return seen
    tasks = {
        i: dataclasses.replace(task, values={**task.values, "status": "pending"})
        if i in ids
        else task
        for i, task in seen.tasks.items()
    }
    return Snapshot(seen.title, tasks, seen.phases, seen.current)


def told_starts(words: list[str], demoted: list[tuple[Task, list[Task]]]) -> list[str]:
    """`words` with each start of the person's that set the agent's task back to pending
    said with it: `started "C" (so "B" is pending again)`, right after the line adding "C"
    when the person added it (the Kept line names only what the result holds)."""
    words = list(words)
    for keeper, tasks in demoted:
        names = ", ".join(f'"{task.content}"' for task in tasks)
        verb = "is" if len(tasks) == 1 else "are"
        started = f'started "{keeper.content}"'
        phrase = f"{started} (so {names} {verb} pending again)"
        if started in words:
            words[words.index(started)] = phrase
            continue
        added = next(
            (i for i, w in enumerate(words) if w.startswith(f'added "{keeper.content}" to phase ')),
            None,
        )
        words.insert(len(words) if added is None else added + 1, phrase)
    return words
