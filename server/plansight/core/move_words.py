"""A task's move, said in the `move` op's words (protocol 4): `moved "A" before "B"`,
`after "B"`, `under "B"`, `to the top level`, `to phase "P"`.

History words a change from two kept versions, not from the request, so a move is read
off where the task ended: among its old siblings, a task that alone changed its place
(the others keep their order without it) moved, and is said to have gone after the
sibling now before it when it went down, before the one now after it when it went up; a
task with a new parent or phase is said to have gone before its next sibling, or, as the
last one, under its parent, to the top level, or to its phase. A task that went along
with its parent (a subtask of a moved task) is not said again. Siblings reordered beyond
one move are "reordered the tasks of phase" as before."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from plansight.core.changes import Seen, Snapshot


@dataclass(slots=True)
class MoveWords:
    lines: dict[str, str] = field(default_factory=dict)  # a moved task's id: its line
    # Tasks whose new phase or parent the lines above say (or that went along).
    placed: set[str] = field(default_factory=set)
    reordered: set[str] = field(default_factory=set)  # phases reordered beyond a move


def move_words(before: Snapshot, after: Snapshot, contents: dict[str, str]) -> MoveWords:
    words = MoveWords()
    for task_id, now in after.tasks.items():
        old = before.tasks.get(task_id)
        if old is None or _place(old) == _place(now):
            continue
        words.placed.add(task_id)
        if _went_along(task_id, before, after):
            continue
        words.lines[task_id] = _new_place_line(task_id, old, after, contents)
    for group, old_order in _groups(before).items():
        new_order = _groups(after).get(group, [])
        both = set(old_order) & set(new_order)
        old_kept = [i for i in old_order if i in both]
        new_kept = [i for i in new_order if i in both]
        if old_kept == new_kept:
            continue
        mover = _the_one_moved(old_kept, new_kept)
        if mover is None:
            words.reordered.add(group[0])
            continue
        siblings = new_kept
        at = siblings.index(mover)
        if at > old_kept.index(mover):
            words.lines[mover] = f'moved "{contents[mover]}" after "{contents[siblings[at - 1]]}"'
        else:
            words.lines[mover] = f'moved "{contents[mover]}" before "{contents[siblings[at + 1]]}"'
    return words


def _place(seen: Seen) -> tuple[str, str | None]:
    return seen.phase, seen.values["parent"]


def _went_along(task_id: str, before: Snapshot, after: Snapshot) -> bool:
    """A subtask that kept its parent while that parent changed phase: it came with it."""
    old, now = before.tasks[task_id], after.tasks[task_id]
    parent = now.values["parent"]
    return parent is not None and parent == old.values["parent"]


def _new_place_line(task_id: str, old: Seen, after: Snapshot, contents: dict[str, str]) -> str:
    now = after.tasks[task_id]
    quoted = f'"{contents[task_id]}"'
    siblings = _groups(after)[(now.phase, now.values["parent"])]
    at = siblings.index(task_id)
    if at + 1 < len(siblings):
        return f'moved {quoted} before "{contents[siblings[at + 1]]}"'
    if now.values["parent"] is not None:
        return f'moved {quoted} under "{contents.get(now.values["parent"], now.values["parent"])}"'
    if now.phase != old.phase:
        return f'moved {quoted} to phase "{now.phase}"'
    return f"moved {quoted} to the top level"


def _groups(snap: Snapshot) -> dict[tuple[str, str | None], list[str]]:
    """Each sibling group (phase, parent) with its tasks' ids in order."""
    groups: dict[tuple[str, str | None], list[str]] = {}
    for task_id, seen in snap.tasks.items():
        groups.setdefault(_place(seen), []).append(task_id)
    return groups


def _the_one_moved(old: list[str], new: list[str]) -> str | None:
    """The one task whose place alone changed (the first in the old order when two fit,
    as in a swap of two), or None when it took more than one move."""
    for mover in old:
        if [i for i in old if i != mover] == [i for i in new if i != mover]:
            return mover
    return None
