"""What a change found of its plan, so that what it did is read from the tasks it touched.

Every change of a task's field gives the task a new mark (`core/model.py`). Before a
change, each task's visible values and stamps as found are noted on it with its mark
(only for the tasks whose mark moved since they were last noted: a cache, the task
itself stays the truth). After it, a task whose mark is still its found one is as it
was. So while the plan holds the same task objects in the same places (a `start`,
`done`, `note`, `update`...), what changed, what was completed and what goes back when
nothing changed come from the touched tasks alone; a change of shape (a task added,
removed, moved, a list replaced) is read from the whole plan, against the found values
of the tasks it held.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter, is_
from typing import Any

from plansight.core.model import SEEN_FIELDS, STAMP_FIELDS, Phase, Plan, Task

ID_AT = SEEN_FIELDS.index("id")
CONTENT_AT = SEEN_FIELDS.index("content")
STATUS_AT = SEEN_FIELDS.index("status")
PARENT_AT = SEEN_FIELDS.index("parent")
RANK_AT = STAMP_FIELDS.index("started_rank")
_NOT_READ = object()

_stamps_of = attrgetter(*STAMP_FIELDS)
# The found slots are set past `_Marked.__setattr__`: noting a task does not change it.
_set_found_mark = Task.found_mark.__set__  # type: ignore[attr-defined]
_set_found_seen = Task.found_seen.__set__  # type: ignore[attr-defined]
_set_found_stamps = Task.found_stamps.__set__  # type: ignore[attr-defined]


def stamps_of(task: Task) -> tuple[Any, ...]:
    """The task's STAMP_FIELDS values, in that order."""
    if len(STAMP_FIELDS) == 1:  # attrgetter of one name gives the value, not a tuple
        return (_stamps_of(task),)
    stamps: tuple[Any, ...] = _stamps_of(task)
    return stamps


def note_found(tasks: list[Task]) -> None:
    """Note each task's values with its mark, where they are not noted already."""
    for task in touched(tasks):  # the usual change touched a few tasks
        _set_found_seen(task, task.seen())
        _set_found_stamps(task, stamps_of(task))
        _set_found_mark(task, task.mark)


def touched(tasks: list[Task]) -> list[Task]:
    """The tasks changed since they were noted (a new one never was), in their order."""
    return [task for task in tasks if task.mark != task.found_mark]


class Found:
    """The plan as a change found it: its title, phases and task objects in their places,
    next id and current task, each task's values noted on it (`note_found`)."""

    __slots__ = ("_current", "marks", "names", "next_id", "places", "title")

    def __init__(self, plan: Plan) -> None:
        self.title = plan.title
        self.next_id = plan.next_id
        self.names = [phase.name for phase in plan.phases]
        self.places = [list(phase.tasks) for phase in plan.phases]
        # Each phase's marks as found: a phase found at the marks its tasks were noted at
        # last (`Plan.noted_as`) holds those task objects, noted at those marks already.
        self.marks = [[task.mark for task in tasks] for tasks in self.places]
        self._current: object = _NOT_READ
        noted: list[list[int]] = getattr(plan, "noted_as", None) or []
        for at, marks in enumerate(self.marks):
            if at >= len(noted) or noted[at] != marks:
                note_found(self.places[at])
        plan.noted_as = self.marks

    def current(self) -> str | None:
        """The id of `Plan.current` as found, read from the found values when asked (a
        change that changes what a reader sees does not ask)."""
        if self._current is _NOT_READ:
            seen = [task.found_seen for _, task in self.tasks()]
            started = [
                (task.found_stamps[RANK_AT], values[ID_AT])
                for (_, task), values in zip(self.tasks(), seen, strict=True)
                if values[STATUS_AT] == "in_progress"
            ]
            parents = {values[PARENT_AT] for values in seen}
            best: tuple[int, str] | None = None
            for rank, task_id in started:  # the newest started leaf, the first on a tie
                if task_id not in parents and (best is None or rank > best[0]):
                    best = (rank, task_id)
            self._current = best[1] if best is not None else None
        current: str | None = self._current  # type: ignore[assignment]
        return current

    def tasks(self) -> Iterable[tuple[str, Task]]:
        """Each task found, with its phase's name, in document order."""
        for name, tasks in zip(self.names, self.places, strict=True):
            for task in tasks:
                yield name, task

    def fingerprint(self) -> tuple[object, ...]:
        """`Plan.fingerprint` of the plan as found."""
        return (
            self.title,
            self.current(),
            tuple(
                (name, tuple(task.found_seen for task in tasks))
                for name, tasks in zip(self.names, self.places, strict=True)
            ),
        )

    def touched_in_place(self, plan: Plan) -> list[tuple[Phase, Task]] | None:
        """The tasks the change touched, each with its phase, in document order, when the
        plan holds the tasks found in the same places under the same ids and phase
        names; None when it does not (read the whole plan)."""
        if len(plan.phases) != len(self.places):
            return None
        found: list[tuple[Phase, Task]] = []
        for phase, name, tasks, marks in zip(
            plan.phases, self.names, self.places, self.marks, strict=True
        ):
            if phase.name != name:
                return None
            if [task.mark for task in phase.tasks] == marks:
                continue  # the task objects found, unchanged (`core/model.py`)
            if len(phase.tasks) != len(tasks) or not all(map(is_, phase.tasks, tasks)):
                return None
            for task in touched(phase.tasks):
                if task.id != task.found_seen[ID_AT]:
                    return None
                found.append((phase, task))
        return found
