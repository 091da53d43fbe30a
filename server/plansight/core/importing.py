"""`plansight/import`: a markdown checklist replaces the list, as `init` would."""

from __future__ import annotations

from plansight.core.items import clean_notes
from plansight.core.limits import content_problem, phase_count_problem, task_count_problem
from plansight.core.markdown import parse_markdown
from plansight.core.model import Plan
from plansight.core.ops import normalize
from plansight.core.rebuild import PhaseEntries, rebuild
from plansight.core.settings import Settings
from plansight.core.text import clean_content


def import_markdown(
    plan: Plan, text: str, settings: Settings, now: str, auto_started: list[str] | None = None
) -> list[str]:
    """Replace the list with the checklist in `text`; returns error lines.

    With any error nothing is replaced: the person's text would otherwise be lost.
    Tasks keep their ids and times when their content is unchanged."""
    parsed = parse_markdown(text)
    errors = parsed.errors or _clean_and_check(parsed.phases, settings)
    if errors:
        return errors
    # rebuild makes new Task objects: the old list is intact if we must go back.
    saved = plan.next_id, plan.phases
    problems = rebuild(plan, parsed.phases, now)
    if problems:
        plan.next_id, plan.phases = saved
        return [line for _, line in problems]
    if parsed.title is not None:
        plan.title = parsed.title
    started = normalize(plan, settings.auto_start, now)
    if started is not None and auto_started is not None:
        auto_started.append(started.id)
    return []


def _clean_and_check(phases: list[PhaseEntries], settings: Settings) -> list[str]:
    problems = []
    for phase in phases:
        phase.name = clean_content(phase.name)
        if not phase.name:
            problems.append("A phase heading has no name")
        elif problem := content_problem(phase.name, settings, "Phase name"):
            problems.append(problem)
        for entry in phase.entries:
            entry.content = clean_content(entry.content)
            if not entry.content:
                problems.append(f'A task in phase "{phase.name}" has no content')
            elif problem := content_problem(entry.content, settings):
                problems.append(problem)
            entry.notes, note_problems = clean_notes(entry.notes or [], entry.content, settings)
            problems.extend(note_problems)
    if problem := phase_count_problem(len(phases), settings):
        problems.append(problem)
    if problem := task_count_problem(sum(len(p.entries) for p in phases), settings):
        problems.append(problem)
    return problems
