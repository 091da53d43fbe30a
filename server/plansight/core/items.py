"""Turning the items an agent sends into clean task specs, with every limit checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from plansight.core.errors import OpRefused
from plansight.core.limits import (
    content_problem,
    description_problem,
    note_count_problem,
    note_problem,
)
from plansight.core.model import ATTRIBUTES, TaskStatus
from plansight.core.settings import Settings
from plansight.protocol.requests import Item, ItemSpec, UpdateOp, WriteItem
from plansight.protocol.text import clean_content, clean_note


@dataclass(slots=True)
class TaskSpec:
    content: str
    active_form: str
    status: TaskStatus
    notes: list[str] | None  # None: the item said nothing of notes
    # The other Task fields the item named (description, priority, owner), cleaned.
    fields: dict[str, Any] = field(default_factory=dict)
    blocked_by: list[str] | None = None  # task ids or contents, resolved once all exist
    subtasks: list[TaskSpec] = field(default_factory=list)  # (v4) nested as written

    def flattened(self) -> list[tuple[TaskSpec, int]]:
        """This spec and every one under it in document order, each with its depth below
        this one (0 for itself)."""
        flat: list[tuple[TaskSpec, int]] = []
        stack = [(self, 0)]
        while stack:
            spec, depth = stack.pop()
            flat.append((spec, depth))
            stack.extend((sub, depth + 1) for sub in reversed(spec.subtasks))
        return flat


def clean_notes(notes: list[str], content: str, settings: Settings) -> tuple[list[str], list[str]]:
    """Clean notes; returns (notes, problems). Empty notes are dropped."""
    cleaned = [note for note in (clean_note(n) for n in notes) if note]
    problems = [p for p in (note_problem(n, settings) for n in cleaned) if p]
    count = note_count_problem(content, len(cleaned), settings)
    if count:
        problems.append(count)
    return cleaned, problems


def clean_owner(owner: str | None) -> str | None:
    """An owner (any text attribute) is a name on one line; an empty one is none."""
    return clean_content(owner) or None if owner is not None else None


def optional_fields(
    item: ItemSpec | WriteItem | UpdateOp, content: str, settings: Settings
) -> tuple[dict[str, Any], list[str]]:
    """The v2 fields an item named, cleaned: (fields by Task name, problems)."""
    named = item.named
    fields: dict[str, Any] = {}
    problems: list[str] = []
    if "description" in named:
        description = clean_note(item.description or "")
        if problem := description_problem(content, description, settings):
            problems.append(problem)
        fields["description"] = description
    if "priority" in named:
        fields["priority"] = item.priority
    for name in ATTRIBUTES:  # owner, and any text attribute of `Task`
        if name in named:
            fields[name] = clean_owner(getattr(item, name))
    return fields, problems


def task_spec(item: Item, operation: str, settings: Settings) -> TaskSpec:
    """One `apply` item as a spec, or OpRefused naming what is wrong with it."""
    spec = ItemSpec(content=item) if isinstance(item, str) else item
    content = clean_content(spec.content)
    if not content:
        raise OpRefused(f"Missing content for {operation} operation")
    problems = []
    too_long = content_problem(content, settings)
    if too_long:
        problems.append(too_long)
    active_form = clean_content(spec.active_form or "") or content
    if active_form is not content:  # a defaulted activeForm was checked as the content
        too_long = content_problem(active_form, settings, "Active form")
        if too_long:
            problems.append(too_long)
    notes: list[str] | None = None
    if spec.notes is not None:
        notes, note_problems = clean_notes(spec.notes, content, settings)
        problems.extend(note_problems)
    fields, field_problems = optional_fields(spec, content, settings)
    problems.extend(field_problems)
    subtasks: list[TaskSpec] = []
    for sub in spec.subtasks or []:
        try:
            subtasks.append(task_spec(sub, operation, settings))
        except OpRefused as refused:
            problems.extend(refused.lines)
    if problems:
        raise OpRefused(*problems)
    status = spec.status or "pending"
    return TaskSpec(content, active_form, status, notes, fields, spec.blocked_by, subtasks)


def phase_name(raw: str | None, operation: str, settings: Settings) -> str:
    name = clean_content(raw or "")
    if not name:
        raise OpRefused(f"Missing phase for {operation} operation")
    too_long = content_problem(name, settings, "Phase name")
    if too_long:
        raise OpRefused(too_long)
    return name
