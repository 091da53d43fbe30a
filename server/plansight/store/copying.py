"""`plansight migrate`: a local SQLite store's sessions, with their history, copied into a
team store (PostgreSQL) under one workspace."""

from __future__ import annotations

from dataclasses import dataclass, field

from plansight.store.postgres import PostgresStore
from plansight.store.sqlite import SqliteStore


@dataclass
class CopyReport:
    copied: list[str] = field(default_factory=list)
    changes: int = 0  # events copied with them
    skipped: list[str] = field(default_factory=list)  # names the workspace has already


def copy_sessions(source: SqliteStore, target: PostgresStore) -> CopyReport:
    """Each session whole (its list, ids, times, versions, event log and the plans kept
    for `restore`) in one transaction
    of the target; a name the target's workspace already holds is left alone there."""
    report = CopyReport()
    for plan in reversed(source.sessions()):  # oldest first, as they were written
        events = source.events(plan.session)
        restorable = {change.version: change for change in source.history(plan.session, 10**9)}
        for event in events:
            kept = restorable.get(event["version"])
            if kept is not None:  # the plan after this change is kept: `restore` can go back
                event["snapshot"] = source.snapshot(plan.session, event["version"])
                event["auto_started"] = kept.auto_started
        if target.adopt(plan, events):
            report.copied.append(plan.session)
            report.changes += len(events)
        else:
            report.skipped.append(plan.session)
    return report
