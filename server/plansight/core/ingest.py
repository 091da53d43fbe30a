"""`plansight/ingest`: what an agent's adapter read, applied to the plan."""

from __future__ import annotations

from dataclasses import dataclass, field

from plansight.core.importing import import_markdown
from plansight.core.incoming import (
    Incoming,
    MarkdownPlan,
    NothingToChange,
    Replacement,
    TaskCreation,
    TaskDeletion,
    TaskUpdate,
)
from plansight.core.model import Plan
from plansight.core.replace import replace_tasks
from plansight.core.settings import Settings
from plansight.core.task_change import change_task


@dataclass(slots=True)
class Ingested:
    errors: list[str] = field(default_factory=list)  # lines of what could not be done
    notices: list[str] = field(default_factory=list)  # what was repaired, for the summary


def ingest(
    plan: Plan, incoming: Incoming, settings: Settings, now: str, auto_started: list[str]
) -> Ingested:
    """Apply `incoming` to `plan`. Raises RequestRefused when it cannot be kept as sent
    (the caller then drops the half-changed plan)."""
    if isinstance(incoming, Replacement):
        return Ingested(notices=replace_tasks(plan, incoming, settings, now))
    if isinstance(incoming, MarkdownPlan):
        # The one format that may auto-start: a checklist imports as `import` does.
        return Ingested(import_markdown(plan, incoming.text, settings, now, auto_started))
    if isinstance(incoming, TaskCreation | TaskUpdate | TaskDeletion):
        return Ingested(change_task(plan, incoming, settings, now))
    assert isinstance(incoming, NothingToChange)
    return Ingested()
