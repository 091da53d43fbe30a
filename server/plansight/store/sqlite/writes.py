"""Writing the SQLite store: one short `BEGIN IMMEDIATE` transaction per change, run
through the engine's steps (`store.engine`) in SQLite's SQL (`SqliteWrites`), and the
`context` rounds, each in a transaction of its own. A change the file at the path no longer
holds is reported lost; whatever fails leaves nothing behind, in the file or the copies."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress

from plansight.core.changes import LoggedChange
from plansight.core.model import Origin, Plan
from plansight.store import rows
from plansight.store.base import PendingEdit
from plansight.store.engine import KEEP_CHECKOUT, Checked, Locked, StoreEngine, Written
from plansight.store.session_cache import SessionCache
from plansight.store.sqlite.faults import fault_of, faults
from plansight.store.sqlite.file import SqliteFile
from plansight.store.sqlite.reads import copy_cached

log = logging.getLogger(__name__)

_UPSERT_TASK = (
    f"INSERT OR REPLACE INTO tasks (session, {rows.TASK_COLUMNS}) "
    f"VALUES (?, {', '.join('?' * rows.TASK_COLUMN_COUNT)})"
)
_UPDATE_HEAD = (
    "UPDATE sessions SET version = ?, next_id = ?, updated_at = ?, title = ?, agent_base = ? "
    "WHERE name = ?"
)
_UPDATE_HEAD_AND_CHECKOUT = (
    "UPDATE sessions SET version = ?, next_id = ?, updated_at = ?, title = ?, agent_base = ?, "
    "checkout = ? WHERE name = ?"
)
_INSERT_EVENT = (
    f"INSERT INTO events ({rows.EVENT_COLUMNS}) VALUES ({', '.join('?' * rows.EVENT_COLUMN_COUNT)})"
)


# An agent's commit (`SeenCursor.OWN_CHANGE`): its context rounds start again, and the
# session counts as seen up to this version unless a person's change waits in the ones
# after the last seen (few, read through the (session, version) key).
_SEEN_BY_ITS_AGENT = """
    INSERT INTO context (session, rounds, seen_version)
    SELECT :session, 0, CASE
        WHEN EXISTS (
            SELECT 1 FROM events
            WHERE session = :session AND origin = 'user' AND version > seen.version
        ) THEN seen.version
        ELSE :version
    END
    FROM (
        SELECT coalesce((SELECT seen_version FROM context WHERE session = :session), 0)
        AS version
    ) AS seen WHERE true
    ON CONFLICT (session) DO UPDATE SET rounds = 0, seen_version = excluded.seen_version
"""


# The answer told the agent what a person changed (steering's Kept line): every change of
# the session so far counts as told, and the rounds start again (an agent's request).
_TOLD = """
    INSERT INTO context (session, rounds, seen_version) VALUES (:session, 0, :version)
    ON CONFLICT (session) DO UPDATE SET rounds = 0, seen_version = excluded.seen_version
"""


class SqliteWriting(SqliteFile):
    """The store's changes and `context` rounds, each in its own write transaction."""

    _engine: StoreEngine  # made by the store once it is whole (`SqliteStore`)

    def edit(
        self, session: str, origin: Origin, max_sessions: int
    ) -> AbstractContextManager[PendingEdit]:
        return self._engine.edit(session, origin, max_sessions)

    @contextmanager
    def writing(self, written: Written) -> Iterator[SqliteWrites]:
        """`BEGIN IMMEDIATE` (the one writer of the file); after `COMMIT`, the file must
        still be the one at the path, else the change is lost to every other process."""
        with faults():
            db = self._attach(create=True)
            assert db is not None
            db.execute("BEGIN IMMEDIATE")
        steps = SqliteWrites(db, self._cache)
        last_seq = self._last_seq
        try:
            with faults():
                self._sync(db)
                yield steps
                db.execute("COMMIT")
            self._still_at_path()
            self._wake_watchers()
        except BaseException:
            # Nothing of this change may stay: not in the file (a failed COMMIT may
            # leave the transaction open), not in the copies, not in the event count.
            with suppress(sqlite3.Error):  # the connection may be closed: file replaced
                if db.in_transaction:
                    db.execute("ROLLBACK")
            self._last_seq = last_seq
            self._forget(written.session)
            for name in written.pruned:
                self._forget(name)
            raise
        if steps.logged_seq is not None and steps.logged_seq == self._last_seq + 1:
            # Our own event right after the last one seen: no need to read it back.
            self._last_seq = steps.logged_seq

    def _wake_watchers(self) -> None:
        """An event on the log after the commit is visible. A commit writes its frames
        to the `-wal` file (an event) and only then makes them visible in the `-shm`
        index, which is mapped memory and raises no event: a watcher woken by the write
        can look before the index moves and see nothing new. Touching the log afterwards
        wakes it again once there is something to see."""
        with suppress(OSError):
            os.utime(self.path + "-wal")

    def after_commit(self, written: Written) -> None:
        if written.copy is not None and written.copy.plan.version > 0:
            self._cache.hold(written.copy)
            self._known.add(written.session)
        for name in written.pruned:
            self._forget(name)
            self._known.discard(name)
            if self._watching:
                self._pruned.append(name)

    # ------------------------------------------------------------ context rounds

    def context_round(self, session: str) -> tuple[int, list[LoggedChange]]:
        with faults():
            db = self._attach(create=False)
            if db is None:
                return 1, []
            try:
                return self._count_round(db, session, keep=True)
            except sqlite3.OperationalError as exc:
                if fault_of(exc) != "readOnly":
                    raise
                # A read-only store still answers: the round is counted but not kept.
                return self._count_round(db, session, keep=False)

    def unseen_changes(self, session: str) -> list[LoggedChange]:
        with faults():
            db = self._attach(create=False, read=True)
            if db is None:
                return []
            with self._snapshot(db):
                row = db.execute(
                    "SELECT seen_version FROM context WHERE session = ?", (session,)
                ).fetchone()
                unseen = db.execute(
                    "SELECT 1 FROM events WHERE session = ? AND version > ? LIMIT 1",
                    (session, row[0] if row else 0),
                ).fetchone()
            if unseen is None:
                return []  # the common case, and a read: no write transaction
            try:
                return self._count_round(db, session, keep=True, count=False)[1]
            except sqlite3.OperationalError as exc:
                if fault_of(exc) != "readOnly":
                    raise
                return self._count_round(db, session, keep=False, count=False)[1]

    def _count_round(
        self, db: sqlite3.Connection, session: str, keep: bool, count: bool = True
    ) -> tuple[int, list[LoggedChange]]:
        """Marks the session's changes seen; with `count`, one more round."""
        db.execute("BEGIN IMMEDIATE" if keep else "BEGIN")
        try:
            counted = StoreEngine.count_round(SqliteWrites(db, self._cache), session, count, keep)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                with suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise
        return counted


class SqliteWrites:
    """One write transaction's steps (see `store.engine`) in SQLite's SQL."""

    def __init__(self, db: sqlite3.Connection, kept: SessionCache) -> None:
        self._db = db
        self._cache = kept
        self.logged_seq: int | None = None  # the event this transaction logged

    def lock(self, session: str) -> Locked:
        # `BEGIN IMMEDIATE` locked the whole file already.
        copy = copy_cached(self._cache, self._db, session)
        head = self._db.execute(
            "SELECT agent_base, (SELECT snapshot IS NOT NULL FROM events "
            "WHERE session = :s ORDER BY version DESC LIMIT 1) FROM sessions WHERE name = :s",
            {"s": session},
        ).fetchone()
        if head is None:
            return Locked(copy, 0, new=True, last_plan_stored=False)
        return Locked(copy, head[0], new=False, last_plan_stored=bool(head[1]))

    def batch(self) -> AbstractContextManager[None]:
        return nullcontext()  # each statement is a call into the library, not a trip

    def write_head(
        self, plan: Plan, agent_base: int, now: str, new: bool, checkout: Checked
    ) -> None:
        kept = checkout is KEEP_CHECKOUT
        if new:
            self._db.execute(
                "INSERT INTO sessions (name, version, next_id, created_at, updated_at, title, "
                "agent_base, checkout) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    plan.session,
                    plan.version,
                    plan.next_id,
                    now,
                    now,
                    plan.title,
                    agent_base,
                    None if kept else checkout,
                ),
            )
        else:
            self._db.execute(
                _UPDATE_HEAD if kept else _UPDATE_HEAD_AND_CHECKOUT,
                (plan.version, plan.next_id, now, plan.title, agent_base)
                + (() if kept else (checkout,))
                + (plan.session,),
            )

    def write_phases(self, session: str, names: list[str]) -> None:
        self._db.execute("DELETE FROM phases WHERE session = ?", (session,))
        self._db.executemany(
            "INSERT INTO phases (session, position, name) VALUES (?, ?, ?)",
            [(session, i, name) for i, name in enumerate(names)],
        )

    def delete_tasks(self, session: str, ids: list[str]) -> None:
        self._db.executemany(
            "DELETE FROM tasks WHERE session = ? AND id = ?", [(session, i) for i in ids]
        )

    def upsert_tasks(self, session: str, task_rows: list[rows.TaskRow]) -> None:
        self._db.executemany(_UPSERT_TASK, [(session, *row) for row in task_rows])

    def log_event(self, row: rows.EventRow) -> None:
        self.logged_seq = self._db.execute(_INSERT_EVENT, row).lastrowid

    def let_plans_go(self, session: str, first: int, last: int) -> None:
        self._db.execute(
            "UPDATE events SET snapshot = NULL WHERE session = ? AND version BETWEEN ? AND ? "
            "AND snapshot IS NOT NULL",
            (session, first, last),
        )

    def set_agent_base(self, session: str, version: int) -> None:
        self._db.execute("UPDATE sessions SET agent_base = ? WHERE name = ?", (version, session))

    def drop_unborn(self, session: str) -> None:
        pass  # a new session has no row before its first commit

    def reset_rounds(self, session: str) -> None:
        self._db.execute(
            "UPDATE context SET rounds = 0 WHERE session = ? AND rounds != 0", (session,)
        )

    def mark_told(self, session: str, version: int) -> None:
        self._db.execute(_TOLD, {"session": session, "version": version})

    def mark_seen_by_agent(self, session: str, version: int) -> None:
        self._db.execute(_SEEN_BY_ITS_AGENT, {"session": session, "version": version})

    def announce(self, session: str, version: int) -> None:
        pass  # watchers see `PRAGMA data_version` move, woken by the file's events

    def head_version(self, session: str) -> int | None:
        row = self._db.execute("SELECT version FROM sessions WHERE name = ?", (session,)).fetchone()
        return None if row is None else int(row[0])

    def seen_cursor(self, session: str) -> tuple[int, int]:
        row = self._db.execute(
            "SELECT rounds, seen_version FROM context WHERE session = ?", (session,)
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def changes_after(self, session: str, version: int) -> list[LoggedChange]:
        return [
            rows.change_of(columns)
            for columns in self._db.execute(
                f"SELECT {rows.CHANGE_COLUMNS} FROM events WHERE session = ? AND version > ? "
                "ORDER BY version",
                (session, version),
            )
        ]

    def write_cursor(self, session: str, rounds: int, version: int) -> None:
        self._db.execute(
            "UPDATE sessions SET agent_base = ? WHERE name = ? AND agent_base != ?",
            (version, session, version),
        )
        self._db.execute(
            "INSERT INTO context (session, rounds, seen_version) VALUES (?, ?, ?) "
            "ON CONFLICT (session) DO UPDATE SET rounds = excluded.rounds, "
            "seen_version = excluded.seen_version",
            (session, rounds, version),
        )

    def prune(self, keep: str, max_sessions: int) -> list[str]:
        doomed = [
            row[0]
            for row in self._db.execute(
                "SELECT name FROM sessions WHERE name != ? "
                "ORDER BY updated_at DESC, name LIMIT -1 OFFSET ?",
                (keep, max_sessions - 1),
            )
        ]
        for name in doomed:
            for table, column in (
                ("tasks", "session"),
                ("phases", "session"),
                ("events", "session"),
                ("context", "session"),
                ("sessions", "name"),
            ):
                self._db.execute(f"DELETE FROM {table} WHERE {column} = ?", (name,))
        if doomed:
            # Rows left by versions that counted rounds of sessions that never existed.
            self._db.execute("DELETE FROM context WHERE session NOT IN (SELECT name FROM sessions)")
            log.info("pruned %d session(s) beyond the %d a store holds", len(doomed), max_sessions)
        return doomed
