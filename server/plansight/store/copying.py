"""`plansight migrate`: a store's sessions (a local SQLite one's), with their history,
copied into a team store (PostgreSQL) under one workspace."""

from __future__ import annotations

from dataclasses import dataclass, field

from plansight.core.record import Record
from plansight.store.base import TodoStore
from plansight.store.postgres import PostgresStore


@dataclass
class CopyReport:
    copied: list[str] = field(default_factory=list)
    changes: int = 0  # events copied with them
    skipped: list[str] = field(default_factory=list)  # names the workspace has already


def copy_sessions(source: TodoStore, target: PostgresStore) -> CopyReport:
    """Each session whole (its list, ids, times, versions, event log and the plans kept
    for `restore`) in one transaction of the target; a name the target's workspace already holds is left alone there."""
    report = CopyReport()
    for plan in reversed(source.sessions()):  # oldest first, as they were written
        events = source.events(plan.session)
        kept: dict[int, Record] = {}  # the plans `restore` can go back to
        for change in source.history(plan.session, 10**9):
            record = source.snapshot(plan.session, change.version)
            if record is not None:
                kept[change.version] = record
        if target.adopt(plan, events, kept):
            report.copied.append(plan.session)
            report.changes += len(events)
        else:
            report.skipped.append(plan.session)
    return report
