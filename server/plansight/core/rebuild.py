"""Replacing a whole list while keeping what a person would call the same task.

`write` (TodoWrite) and markdown import both send the full list again; a task keeps its
id, creation and start times when the new entry names its id, or else has its content.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from plansight.core.dependencies import forget_removed, resolve_blockers
from plansight.core.errors import OpRefused
from plansight.core.model import Phase, Plan, Task, TaskStatus
from plansight.core.tree import in_document_order


@dataclass(slots=True)
class Entry:
    content: str
    status: TaskStatus
    active_form: str | None = None  # None: keep the earlier task's, else the content
    notes: list[str] | None = None  # None: keep the earlier task's notes
    id: str | None = None
    # Other Task fields the entry names (description, priority, owner...); a field left
    # out keeps the earlier task's value.
    fields: dict[str, Any] = field(default_factory=dict)
    blocked_by: list[str] | None = None  # ids or contents; None: keep the earlier ones
    # Or the entries it waits for, as indexes into the rebuild's entries in plan order
    # (markdown names a task by content, which may not be unique).
    waits_for_entries: list[int] | None = None
    # (v4) Where the task sits: under the entry at this index of the rebuild's entries in
    # plan order; else at the top level when `top_level`; else under the parent it had
    # (a new task: the top level).
    parent_entry: int | None = None
    top_level: bool = False


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


def rebuild(
    plan: Plan, phases: list[PhaseEntries], now: str, *, edits_in_place: bool = False
) -> list[tuple[int, str]]:
    """Make `plan` hold exactly `phases`, carrying over the tasks it already had.

    With `edits_in_place` (a person's document), a line whose text changed where it stood
    keeps its task too: see `_pair_edits`.

    Returns the dependency problems as (entry index, line); the caller refuses the
    request when there are any (the plan is then half-made and must not be kept)."""
    by_id = {task.id: task for task in plan.tasks()}
    by_content: dict[str, list[Task]] = {}
    for task in plan.tasks():
        by_content.setdefault(task.content, []).append(task)
    used: set[str] = set()

    def earlier(entry: Entry) -> Task | None:
        if entry.id is not None and entry.id in by_id and entry.id not in used:
            return by_id[entry.id]
        return next((t for t in by_content.get(entry.content, ()) if t.id not in used), None)

    matched: dict[int, Task] = {}  # by id() of the entry
    for phase in phases:
        for entry in phase.entries:
            if (old := earlier(entry)) is not None:
                used.add(old.id)
                matched[id(entry)] = old
    if edits_in_place:
        _pair_edits(plan.phases, phases, matched)
    rebuilt = []
    for phase in phases:
        tasks = []
        for entry in phase.entries:
            old = matched.get(id(entry))
            if old is None:
                tasks.append(
                    plan.new_task(
                        entry.content,
                        now,
                        active_form=entry.active_form,
                        status=entry.status,
                        notes=entry.notes,
                        **entry.fields,
                    )
                )
            else:
                tasks.append(_carried(old, entry, now))
        rebuilt.append(Phase(phase.name, tasks))
    plan.phases = rebuilt
    entries = [entry for phase in phases for entry in phase.entries]
    _nest(plan, entries, now)
    forget_removed(plan)
    problems = _link(plan, entries, now)
    tidy_nesting(plan)
    return problems


def _pair_edits(old: list[Phase], new: list[PhaseEntries], matched: dict[int, Task]) -> None:
    """A line edited in place keeps its task, as Edit Task would: within a phase, where
    the new lines and the old tasks differ by a run of lines changed for a run of tasks
    (a diff's "replace" between the same neighbours), the unmatched lines of the run take
    the unmatched tasks of the run one for one when there are as many of each. A line
    added in one place and another removed elsewhere stay an addition and a removal."""
    taken = {task.id for task in matched.values()}
    old_by_name = {phase.name: phase.tasks for phase in old}
    for phase in new:
        tasks = old_by_name.get(phase.name, [])
        # Matched lines and tasks compare by the task's id; the unmatched are all unequal.
        before = [t.id if t.id in taken else ("old", n) for n, t in enumerate(tasks)]
        after = [
            matched[id(e)].id if id(e) in matched else ("new", n)
            for n, e in enumerate(phase.entries)
        ]
        diff = SequenceMatcher(None, before, after, autojunk=False)
        for kind, i1, i2, j1, j2 in diff.get_opcodes():
            if kind != "replace":
                continue
            gone = [t for t in tasks[i1:i2] if t.id not in taken]
            come = [e for e in phase.entries[j1:j2] if id(e) not in matched]
            if len(gone) == len(come):
                for task, entry in zip(gone, come, strict=True):
                    matched[id(entry)] = task
                    taken.add(task.id)


def _nest(plan: Plan, entries: list[Entry], now: str) -> None:
    """Each task under the parent its entry names (the plan's tasks are in entry order)."""
    tasks = list(plan.tasks())
    for task, entry in zip(tasks, entries, strict=True):
        if entry.parent_entry is not None:
            parent: str | None = tasks[entry.parent_entry].id
        elif entry.top_level:
            parent = None
        else:
            continue
        if task.parent != parent:
            task.parent = parent
            task.updated_at = now


def tidy_nesting(plan: Plan) -> None:
    """A task whose parent is gone or in another phase goes to the top level, and each
    phase is put back in document order (a flat list may send a subtask before its
    parent)."""
    for phase in plan.phases:
        ids = {task.id for task in phase.tasks}
        for task in phase.tasks:
            if task.parent is not None and task.parent not in ids:
                task.parent = None
        phase.tasks = in_document_order(phase.tasks)


def _link(plan: Plan, entries: list[Entry], now: str) -> list[tuple[int, str]]:
    """Give each task the dependencies its entry names. Cycles are those of the resulting
    plan: an entry's dependencies replace the task's old ones before any is checked (A
    waited for B; now B waits for A and A for nothing), and the entries are linked in
    order, so the one that closes a cycle is the one named."""
    tasks = list(plan.tasks())
    carried = [task.blocked_by for task in tasks]
    refs_of: list[list[str] | None] = []
    for task, entry in zip(tasks, entries, strict=True):
        refs = entry.blocked_by
        if entry.waits_for_entries is not None:
            refs = [tasks[i].id for i in entry.waits_for_entries]
        refs_of.append(refs)
        if refs is not None:
            task.blocked_by = []
    problems: list[tuple[int, str]] = []
    for index, (task, refs) in enumerate(zip(tasks, refs_of, strict=True)):
        if refs is None:
            continue
        try:
            task.blocked_by = resolve_blockers(plan, task, refs)
        except OpRefused as refused:
            problems.extend((index, line) for line in refused.lines)
            continue
        if task.blocked_by != carried[index]:
            task.updated_at = now
    return problems


def _carried(old: Task, entry: Entry, now: str) -> Task:
    """The earlier task with what the entry says: every field the entry leaves out keeps
    its value (a copy carries them all, whatever fields a Task has)."""
    task = old.copy()
    same_content = entry.content == old.content
    task.content = entry.content
    task.active_form = entry.active_form or (old.active_form if same_content else entry.content)
    if entry.notes is not None:
        task.notes = entry.notes
    for name, value in entry.fields.items():
        setattr(task, name, value)
    if task.seen() != old.seen():
        task.updated_at = now
    task.set_status(entry.status, now)
    return task
