"""Replacing a whole list while keeping what a person would call the same task.

`write` (TodoWrite) and markdown import both send the full list again; a task keeps its
id, creation and start times when the new entry names its id, or else has its content.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from plansight.core.model import Phase, Plan, Task, TaskStatus


@dataclass(slots=True)
class Entry:
    content: str
    status: TaskStatus
    active_form: str | None = None  # None: keep the earlier task's, else the content
    notes: list[str] | None = None  # None: keep the earlier task's notes
    id: str | None = None


@dataclass(slots=True)
class PhaseEntries:
    name: str
    entries: list[Entry] = field(default_factory=list)


def group_by_phase(pairs: list[tuple[str, Entry]]) -> list[PhaseEntries]:
    """Entries in phases, the phases in the order they first appear."""
    phases: dict[str, PhaseEntries] = {}
    for name, entry in pairs:
        phases.setdefault(name, PhaseEntries(name)).entries.append(entry)
    return list(phases.values())


def rebuild(plan: Plan, phases: list[PhaseEntries], now: str) -> None:
    """Make `plan` hold exactly `phases`, carrying over the tasks it already had."""
    by_id = {task.id: task for task in plan.tasks()}
    by_content: dict[str, list[Task]] = {}
    for task in plan.tasks():
        by_content.setdefault(task.content, []).append(task)
    used: set[str] = set()

    def earlier(entry: Entry) -> Task | None:
        if entry.id is not None and entry.id in by_id and entry.id not in used:
            return by_id[entry.id]
        return next((t for t in by_content.get(entry.content, ()) if t.id not in used), None)

    rebuilt = []
    for phase in phases:
        tasks = []
        for entry in phase.entries:
            old = earlier(entry)
            if old is None:
                tasks.append(
                    plan.new_task(
                        entry.content,
                        now,
                        active_form=entry.active_form,
                        status=entry.status,
                        notes=entry.notes,
                    )
                )
            else:
                used.add(old.id)
                tasks.append(_carried(old, entry, now))
        rebuilt.append(Phase(phase.name, tasks))
    plan.phases = rebuilt


def _carried(old: Task, entry: Entry, now: str) -> Task:
    same_content = entry.content == old.content
    task = Task(
        id=old.id,
        content=entry.content,
        active_form=entry.active_form or (old.active_form if same_content else entry.content),
        status=old.status,
        notes=list(old.notes) if entry.notes is None else entry.notes,
        created_at=old.created_at,
        updated_at=old.updated_at,
        started_at=old.started_at,
        completed_at=old.completed_at,
    )
    if (task.content, task.active_form, task.notes) != (old.content, old.active_form, old.notes):
        task.updated_at = now
    task.set_status(entry.status, now)
    return task
