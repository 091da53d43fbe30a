"""The plan kept per version for history and restore, stored compactly.

Writing the whole plan with every change made the commit several times dearer (a plan of
20 tasks is about 5 KB: overflow pages written to the log on every change, and freed
again when the snapshot is dropped). So most versions keep only what changed against the
version before (the task rows the store writes anyway, the ids removed, the phase names,
title and id counter), and every `FULL_PLAN_EVERY`th version, the first of a session and
the first after a version without a stored plan keep the whole plan. A version's plan is
its nearest whole plan at or before it with the changes after it laid on top: exactly the
plan `core.record` writes, as before. Every backend keeps them so (`store.engine` writes
them, `rules.stores_whole_plan` and `rules.plans_let_go` decide which and how long).

A whole plan is a `core.record` record; a change is `{"title", "nextId", "phaseNames",
"set": [[phase position, position, task]], "gone": [ids]}`, each task as in a record.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from plansight.core.model import TASK_FIELDS, Task
from plansight.core.record import Record

# A version's plan is read from at most this many kept rows.
FULL_PLAN_EVERY = 20

Placed = tuple[int, int, dict[str, Any]]  # phase position, position, the task's fields


def task_fields(task: Task) -> dict[str, Any]:
    return {name: getattr(task, name) for name in TASK_FIELDS}


def change_record(
    title: str | None,
    next_id: int,
    phase_names: list[str],
    placed: Iterable[tuple[int, int, Task]],
    gone: list[str],
) -> Record:
    return {
        "title": title,
        "nextId": next_id,
        "phaseNames": phase_names,
        "set": [[phase, position, task_fields(task)] for phase, position, task in placed],
        "gone": gone,
    }


def is_whole(record: Record) -> bool:
    return "phases" in record


def rebuild(whole: Record, changes: Iterable[Record]) -> Record:
    """The plan after `changes` (oldest first), each made on top of the one before,
    starting from the whole plan `whole`."""
    names = [phase["name"] for phase in whole["phases"]]
    placed: dict[str, Placed] = {
        task["id"]: (phase_position, position, task)
        for phase_position, phase in enumerate(whole["phases"])
        for position, task in enumerate(phase["tasks"])
    }
    title, next_id = whole["title"], whole["nextId"]
    for change in changes:
        for task_id in change["gone"]:
            placed.pop(task_id, None)
        for phase_position, position, task in change["set"]:
            placed[task["id"]] = (phase_position, position, task)
        names = change["phaseNames"]
        title, next_id = change["title"], change["nextId"]
    phases: list[dict[str, Any]] = [{"name": name, "tasks": []} for name in names]
    for phase_position, _position, task in sorted(placed.values(), key=_place):
        phases[phase_position]["tasks"].append(task)
    return {"title": title, "nextId": next_id, "phases": phases}


def plan_at(kept: Iterable[str | None]) -> Record | None:
    """A version's plan from the plans kept with it and the versions before it, newest
    first (at most FULL_PLAN_EVERY of them, as stored: JSON text, None where none is
    kept); None when no whole plan is reached without a gap."""
    changes: list[Record] = []
    for text in kept:
        if text is None:
            return None
        record: Record = json.loads(text)
        if is_whole(record):
            return rebuild(record, reversed(changes)) if changes else record
        changes.append(record)
    return None


def _place(placed: Placed) -> tuple[int, int]:
    return placed[0], placed[1]
