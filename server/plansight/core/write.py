"""`plansight/write`: the strict, TodoWrite-compatible full replacement."""

from __future__ import annotations

from plansight.core.errors import FieldError, RequestRefused
from plansight.core.items import clean_notes
from plansight.core.limits import content_problem, phase_count_problem, task_count_problem
from plansight.core.model import DEFAULT_PHASE, Plan
from plansight.core.rebuild import Entry, group_by_phase, rebuild
from plansight.core.settings import Settings
from plansight.core.text import clean_content
from plansight.protocol import WriteItem

ONE_IN_PROGRESS = "Only one task can be in_progress at a time"


def write_todos(plan: Plan, items: list[WriteItem], settings: Settings, now: str) -> None:
    """Replace the list with `items`, or raise RequestRefused and change nothing."""
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
        pairs.append((phase, Entry(content, item.status, active_form, notes, item.id)))

    if sum(item.status == "in_progress" for item in items) > 1:
        errors.append(FieldError("todos", ONE_IN_PROGRESS))
    if problem := task_count_problem(len(items), settings):
        errors.append(FieldError("todos", problem))
    phases = group_by_phase(pairs)
    if problem := phase_count_problem(len(phases), settings):
        errors.append(FieldError("todos", problem))
    if errors:
        message = ONE_IN_PROGRESS if any(e.message == ONE_IN_PROGRESS for e in errors) else None
        raise RequestRefused(errors, message)
    rebuild(plan, phases, now)
