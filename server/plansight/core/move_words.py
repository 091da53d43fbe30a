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

# Where a task is: its phase and its parent's id (None at the top). A plan's places are
# its tasks' ids, in document order, each with its place.
Place = tuple[str, str | None]
Places = dict[str, Place]


@dataclass(slots=True)
class MoveWords:
    lines: dict[str, str] = field(default_factory=dict)  # a moved task's id: its line
    # Tasks whose new phase or parent the lines above say (or that went along).
    placed: set[str] = field(default_factory=set)
    reordered: set[str] = field(default_factory=set)  # phases reordered beyond a move


def move_words(before: Places, after: Places, contents: dict[str, str]) -> MoveWords:
    words = MoveWords()
    groups_after = _groups(after)
    for task_id, now in after.items():
        old = before.get(task_id)
        if old is None or old == now:
            continue
        words.placed.add(task_id)
        if _went_along(task_id, before, after):
            continue
        words.lines[task_id] = _new_place_line(task_id, old, now, groups_after, contents)
    for group, old_order in _groups(before).items():
        new_order = groups_after.get(group, [])
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


def _went_along(task_id: str, before: Places, after: Places) -> bool:
    """A subtask that kept its parent while that parent changed phase: it came with it."""
    parent = after[task_id][1]
    return parent is not None and parent == before[task_id][1]


def _new_place_line(
    task_id: str, old: Place, now: Place, groups: dict[Place, list[str]], contents: dict[str, str]
) -> str:
    phase, parent = now
    quoted = f'"{contents[task_id]}"'
    siblings = groups[now]
    at = siblings.index(task_id)
    if at + 1 < len(siblings):
        return f'moved {quoted} before "{contents[siblings[at + 1]]}"'
    if parent is not None:
        return f'moved {quoted} under "{contents.get(parent, parent)}"'
    if phase != old[0]:
        return f'moved {quoted} to phase "{phase}"'
    return f"moved {quoted} to the top level"


def _groups(places: Places) -> dict[Place, list[str]]:
    """Each sibling group (phase, parent) with its tasks' ids in order."""
    groups: dict[Place, list[str]] = {}
    for task_id, place in places.items():
        groups.setdefault(place, []).append(task_id)
    return groups


def _the_one_moved(old: list[str], new: list[str]) -> str | None:
    """The one task whose place alone changed (the first in the old order when two fit,
    as in a swap of two), or None when it took more than one move."""
    for mover in old:
        if [i for i in old if i != mover] == [i for i in new if i != mover]:
            return mover
    return None
