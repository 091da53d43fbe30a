"""Reading the SQLite store: served from the in-memory copy of each session while nobody
committed since it was read (`PRAGMA data_version`), else from the file inside one read
transaction, so a copy is always one committed version, never a mix of two."""

from __future__ import annotations

import sqlite3
from typing import Any

from plansight.core.changes import LoggedChange
from plansight.core.model import Plan
from plansight.store import rows
from plansight.store.base import LoggedEvent, SessionSummary
from plansight.store.errors import StoreError
from plansight.store.rules import history_limit, restorable
from plansight.store.session_cache import SessionCache, SessionCopy, copy_of, empty_copy
from plansight.store.snapshots import FULL_PLAN_EVERY, plan_at
from plansight.store.sqlite.faults import fault_of, faults
from plansight.store.sqlite.file import SqliteFile
from plansight.store.summaries import blockers_wanted, current_tasks, summaries_of


class SqliteReads(SqliteFile):
    """The store's reads: plans, summaries, history, the event log."""

    def load(self, session: str) -> Plan:
        # The hottest path (every `get`): a plain try rather than `faults()`.
        try:
            db = self._attach(create=False, read=True)
            if db is None:
                return Plan(session)
            copy = self._cache.get(session)
            if copy is not None and self._read_data_version(db) == self._data_version:
                return copy.plan  # nobody committed since it was read
            with self._snapshot(db):
                self._sync(db)
                return self._copy(db, session).plan
        except sqlite3.Error as exc:
            fault = fault_of(exc)
            if fault is None:
                raise
            raise StoreError(fault) from exc

    def sessions(self) -> list[Plan]:
        with self._committed() as db:
            if db is None:
                return []
            names = [
                row[0]
                for row in db.execute("SELECT name FROM sessions ORDER BY updated_at DESC, name")
            ]
            return [self._copy(db, name).plan for name in names]

    def summaries(self) -> list[SessionSummary]:
        """From the tables (see `store.summaries`): no plan is read whole."""
        with self._committed() as db:
            return [] if db is None else self._summaries(db)

    def _summaries(self, db: sqlite3.Connection) -> list[SessionSummary]:
        current = current_tasks(
            db.execute(
                f"SELECT session, {rows.TASK_COLUMNS} FROM tasks WHERE status = 'in_progress' "
                "ORDER BY session, phase_position, position"
            )
        )
        blockers: list[tuple[Any, ...]] = []
        for session, ids in blockers_wanted(current).items():
            blockers += db.execute(
                f"SELECT session, {rows.TASK_COLUMNS} FROM tasks WHERE session = ? "
                f"AND id IN ({', '.join('?' * len(ids))})",
                (session, *ids),
            )
        return summaries_of(
            db.execute(
                "SELECT name, title, version, updated_at, checkout FROM sessions "
                "ORDER BY updated_at DESC, name"
            ),
            db.execute("SELECT session, status, count(*) FROM tasks GROUP BY session, status"),
            current,
            blockers,
        )

    def _copy(self, db: sqlite3.Connection, session: str) -> SessionCopy:
        return copy_cached(self._cache, db, session)

    def history(self, session: str, limit: int) -> list[LoggedChange]:
        with self._committed() as db:
            if db is None:
                return []
            return [
                rows.change_of(row)
                for row in db.execute(
                    f"SELECT {rows.CHANGE_COLUMNS} FROM events WHERE session = ? "
                    "AND snapshot IS NOT NULL ORDER BY version DESC LIMIT ?",
                    (session, history_limit(limit)),
                )
            ]

    def snapshot(self, session: str, version: int) -> dict[str, Any] | None:
        with faults():
            db = self._attach(create=False)
            if db is None:
                return None
            with self._snapshot(db):
                head = db.execute(
                    "SELECT version FROM sessions WHERE name = ?", (session,)
                ).fetchone()
                if head is None or not restorable(version, head[0]):
                    return None
                found = db.execute(
                    "SELECT snapshot FROM events WHERE session = ? AND version > ? "
                    "AND version <= ? ORDER BY version DESC",
                    (session, version - FULL_PLAN_EVERY, version),
                )
                return plan_at(text for (text,) in found)

    def events(self, session: str | None = None) -> list[LoggedEvent]:
        with faults():
            db = self._attach(create=False)
            if db is None:
                return []
            query = f"SELECT {rows.LOG_COLUMNS} FROM events"
            args: tuple[str, ...] = ()
            if session is not None:
                query, args = query + " WHERE session = ?", (session,)
            return [rows.event_of(row) for row in db.execute(query + " ORDER BY seq", args)]


def copy_cached(kept: SessionCache, db: sqlite3.Connection, session: str) -> SessionCopy:
    """The kept copy, else read (and kept, unless the session does not exist)."""
    copy = kept.get(session)
    if copy is None:
        copy = _read_copy(db, session)
        kept.keep(copy)
    return copy


def _read_copy(db: sqlite3.Connection, session: str) -> SessionCopy:
    head = db.execute(
        "SELECT version, next_id, updated_at, title FROM sessions WHERE name = ?", (session,)
    ).fetchone()
    if head is None:
        return empty_copy(session)
    names = [
        row[0]
        for row in db.execute(
            "SELECT name FROM phases WHERE session = ? ORDER BY position", (session,)
        )
    ]
    task_rows = db.execute(
        f"SELECT {rows.TASK_COLUMNS} FROM tasks WHERE session = ? "
        "ORDER BY phase_position, position",
        (session,),
    )
    return copy_of(session, head, names, task_rows)
