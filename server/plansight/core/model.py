"""The plan of one session: phases holding tasks, each task with its notes and times."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import MISSING, dataclass, field, fields
from datetime import datetime, timezone
from itertools import chain, count
from typing import Any

# The contract's words, used by every module of the core under these names.
from plansight.protocol.vocabulary import DEFAULT_PHASE as DEFAULT_PHASE
from plansight.protocol.vocabulary import DEFAULT_SESSION as DEFAULT_SESSION
from plansight.protocol.vocabulary import FINISHED_STATUSES
from plansight.protocol.vocabulary import PRIORITIES as PRIORITIES
from plansight.protocol.vocabulary import STATUSES as STATUSES
from plansight.protocol.vocabulary import Origin as Origin
from plansight.protocol.vocabulary import Priority as Priority
from plansight.protocol.vocabulary import TaskStatus as TaskStatus

FINISHED: frozenset[str] = frozenset(FINISHED_STATUSES)

# How a Task field is treated by what derives from the field list (see TASK_FIELDS):
# a STAMP moves with time and is not what a reader compares (the fingerprint leaves it out,
# a change that changed nothing puts it back); an INTERNAL field is stored, never sent.
STAMP = {"stamp": True}
INTERNAL = {"stamp": True, "wire": False}


def attribute(label: str) -> dict[str, Any]:
    """A text attribute: one clean line or none (`str | None`), set by any item that names
    it (write, append, init, update), shown in markdown as `  Label: value` and read back,
    its change worded in the history. A field of this kind flows with no other code."""
    return {"attribute": label}


_last_rank = 0


def start_rank() -> int:
    """A number that orders starts, newest highest, across requests and processes."""
    global _last_rank
    _last_rank = max(time.time_ns(), _last_rank + 1)
    return _last_rank


def utc_now() -> str:
    """The current time as the wire carries it: ISO 8601, UTC, milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# A task's mark: a number no other task state ever had, given anew by every change of a
# field, wherever it is made (ops, the nesting rules, merges, the markdown rebuild). What
# derives from a task (the change's before-and-after, the store's rows, summary lines)
# is cached against the mark, so a change costs the tasks it touched. A list changed in
# place marks nothing: the only one (`add_note`) also sets `updated_at`. No two task
# objects ever hold the same mark (a copy is marked anew): two equal lists of marks are
# the same task objects in the same places, and a cache that keeps a list of marks needs
# no look at the objects while the marks match.
_next_mark = count(1).__next__
_set = object.__setattr__


def mark_now() -> int:
    """A new mark, given to no task: two calls in a row that give marks one apart say that
    no task changed or was made anywhere between them (the marks are given in order)."""
    return _next_mark()


class _Marked:
    """The slots a task has besides its fields (`fields(Task)` does not list them)."""

    __slots__ = ("found_mark", "found_seen", "found_stamps", "mark")

    mark: int
    # What the change pipeline last found of the task (`core/found.py`): its visible
    # values and its stamps as they were at mark `found_mark` (0: never noted).
    found_mark: int
    found_seen: tuple[Any, ...]
    found_stamps: tuple[Any, ...]

    def __setattr__(self, name: str, value: Any) -> None:
        _set(self, name, value)
        _set_mark(self, _next_mark())


_set_mark = _Marked.mark.__set__  # type: ignore[attr-defined,misc]


@dataclass(slots=True)
class Task(_Marked):
    """One task. Its fields are listed here once: the wire, the store, the fingerprint, the
    encoder's cache and the history snapshots all derive from `TASK_FIELDS`."""

    id: str
    content: str
    active_form: str
    status: TaskStatus
    notes: list[str]
    created_at: str = field(metadata=STAMP)
    updated_at: str = field(metadata=STAMP)
    description: str = ""
    priority: Priority | None = None
    blocked_by: list[str] = field(default_factory=list)
    owner: str | None = field(default=None, metadata=attribute("Owner"))
    files: list[str] = field(default_factory=list)
    external_id: str | None = None
    # Who added the task: a full replacement of the agent never removes a person's.
    created_by: Origin = "agent"
    started_at: str | None = field(default=None, metadata=STAMP)
    completed_at: str | None = field(default=None, metadata=STAMP)
    # (v4) The id of the task this one is a subtask of, in the same phase; None at the top.
    parent: str | None = None
    # When it last went in progress: `current` is the task in progress started last.
    started_rank: int = field(default=0, metadata=INTERNAL)

    def set_status(self, status: TaskStatus, now: str) -> bool:
        """Move to `status`, keeping the times true; returns whether anything changed."""
        if status == self.status:
            return False
        self.status = status
        self.updated_at = now
        if status == "in_progress":
            self.started_rank = start_rank()
            if self.started_at is None:
                self.started_at = now
        # completedAt marks when the task was finished, whichever way it ended.
        self.completed_at = now if status in FINISHED else None
        return True

    def add_note(self, text: str, now: str) -> None:
        self.notes.append(text)
        self.updated_at = now

    def values(self) -> tuple[Any, ...]:
        """Every field's value, lists as tuples (hashable, comparable)."""
        values: tuple[Any, ...] = _values(self)
        return values

    def seen(self) -> tuple[Any, ...]:
        """What a reader can see of the task, times aside."""
        seen: tuple[Any, ...] = _seen(self)
        return seen

    def copy(self) -> Task:
        copied: Task = _copy(self)
        return copied


TASK_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Task))
WIRE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Task) if f.metadata.get("wire", True))
STAMP_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Task) if f.metadata.get("stamp"))
SEEN_FIELDS: tuple[str, ...] = tuple(n for n in TASK_FIELDS if n not in STAMP_FIELDS)
# What moves with a status: kept or taken with it (a merge, a status an agent cannot say).
STATUS_STAMPS: tuple[str, ...] = ("started_at", "completed_at", "started_rank")
# Each text attribute's field name and its markdown label, in the field order.
ATTRIBUTES: dict[str, str] = {
    f.name: f.metadata["attribute"] for f in fields(Task) if "attribute" in f.metadata
}
LIST_FIELDS: frozenset[str] = frozenset(
    f.name for f in fields(Task) if str(f.type).startswith("list[")
)


def _compiled(template: str, names: tuple[str, ...], list_form: str, form: str) -> Any:
    """A function over a task, written out from the field list once at import: these run
    for every task of every request, and a loop of getattr calls costs several times more.
    Only the field names above (identifiers of this class) go into the source."""
    parts = ", ".join((list_form if n in LIST_FIELDS else form).format(n) for n in names)
    return eval(template.format(parts))


def _marking_init() -> Any:
    """`Task.__init__` as the dataclass writes it, but setting each slot directly and the
    mark once: a task is built for every row read and every task a whole list carries,
    and going through `_Marked.__setattr__` for each field costs several times more."""
    spaces: dict[str, Any] = {"_next_mark": _next_mark, "_MISSING": MISSING}
    params, body = [], []
    for f in fields(Task):
        spaces[f"_set_{f.name}"] = getattr(Task, f.name).__set__
        if f.default is not MISSING:
            spaces[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        elif f.default_factory is not MISSING:
            spaces[f"_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            body.append(f"    if {f.name} is _MISSING: {f.name} = _factory_{f.name}()")
        else:
            params.append(f.name)
        body.append(f"    _set_{f.name}(self, {f.name})")
    spaces["_set_mark"] = _set_mark
    spaces["_set_found"] = _Marked.found_mark.__set__  # type: ignore[attr-defined,misc]
    body.append("    _set_mark(self, _next_mark())")
    body.append("    _set_found(self, 0)")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body)
    exec(source, spaces)  # only the field names of this class go into the source
    return spaces["__init__"]


Task.__init__ = _marking_init()  # type: ignore[method-assign]

_values = _compiled("lambda t: ({},)", TASK_FIELDS, "tuple(t.{})", "t.{}")
_seen = _compiled("lambda t: ({},)", SEEN_FIELDS, "tuple(t.{})", "t.{}")
_copy = _compiled("lambda t: Task({})", TASK_FIELDS, "{0}=list(t.{0})", "{0}=t.{0}")


class _PhaseSlots:
    """The slots a phase has besides its fields: its summary lines, as
    `core/summary.py` last made them."""

    __slots__ = ("lines_as",)

    lines_as: Any


@dataclass(slots=True)
class Phase(_PhaseSlots):
    name: str
    tasks: list[Task] = field(default_factory=list)


class _PlanSlots:
    """The slots a plan has besides its fields: what `core/nesting.py` last settled, and
    each phase's marks when `core/found.py` last noted its tasks."""

    __slots__ = ("noted_as", "settled_as")

    noted_as: Any
    settled_as: Any


@dataclass(slots=True)
class Plan(_PlanSlots):
    """One session's list. `version` counts committed changes; `next_id` never goes back,
    so an id that once named a removed task never names another one."""

    session: str
    version: int = 0
    phases: list[Phase] = field(default_factory=list)
    next_id: int = 1
    updated_at: str | None = None
    title: str | None = None
    # Who makes the change being made now (the request's origin, set by the service):
    # the tasks it creates are theirs. Not stored: a plan read back is "agent".
    creator: Origin = "agent"

    def copy(self) -> Plan:
        """A copy whose tasks can change without changing this plan's."""
        return self._with_phases(
            [Phase(phase.name, [task.copy() for task in phase.tasks]) for phase in self.phases]
        )

    def sharing_tasks(self) -> Plan:
        """A copy with its own phases and the same Task objects: for a change that builds
        new tasks rather than changing them (the full replacements copy each task they
        carry over), cheaper than `copy`."""
        return self._with_phases([Phase(phase.name, list(phase.tasks)) for phase in self.phases])

    def _with_phases(self, phases: list[Phase]) -> Plan:
        """This plan's session, version, counter, times, title and creator over `phases`."""
        return Plan(
            self.session,
            self.version,
            phases,
            self.next_id,
            self.updated_at,
            self.title,
            self.creator,
        )

    def tasks(self) -> Iterator[Task]:
        for phase in self.phases:
            yield from phase.tasks

    def tasks_with_phase(self) -> Iterator[tuple[Phase, Task]]:
        for phase in self.phases:
            for task in phase.tasks:
                yield phase, task

    def with_phase(self, task_id: str) -> tuple[Phase, Task] | None:
        """The task with this id and the phase holding it, if there is one."""
        return next(((p, t) for p, t in self.tasks_with_phase() if t.id == task_id), None)

    def task_count(self) -> int:
        return sum(len(phase.tasks) for phase in self.phases)

    def is_empty(self) -> bool:
        return self.task_count() == 0

    def phase(self, name: str) -> Phase | None:
        for phase in self.phases:
            if phase.name == name:
                return phase
        return None

    def task_list(self) -> list[Task]:
        """Every task, in document order, as a list (built in C: no Python step a task)."""
        return list(chain.from_iterable([phase.tasks for phase in self.phases]))

    def current(self) -> Task | None:
        """The task in progress started most recently (the first on a tie); (v4) always a
        leaf: a parent is in progress only because a subtask is."""
        tasks = self.task_list()
        # A comprehension, not `map(attrgetter)`: CPython reads a slot faster in one.
        started = [task for task in tasks if task.status == "in_progress"]
        if not started:
            return None
        parents = {task.parent for task in tasks}
        current: Task | None = None
        for task in started:
            if task.id not in parents and (
                current is None or task.started_rank > current.started_rank
            ):
                current = task
        return current

    def waiting_on(self, task: Task) -> list[Task]:
        """The unfinished tasks `task` waits for, in `blockedBy` order."""
        if not task.blocked_by:
            return []
        by_id = {t.id: t for t in self.tasks()}
        found = (by_id.get(task_id) for task_id in task.blocked_by)
        return [t for t in found if t is not None and t.status not in FINISHED]

    def is_waiting(self, task: Task) -> bool:
        return bool(task.blocked_by) and bool(self.waiting_on(task))

    def new_id(self) -> str:
        task_id = f"t{self.next_id}"
        self.next_id += 1
        return task_id

    def new_task(
        self,
        content: str,
        now: str,
        *,
        active_form: str | None = None,
        status: TaskStatus = "pending",
        notes: list[str] | None = None,
        **extra: Any,
    ) -> Task:
        """`extra`: other Task fields by name (description, priority, owner...)."""
        task = Task(
            id=self.new_id(),
            content=content,
            active_form=active_form or content,
            status="pending",
            notes=list(notes or []),
            created_at=now,
            updated_at=now,
            created_by=self.creator,
            **extra,
        )
        task.set_status(status, now)
        return task

    def fingerprint(self) -> tuple[object, ...]:
        """What a reader can see of the plan; two equal fingerprints mean nothing changed."""
        current = self.current()
        return (
            self.title,
            # Which task is current is seen too: a start can change only that.
            current.id if current is not None else None,
            tuple((phase.name, tuple(t.seen() for t in phase.tasks)) for phase in self.phases),
        )


@dataclass(slots=True)
class Progress:
    completed: int
    abandoned: int
    total: int
    blocked: int = 0

    @property
    def percent(self) -> int:
        return 100 * self.completed // self.total if self.total else 0

    @property
    def remaining(self) -> int:
        return self.total - self.completed - self.abandoned


def progress_of(plan: Plan) -> Progress:
    return progress_of_tasks(plan.task_list())


def progress_of_tasks(tasks: Iterable[Task]) -> Progress:
    """(v4) Leaves only: a parent's status is its subtasks', counting it would count them
    twice."""
    listed = tasks if isinstance(tasks, list) else list(tasks)
    parents = {task.parent for task in listed if task.parent is not None}
    progress = Progress(0, 0, 0)
    for task in listed:
        if task.id in parents:
            continue
        progress.total += 1
        if task.status == "completed":
            progress.completed += 1
        elif task.status == "abandoned":
            progress.abandoned += 1
        elif task.status == "blocked":
            progress.blocked += 1
    return progress
