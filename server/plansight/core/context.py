"""`plansight/context`: what an agent's loop puts into its next prompt."""

from __future__ import annotations

from dataclasses import dataclass

from plansight.core.fences import quoted, unfenced
from plansight.core.model import Plan, progress_of
from plansight.core.summary import plan_lines, progress_line

REMINDER = "<reminder>Update your todos.</reminder>"
# The default of the `reminderAfterRounds` setting, here so that the agents' hook can read
# it without loading the settings model.
DEFAULT_REMINDER_AFTER_ROUNDS = 3
# `full`: past this many characters of list (about 2,000 tokens at 4 characters a token),
# the phases whose tasks all ended are one line each. A plan of 200 short tasks fits
# whole (docs/protocol.md has the figures); what is left to do is always listed whole.
FULL_LIST_BUDGET = 8000


@dataclass(frozen=True, slots=True)
class ContextText:
    text: str
    reminder: bool


def change_phrases(changes: list[str]) -> str:
    """What a person changed, a phrase per change joined by `; `, each quoted so that the
    plan text it holds (a note of several lines) cannot start a line of the frame: how
    `context` and steering's Kept line both say them (`core/fences.py`)."""
    return "; ".join(quoted(change) for change in changes)


def person_change_reminder(person_changes: list[str]) -> str:
    """What a person changed, said to the agent so it neither misses nor undoes it; the
    plan text the changes quote cannot leave the reminder (`core/fences.py`)."""
    return (
        "<system-reminder>The user changed the todo list: "
        + change_phrases(person_changes)
        + ". Take this into account and do not undo it.</system-reminder>"
    )


def context_text(
    plan: Plan, rounds: int, person_changes: list[str], reminder_after: int, full: bool = False
) -> ContextText:
    """`rounds` counts this call among the consecutive ones since the agent last changed
    the list; `person_changes` are the lines of what a person changed since the last call;
    `full` draws the whole list (an agent whose context was compacted, resumed, cleared)."""
    progress = progress_of(plan)
    if progress.total == 0:
        lines = ["The todo list is empty."]
    elif full:
        lines = full_list(plan)
    else:
        lines = [
            f"Todo list: {progress.completed}/{progress.total} completed, "
            f"{progress.remaining} remaining."
        ]
        current = plan.current()
        lines.append(
            f"Current task: {current.active_form}" if current else "No task is in progress."
        )
    # The plan's text above, then the frames: only ours are tags (`core/fences.py`).
    lines = [unfenced("\n".join(lines))]
    if person_changes:
        lines.append(person_change_reminder(person_changes))
    reminder = rounds >= reminder_after
    if reminder:
        lines.append(REMINDER)
    return ContextText("\n".join(lines), reminder)


def full_list(plan: Plan) -> list[str]:
    """The whole list as a summary draws it, headed by its progress and what remains;
    within `FULL_LIST_BUDGET` characters when collapsing the finished phases gets it there."""
    remaining = progress_of(plan).remaining
    head = [f"Todo list: {progress_line(plan)}, {remaining} remaining."]
    if plan.title:
        head.insert(0, f"Plan: {plan.title}")
    body = plan_lines(plan)
    if sum(len(line) + 1 for line in body) > FULL_LIST_BUDGET:
        body = plan_lines(plan, collapse_finished=True)
    return head + body
