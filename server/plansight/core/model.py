"""The plan of one session: phases holding tasks, each task with its notes and times."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Literal

TaskStatus = Literal["pending", "in_progress", "completed", "abandoned"]
Origin = Literal["agent", "user"]

STATUSES: tuple[TaskStatus, ...] = ("pending", "in_progress", "completed", "abandoned")
FINISHED: frozenset[str] = frozenset({"completed", "abandoned"})
DEFAULT_PHASE = "Todos"
DEFAULT_SESSION = "default"


def utc_now() -> str:
    """The current time as the wire carries it: ISO 8601, UTC, milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(slots=True)
class Task:
    id: str
    content: str
    active_form: str
    status: TaskStatus
    notes: list[str]
    created_at: str
    updated_at: str
    started_at: str | None = None
    completed_at: str | None = None

    def set_status(self, status: TaskStatus, now: str) -> bool:
        """Move to `status`, keeping the times true; returns whether anything changed."""
        if status == self.status:
            return False
        self.status = status
        self.updated_at = now
        if status == "in_progress" and self.started_at is None:
            self.started_at = now
        # completedAt marks when the task was finished, whichever way it ended.
        self.completed_at = now if status in FINISHED else None
        return True

    def add_note(self, text: str, now: str) -> None:
        self.notes.append(text)
        self.updated_at = now


@dataclass(slots=True)
class Phase:
    name: str
    tasks: list[Task] = field(default_factory=list)


@dataclass(slots=True)
class Plan:
    """One session's list. `version` counts committed changes; `next_id` never goes back,
    so an id that once named a removed task never names another one."""

    session: str
    version: int = 0
    phases: list[Phase] = field(default_factory=list)
    next_id: int = 1
    updated_at: str | None = None

    def tasks(self) -> Iterator[Task]:
        for phase in self.phases:
            yield from phase.tasks

    def tasks_with_phase(self) -> Iterator[tuple[Phase, Task]]:
        for phase in self.phases:
            for task in phase.tasks:
                yield phase, task

    def task_count(self) -> int:
        return sum(len(phase.tasks) for phase in self.phases)

    def is_empty(self) -> bool:
        return self.task_count() == 0

    def phase(self, name: str) -> Phase | None:
        for phase in self.phases:
            if phase.name == name:
                return phase
        return None

    def current(self) -> Task | None:
        for task in self.tasks():
            if task.status == "in_progress":
                return task
        return None

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
    ) -> Task:
        task = Task(
            id=self.new_id(),
            content=content,
            active_form=active_form or content,
            status="pending",
            notes=list(notes or []),
            created_at=now,
            updated_at=now,
        )
        task.set_status(status, now)
        return task

    def fingerprint(self) -> tuple[object, ...]:
        """What a reader can see of the plan; two equal fingerprints mean nothing changed."""
        return tuple(
            (
                phase.name,
                tuple(
                    (t.id, t.content, t.active_form, t.status, tuple(t.notes)) for t in phase.tasks
                ),
            )
            for phase in self.phases
        )


@dataclass(slots=True)
class Progress:
    completed: int
    abandoned: int
    total: int

    @property
    def percent(self) -> int:
        return 100 * self.completed // self.total if self.total else 0

    @property
    def remaining(self) -> int:
        return self.total - self.completed - self.abandoned


def progress_of(plan: Plan) -> Progress:
    completed = abandoned = total = 0
    for task in plan.tasks():
        total += 1
        if task.status == "completed":
            completed += 1
        elif task.status == "abandoned":
            abandoned += 1
    return Progress(completed, abandoned, total)
