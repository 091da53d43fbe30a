"""`plansight/import`: a markdown checklist replaces the list, as `init` would."""

from __future__ import annotations

from plansight.core.errors import FieldError, RequestRefused
from plansight.core.items import clean_notes
from plansight.core.limits import (
    content_problem,
    description_problem,
    markdown_size_problem,
    phase_count_problem,
    task_count_problem,
    title_problem,
)
from plansight.core.markdown import ParsedPlan, carried_statuses, parse_markdown
from plansight.core.model import STATUS_STAMPS, Plan, Task
from plansight.core.nesting import depth_problem
from plansight.core.ops import normalize
from plansight.core.rebuild import rebuild
from plansight.core.settings import Settings
from plansight.protocol.text import clean_content, clean_note


def import_markdown(
    plan: Plan,
    text: str,
    settings: Settings,
    now: str,
    auto_started: list[str] | None = None,
    *,
    edits_in_place: bool = False,
) -> list[str]:
    """Replace the list with the checklist in `text`, then normalize as `apply` does;
    returns error lines.

    With any error nothing is replaced: the person's text would otherwise be lost.
    Tasks keep their ids and times when their content is unchanged, or when their line
    was edited where it stood."""
    errors = replace_from_markdown(plan, text, settings, now, edits_in_place=edits_in_place)
    if errors:
        return errors
    started = normalize(plan, settings.auto_start, now)
    if started is not None and auto_started is not None:
        auto_started.append(started.id)
    return []


def replace_from_markdown(
    plan: Plan,
    text: str,
    settings: Settings,
    now: str,
    *,
    refused_at: str | None = None,
    edits_in_place: bool = False,
    agents_checklist: bool = False,
) -> list[str]:
    """`import_markdown` without the normalization (steering normalizes the merged plan).

    `agents_checklist`: an agent's checklist (the `markdown` ingest format, a plan mode's
    plan), to which steering rule 7 applies: a task it shows as pending whose status its
    marks cannot carry (a plain `[ ]`/`[x]` list: in progress, dropped, blocked) keeps that
    status. The agent did not set back the task the server started: it has no other mark
    (a person's completion of it was otherwise lost to the agent's next revised plan).

    `edits_in_place`: a person's document, in which a line edited where it stands keeps
    its task. Never for an agent's list: its line in the place of a person's task is its
    own task, not a rename of the person's (steering rules 2 and 4; found by the steering
    property test: the person's added task was renamed to the agent's stale line).

    A checklist nested past `maxDepth` changes nothing: an error line, or with
    `refused_at` (an agent's payload, `ingest`) the whole request refused at that path."""
    if problem := markdown_size_problem(text, settings):
        return [problem]  # unread: other requests would wait behind its parse
    parsed = parse_markdown(text)
    errors = parsed.errors or _clean_and_check(parsed, settings)
    if errors:
        return errors
    # rebuild makes new Task objects: the old list is intact if we must go back.
    saved = plan.next_id, plan.phases
    was = {task.id: task for task in plan.tasks()} if agents_checklist else {}
    problems = rebuild(plan, parsed.phases, now, edits_in_place=edits_in_place)
    if problems:
        plan.next_id, plan.phases = saved
        return [line for _, line in problems]
    if too_deep := depth_problem(plan, settings.max_depth):
        plan.next_id, plan.phases = saved
        if refused_at is not None:
            raise RequestRefused([FieldError(refused_at, too_deep[1])])
        return [too_deep[1]]
    if parsed.title:
        plan.title = parsed.title
    if was:
        _keep_uncarried(plan, was, carried_statuses(text))
    return []


def _keep_uncarried(plan: Plan, was: dict[str, Task], carried: frozenset[str]) -> None:
    """Steering rule 7 for an agent's checklist: see `replace_from_markdown`."""
    for task in plan.tasks():
        old = was.get(task.id)
        if old is None or task.status != "pending" or old.status in carried:
            continue
        task.status = old.status
        for name in STATUS_STAMPS:
            setattr(task, name, getattr(old, name))


def _clean_and_check(parsed: ParsedPlan, settings: Settings) -> list[str]:
    phases = parsed.phases
    problems = []
    if parsed.title is not None and (problem := title_problem(parsed.title, settings)):
        problems.append(problem)
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
            description = clean_note(entry.fields.get("description") or "")
            entry.fields["description"] = description
            if problem := description_problem(entry.content, description, settings):
                problems.append(problem)
    if problem := phase_count_problem(len(phases), settings):
        problems.append(problem)
    if problem := task_count_problem(sum(len(p.entries) for p in phases), settings):
        problems.append(problem)
    return problems
