"""`plansight migrate`: a store's sessions (a local SQLite one's), with their history,
copied into a team store (PostgreSQL) under one workspace."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, TypeGuard

from plansight.checkouts import Checkout
from plansight.core.model import Plan
from plansight.core.record import Record
from plansight.store.base import LoggedEvent, TodoStore
from plansight.store.store_error import StoreError


class AdoptingStore(TodoStore, Protocol):
    """A store that takes sessions whole from another (the team store)."""

    workspace: str

    def adopt(
        self,
        plan: Plan,
        events: list[LoggedEvent],
        kept: dict[int, Record],
        checkout: Checkout | None = None,
    ) -> bool: ...

    def prune_beyond(self, max_sessions: int) -> list[str]: ...


@dataclass
class CopyReport:
    workspace: str  # where in the target they went
    copied: list[str] = field(default_factory=list)
    changes: int = 0  # events copied with them
    skipped: list[str] = field(default_factory=list)  # names the workspace has already
    pruned: list[str] = field(default_factory=list)  # beyond the sessions a store holds


def copy_sessions(source: TodoStore, target: TodoStore, max_sessions: int) -> CopyReport:
    """Each session whole (its list, ids, times, versions, event log and the plans kept
    for `restore`) in one transaction of the target; a name the target's workspace already
    holds is left alone there. Then the target keeps its `max_sessions` updated last, as
    after any change (the sessions copied keep their times, so a copy can push it over)."""
    if not _adopts(target):
        raise StoreError("unavailable", advice="sessions can be copied into a team store only")
    report = CopyReport(target.workspace)
    # Each session's checkout: not in its plan nor its log.
    checkouts = {summary.session: summary.checkout for summary in source.summaries()}
    for plan in reversed(source.sessions()):  # oldest first, as they were written
        events = source.events(plan.session)
        kept: dict[int, Record] = {}  # the plans `restore` can go back to
        for change in source.history(plan.session, 10**9):
            record = source.snapshot(plan.session, change.version)
            if record is not None:
                kept[change.version] = record
        if target.adopt(plan, events, kept, checkouts.get(plan.session)):
            report.copied.append(plan.session)
            report.changes += len(events)
        else:
            report.skipped.append(plan.session)
    report.pruned = target.prune_beyond(max_sessions)
    return report


def _adopts(store: TodoStore) -> TypeGuard[AdoptingStore]:
    return hasattr(store, "adopt") and hasattr(store, "prune_beyond")
