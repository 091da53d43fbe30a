"""What a person changed since the agent last looked: the net change, not every step.

Consecutive changes of a person are compared as one, the plan before the first against
the plan after the last, so a task added and removed in between is not mentioned; a
task the server started by itself (auto-start) is not the person's doing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from plansight.core.changes import LoggedChange, describe_changes, snapshot
from plansight.core.model import Plan
from plansight.core.record import EMPTY_RECORD, plan_from_record

SnapshotOf = Callable[[int], dict[str, Any] | None]


def person_changes(
    logged: list[LoggedChange], snapshot_of: SnapshotOf, now: Plan | None = None
) -> list[str]:
    """Lines for the person's changes among `logged` (oldest first); with `now`, only
    those the plan `now` still holds (`held_changes`)."""
    lines: list[str] = []
    run: list[LoggedChange] = []
    for change in [*logged, None]:
        if change is not None and change.origin == "user":
            run.append(change)
            continue
        if run:
            lines.extend(_net(run, snapshot_of, now))
            run = []
    return lines


def held_changes(
    logged: list[LoggedChange], snapshot_of: SnapshotOf, now: Plan
) -> tuple[list[str], list[str]]:
    """The person's changes among `logged` split in two: those the plan `now` still holds
    (the same words against the plan before them: an agent's later op did not undo them)
    and the others. An agent whose own list never hears of a person's change (Claude
    Code's Task tools keep theirs in Claude Code) is told the first as kept."""
    every = person_changes(logged, snapshot_of)
    held = set(person_changes(logged, snapshot_of, now))
    return [line for line in every if line in held], [line for line in every if line not in held]


def _net(run: list[LoggedChange], snapshot_of: SnapshotOf, now: Plan | None) -> list[str]:
    first, last = run[0].version, run[-1].version
    before = EMPTY_RECORD if first == 1 else snapshot_of(first - 1)
    after = snapshot_of(last)
    if before is None or after is None:
        # Logged before the store kept a plan per version: the words of each step.
        return [] if now is not None else [line for change in run for line in change.changes]
    old = plan_from_record("", before)
    new = plan_from_record("", after) if now is None else now.copy()
    _undo_auto_starts(old, new, {i for change in run for i in change.auto_started})
    return describe_changes(snapshot(old), new)


def _undo_auto_starts(old: Plan, new: Plan, auto_started: set[str]) -> None:
    """A task the server started reads as the person left it."""
    statuses = {task.id: task.status for task in old.tasks()}
    for task in new.tasks():
        if task.id in auto_started and task.status == "in_progress":
            task.status = statuses.get(task.id, "pending")
