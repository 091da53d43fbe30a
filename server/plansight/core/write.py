"""`plansight/write`: the strict, TodoWrite-compatible full replacement."""

from __future__ import annotations

from collections import Counter

from plansight.core.errors import FieldError, RequestRefused
from plansight.core.items import clean_notes, optional_fields
from plansight.core.limits import content_problem, phase_count_problem, task_count_problem
from plansight.core.model import DEFAULT_PHASE, Plan
from plansight.core.rebuild import Entry, group_by_phase, rebuild
from plansight.core.settings import Settings
from plansight.protocol.requests import WriteItem
from plansight.protocol.text import clean_content

ONE_IN_PROGRESS = "Only one task can be in_progress at a time"


def write_todos(plan: Plan, items: list[WriteItem], settings: Settings, now: str) -> None:
    """Replace the list with `items`, or raise RequestRefused (the caller then drops the
    half-changed plan: nothing is committed)."""
    errors: list[FieldError] = []
    pairs: list[tuple[str, Entry]] = []
    for index, item in enumerate(items):
        path = f"todos.{index}"
        content = clean_content(item.content)
        active_form = clean_content(item.active_form)
        if not content:
            errors.append(FieldError(f"{path}.content", "Content must not be empty"))
        elif problem := content_problem(content, settings):
            errors.append(FieldError(f"{path}.content", problem))
        if not active_form:
            errors.append(FieldError(f"{path}.activeForm", "activeForm must not be empty"))
        elif problem := content_problem(active_form, settings, "Active form"):
            errors.append(FieldError(f"{path}.activeForm", problem))
        phase = clean_content(item.phase or "") or DEFAULT_PHASE
        if problem := content_problem(phase, settings, "Phase name"):
            errors.append(FieldError(f"{path}.phase", problem))
        notes = None
        if item.notes is not None:
            notes, problems = clean_notes(item.notes, content, settings)
            errors.extend(FieldError(f"{path}.notes", p) for p in problems)
        fields, problems = optional_fields(item, content, settings)
        errors.extend(FieldError(f"{path}.description", p) for p in problems)
        entry = Entry(content, item.status, active_form, notes, item.id, fields, item.blocked_by)
        pairs.append((phase, entry))

    owners = Counter(_owner(plan, entry) for _, entry in pairs if entry.status == "in_progress")
    if any(count > 1 for count in owners.values()):
        errors.append(FieldError("todos", ONE_IN_PROGRESS))
    if problem := task_count_problem(len(items), settings):
        errors.append(FieldError("todos", problem))
    phases = group_by_phase(pairs)
    if problem := phase_count_problem(len(phases), settings):
        errors.append(FieldError("todos", problem))
    if not errors:
        item_of = {id(entry): index for index, (_, entry) in enumerate(pairs)}
        entries = [entry for phase in phases for entry in phase.entries]
        for position, line in rebuild(plan, phases, now):
            errors.append(FieldError(f"todos.{item_of[id(entries[position])]}.blockedBy", line))
    if errors:
        message = ONE_IN_PROGRESS if any(e.message == ONE_IN_PROGRESS for e in errors) else None
        raise RequestRefused(errors, message)


def _owner(plan: Plan, entry: Entry) -> str | None:
    """The item's owner, else that of the task it keeps (by id, then content)."""
    if "owner" in entry.fields:
        return entry.fields["owner"]  # type: ignore[no-any-return]
    for task in plan.tasks():
        if entry.id is not None and task.id == entry.id:
            return task.owner
    for task in plan.tasks():
        if task.content == entry.content:
            return task.owner
    return None
