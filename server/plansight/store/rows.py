"""How a plan and its event log are laid out in rows, whatever database holds them.

A task is a row of a column per `Task` field (named as the field, lists as JSON text)
after its place (phase position, position); an event is a row of the columns below. Every
store writes and reads them through these functions and says only its own SQL, so a field
added to `Task` or to the log reaches every backend alike.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter, is_
from typing import Any

from plansight.core.changes import LoggedChange
from plansight.core.model import LIST_FIELDS, TASK_FIELDS, Origin, Plan, Task
from plansight.core.record import Record
from plansight.store.base import ChangeEvent, ChangeNotice, LoggedEvent

TaskRow = tuple[Any, ...]  # phase position, position, then a value per Task field
EventRow = tuple[Any, ...]

TASK_COLUMNS = "phase_position, position, " + ", ".join(TASK_FIELDS)
TASK_COLUMN_COUNT = len(TASK_FIELDS) + 2
# The event log's columns: what `events()` reads back, then the plan kept for `restore`.
LOG_COLUMNS = (
    "session, version, origin, method, request, completed, changes, removed, auto_started, "
    "writer, at, agent_base"
)
EVENT_COLUMNS = LOG_COLUMNS + ", snapshot"
EVENT_COLUMN_COUNT = EVENT_COLUMNS.count(",") + 1
# What `history` and the context rounds read of each change.
CHANGE_COLUMNS = "version, origin, method, at, changes, auto_started"

_JSON_AT = frozenset(i for i, name in enumerate(TASK_FIELDS) if name in LIST_FIELDS)
_task_values = attrgetter(*TASK_FIELDS)

# `json.dumps(value, ensure_ascii=False)`, without building an encoder on every call.
_dumps_text = json.JSONEncoder(ensure_ascii=False).encode


def task_row(task: Task, phase_position: int, position: int) -> TaskRow:
    """`task` as a row of TASK_COLUMNS (lists as JSON text: a note may hold any character)."""
    values = list(_task_values(task))
    for index in _JSON_AT:
        values[index] = _dumps_text(values[index]) if values[index] else "[]"
    return (phase_position, position, *values)


def task_of(row: Sequence[Any]) -> Task:
    """A row of TASK_COLUMNS read back."""
    values = list(row[2:])
    for index in _JSON_AT:
        values[index] = json.loads(values[index])
    return Task(*values)


@dataclass(slots=True)
class PlanRows:
    """A plan as rows, against the rows it was last written as: what a commit writes."""

    phase_names: list[str]
    phases_changed: bool
    rows: dict[str, TaskRow]  # every task's row, by id
    changed: list[TaskRow]  # rows new or different: to insert or replace
    placed: list[tuple[int, int, Task]]  # their tasks, where they stand
    gone: list[str]  # ids of the tasks removed: rows to delete
    # Each phase's tasks and their marks as written: a phase that holds the same task
    # objects with the same marks next time has the same rows (`core/model.py`).
    places: list[list[Task]]
    marks: list[list[int]]


@dataclass(slots=True)
class WrittenRows:
    """The rows a plan was last written as; `places` and `marks` None: not known which
    tasks they were made from (read back from the store), so every row is compared."""

    rows: dict[str, TaskRow]
    phase_names: list[str] | None
    places: list[list[Task]] | None = None
    marks: list[list[int]] | None = None
    # Each task's part of the whole-plan record last stored, by id, with the row it was
    # made from: the next one encodes only the tasks whose rows changed (`plan_text`).
    texts: dict[str, tuple[TaskRow, str]] = field(default_factory=dict)

    def same_tasks(self, at: int, tasks: list[Task]) -> bool:
        """Whether phase `at` holds the task objects it was written with, in their places."""
        if self.places is None or self.marks is None or at >= len(self.places):
            return False
        written = self.places[at]
        return len(written) == len(tasks) and all(map(is_, written, tasks))


def plan_rows(plan: Plan, old: WrittenRows) -> PlanRows:
    """What writing `plan` over the rows it was last written as changes. Only the phases
    whose tasks were changed, added, removed or moved are compared row by row; of a phase
    that holds the tasks it was written with, only those whose marks moved."""
    names = [phase.name for phase in plan.phases]
    rows = old.rows
    copied = False
    reshaped = old.places is None or len(plan.phases) != len(old.places)
    changed: list[TaskRow] = []
    placed: list[tuple[int, int, Task]] = []
    places = [list(phase.tasks) for phase in plan.phases]
    marks = [[task.mark for task in tasks] for tasks in places]
    for phase_position, tasks in enumerate(places):
        phase_marks = marks[phase_position]
        written = (
            old.marks[phase_position] if old.marks and phase_position < len(old.marks) else None
        )
        if written == phase_marks:
            continue  # the task objects written, at the marks written (`core/model.py`)
        if written is not None and old.same_tasks(phase_position, tasks):
            at = [
                i
                for i, (mark, was) in enumerate(zip(phase_marks, written, strict=True))
                if mark != was
            ]
        else:
            at = list(range(len(tasks)))
            reshaped = True
        if not copied:  # the rows last written stay as they are for the session's copy
            rows, copied = dict(rows), True
        for position in at:
            task = tasks[position]
            row = task_row(task, phase_position, position)
            was = rows.get(task.id)
            if was != row:
                if was is None or was[:2] != row[:2]:
                    reshaped = True  # its id changed: the row under the old one goes
                changed.append(row)
                placed.append((phase_position, position, task))
            rows[task.id] = row
    gone: list[str] = []
    if reshaped:
        present = {task.id for task in chain.from_iterable(places)}
        gone = [task_id for task_id in rows if task_id not in present]
        if gone:
            if not copied:
                rows = dict(rows)
            for task_id in gone:
                del rows[task_id]
    return PlanRows(names, names != old.phase_names, rows, changed, placed, gone, places, marks)


def committed_event(plan: Plan, event: ChangeEvent, writer: str, at: str) -> LoggedEvent:
    """The log entry of `plan`'s commit, at `at` (as `rules.stamp_commit` stamped it)."""
    return LoggedEvent(
        plan.session,
        plan.version,
        event.origin,
        event.method,
        event.request,
        event.completed,
        event.changes,
        event.removed,
        event.auto_started,
        writer,
        at,
        event.agent_base,
    )


_KEYS = [_dumps_text(name) + ": " for name in TASK_FIELDS]


def plan_text(
    plan: Plan, places: list[list[Task]], rows: dict[str, TaskRow], old: WrittenRows
) -> tuple[str, dict[str, tuple[TaskRow, str]]]:
    """`_dumps_text(plan_record(plan))` (the whole plan kept for `restore`), byte for byte,
    each task's part made from its row (`places`, `rows`: as `plan_rows` made them); a task
    whose row is the one the record before was made from keeps its part (`old.texts`).
    Returns the text and the parts, for the next record."""
    texts: dict[str, tuple[TaskRow, str]] = {}
    kept = old.texts
    phases = []
    for phase, tasks in zip(plan.phases, places, strict=True):
        parts = []
        for task in tasks:
            row = rows[task.id]
            cached = kept.get(task.id)
            if cached is None or cached[0] != row:
                cached = (row, _task_text(row))
            texts[task.id] = cached
            parts.append(cached[1])
        phases.append(
            '{"name": ' + _dumps_text(phase.name) + ', "tasks": [' + ", ".join(parts) + "]}"
        )
    head = '{"title": ' + _dumps_text(plan.title) + ', "nextId": ' + _dumps_text(plan.next_id)
    return head + ', "phases": [' + ", ".join(phases) + "]}", texts


def _task_text(row: TaskRow) -> str:
    """A task's JSON object, as `_dumps_text` writes it, from its row (lists as JSON text
    already, as the row holds them)."""
    values = row[2:]
    return (
        "{"
        + ", ".join(
            [
                key + (value if index in _JSON_AT else _dumps_text(value))
                for index, (key, value) in enumerate(zip(_KEYS, values, strict=True))
            ]
        )
        + "}"
    )


def event_row(entry: LoggedEvent, snapshot: Record | str | None) -> EventRow:
    """The values of EVENT_COLUMNS for `entry` and the plan kept with it (None: none; a
    text: the record encoded already, `plan_text`)."""
    return (
        entry.session,
        entry.version,
        entry.origin,
        entry.method,
        json.dumps(entry.request),  # ASCII escapes: keeps whatever a client sent
        _dumps_text(entry.completed),
        _dumps_text(entry.changes),
        _dumps_text(entry.removed),
        _dumps_text(entry.auto_started),
        entry.writer,
        entry.at,
        entry.agent_base,
        snapshot if snapshot is None or isinstance(snapshot, str) else _dumps_text(snapshot),
    )


def event_of(row: Any) -> LoggedEvent:
    """A row of LOG_COLUMNS read back."""
    (
        session,
        version,
        origin,
        method,
        request,
        completed,
        changes,
        removed,
        auto,
        writer,
        at,
        base,
    ) = row
    return LoggedEvent(
        session,
        int(version),
        origin,
        method,
        json.loads(request),
        json.loads(completed),
        json.loads(changes),
        json.loads(removed),
        json.loads(auto),
        writer,
        at,
        None if base is None else int(base),
    )


def notice_of(
    session: str, version: int, origin: Origin, completed: str, removed: str
) -> ChangeNotice:
    """A change another process committed, from its event row: what a watcher pushes."""
    return ChangeNotice(session, version, origin, json.loads(completed), json.loads(removed))


def change_of(row: Any) -> LoggedChange:
    """A row of CHANGE_COLUMNS read back."""
    version, origin, method, at, changes, auto_started = row
    return LoggedChange(version, origin, method, at, json.loads(changes), json.loads(auto_started))
