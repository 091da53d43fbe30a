"""Reading the team store: each read checked against the session's version (one small
query) and served from the copy while it has not moved, else read in one read-only
transaction (one round trip: the queries are pipelined)."""

from __future__ import annotations

from typing import Any

from plansight.core.changes import LoggedChange
from plansight.core.model import Plan
from plansight.store import rows
from plansight.store.base import LoggedEvent, SessionSummary
from plansight.store.engine import Locked
from plansight.store.postgres.database import READ_ONLY, PostgresDatabase
from plansight.store.rules import history_limit, restorable
from plansight.store.session_cache import SessionCopy, copy_of, empty_copy
from plansight.store.snapshots import FULL_PLAN_EVERY, plan_at
from plansight.store.summaries import blockers_wanted, current_tasks, summaries_of


class PostgresReads(PostgresDatabase):
    """The store's reads: plans, summaries, history, the event log."""

    def load(self, session: str) -> Plan:
        try:
            head = (
                self._connection()
                .execute(
                    "SELECT version FROM plansight_sessions WHERE workspace = %s AND name = %s",
                    (self.workspace, session),
                )
                .fetchone()
            )
        except Exception as exc:
            raise self._failed(exc) from None
        copy = self._cache.get(session)
        if copy is not None and copy.plan.version == (head[0] if head else 0):
            return copy.plan
        with self._transaction(READ_ONLY) as db:
            return self._read(db, session).plan

    def sessions(self) -> list[Plan]:
        try:
            heads = (
                self._connection()
                .execute(
                    "SELECT name, version FROM plansight_sessions WHERE workspace = %s "
                    "AND version > 0 ORDER BY updated_at DESC, name",
                    (self.workspace,),
                )
                .fetchall()
            )
        except Exception as exc:
            raise self._failed(exc) from None
        plans: dict[str, Plan] = {}
        for name, version in heads:
            copy = self._cache.get(name)
            if copy is not None and copy.plan.version == version:
                plans[name] = copy.plan
        if len(plans) < len(heads):
            with self._transaction(READ_ONLY) as db:
                for name, _ in heads:
                    if name not in plans:
                        plans[name] = self._read(db, name).plan
        # A session pruned since the heads were read is not listed.
        return [plans[name] for name, _ in heads if plans[name].version > 0]

    def summaries(self) -> list[SessionSummary]:
        """From the tables (see `store.summaries`): no plan is read whole."""
        key = (self.workspace,)
        with self._transaction(READ_ONLY) as db:
            with db.pipeline():
                heads, counts, in_progress = db.cursor(), db.cursor(), db.cursor()
                heads.execute(
                    "SELECT name, title, version, updated_at, checkout FROM plansight_sessions "
                    "WHERE workspace = %s AND version > 0 ORDER BY updated_at DESC, name",
                    key,
                )
                counts.execute(
                    "SELECT session, status, count(*) FROM plansight_tasks WHERE workspace = %s "
                    "GROUP BY session, status",
                    key,
                )
                in_progress.execute(
                    f"SELECT session, {rows.TASK_COLUMNS} FROM plansight_tasks WHERE workspace = %s "
                    "AND status = 'in_progress' ORDER BY session, phase_position, position",
                    key,
                )
            current = current_tasks(in_progress)
            wanted = [
                (s, task_id) for s, ids in blockers_wanted(current).items() for task_id in ids
            ]
            blockers: list[tuple[Any, ...]] = []
            if wanted:
                blockers = db.execute(
                    f"SELECT session, {rows.TASK_COLUMNS} FROM plansight_tasks WHERE workspace = %s "
                    "AND (session, id) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
                    (*key, [s for s, _ in wanted], [task_id for _, task_id in wanted]),
                ).fetchall()
            return summaries_of(heads, counts, current, blockers)

    def _read(self, db: Any, session: str) -> SessionCopy:
        """The session as `db` sees it now."""
        return self._read_head(db, session, lock=False).copy

    def _read_head(self, db: Any, session: str, lock: bool) -> Locked:
        """The session as `db` sees it now (its row locked for change with `lock`), the
        version its agent last saw (`agent_base`, not kept with the copy: a `context`
        round moves it without a new version) and whether its newest version's plan is
        kept. One round trip: the queries are pipelined, and the phases and tasks come
        back only when the copy we have is not of that version."""
        key = (self.workspace, session)
        cached = self._cache.get(session)
        unless_cached = (
            " AND NOT EXISTS (SELECT 1 FROM plansight_sessions "
            "WHERE workspace = %s AND name = %s AND version = %s)"
        )
        also = (*key, cached.plan.version if cached is not None else -1)
        with db.pipeline():
            heads, kept, phase_rows, task_rows = db.cursor(), db.cursor(), db.cursor(), db.cursor()
            heads.execute(
                "SELECT version, next_id, updated_at, title, agent_base FROM plansight_sessions "
                "WHERE workspace = %s AND name = %s" + (" FOR UPDATE" if lock else ""),
                key,
            )
            if lock:  # after the lock: the newest version is the one this change follows
                kept.execute(
                    "SELECT snapshot IS NOT NULL FROM plansight_events WHERE workspace = %s "
                    "AND session = %s ORDER BY version DESC LIMIT 1",
                    key,
                )
            phase_rows.execute(
                "SELECT name FROM plansight_phases WHERE workspace = %s AND session = %s"
                + unless_cached
                + " ORDER BY position",
                (*key, *also),
            )
            task_rows.execute(
                f"SELECT {rows.TASK_COLUMNS} FROM plansight_tasks "
                "WHERE workspace = %s AND session = %s"
                + unless_cached
                + " ORDER BY phase_position, position",
                (*key, *also),
            )
        head = heads.fetchone()
        last_stored = bool((kept.fetchone() or (False,))[0]) if lock else False
        base = int(head[4]) if head is not None else 0
        if head is None or head[0] == 0:
            copy = empty_copy(session)
        elif cached is not None and cached.plan.version == head[0]:
            return Locked(cached, base, new=False, last_plan_stored=last_stored)
        else:
            copy = copy_of(session, head[:4], [row[0] for row in phase_rows], task_rows)
        self._cache.keep(copy)
        return Locked(copy, base, new=copy.plan.version == 0, last_plan_stored=last_stored)

    # ------------------------------------------------------------ history

    def history(self, session: str, limit: int) -> list[LoggedChange]:
        found = self._fetch(
            f"SELECT {rows.CHANGE_COLUMNS} FROM plansight_events WHERE workspace = %s "
            "AND session = %s AND snapshot IS NOT NULL ORDER BY version DESC LIMIT %s",
            (self.workspace, session, history_limit(limit)),
        )
        return [rows.change_of(row) for row in found]

    def snapshot(self, session: str, version: int) -> dict[str, Any] | None:
        key = (self.workspace, session)
        with self._consistent() as db:
            head = db.execute(
                "SELECT version FROM plansight_sessions WHERE workspace = %s AND name = %s",
                key,
            ).fetchone()
            if head is None or not restorable(version, head[0]):
                return None
            found = db.execute(
                "SELECT snapshot FROM plansight_events WHERE workspace = %s AND session = %s "
                "AND version > %s AND version <= %s ORDER BY version DESC",
                (*key, version - FULL_PLAN_EVERY, version),
            ).fetchall()
        return plan_at(text for (text,) in found)

    # ------------------------------------------------------------ audits

    def events(self, session: str | None = None) -> list[LoggedEvent]:
        query = f"SELECT {rows.LOG_COLUMNS} FROM plansight_events WHERE workspace = %s"
        args: tuple[str, ...] = (self.workspace,)
        if session is not None:
            query, args = query + " AND session = %s", (*args, session)
        return [rows.event_of(row) for row in self._fetch(query + " ORDER BY seq", args)]
