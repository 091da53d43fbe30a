"""Writing the team store: writers serialize on the session's row (`SELECT ... FOR
UPDATE`), so versions stay gap-free however many processes and machines write; a change
runs through the engine's steps (`store.engine`) in PostgreSQL's SQL (`PostgresWrites`),
sent in one pipeline with its COMMIT and its NOTIFY. Also the `context` rounds, the
pruning of old sessions and the copying in of another store's sessions."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, cast

from plansight.checkouts import Checkout, checkout_text
from plansight.core.changes import LoggedChange
from plansight.core.model import TASK_FIELDS, Origin, Plan, utc_now
from plansight.core.record import Record
from plansight.store import rows
from plansight.store.base import LoggedEvent, PendingEdit
from plansight.store.engine import KEEP_CHECKOUT, Checked, Locked, StoreEngine, Written
from plansight.store.postgres.reads import PostgresReads

log = logging.getLogger(__name__)

# An agent's commit (`SeenCursor.OWN_CHANGE`): its context rounds start again, and the
# session counts as seen up to this version unless a person's change waits in the ones
# after the last seen.
_SEEN_BY_ITS_AGENT = """
    INSERT INTO plansight_context (workspace, session, rounds, seen_version)
    SELECT %(workspace)s, %(session)s, 0, CASE
        WHEN EXISTS (
            SELECT 1 FROM plansight_events
            WHERE workspace = %(workspace)s AND session = %(session)s AND origin = 'user'
            AND version > seen.version
        ) THEN seen.version
        ELSE %(version)s
    END
    FROM (
        SELECT coalesce((SELECT seen_version FROM plansight_context
            WHERE workspace = %(workspace)s AND session = %(session)s), 0) AS version
    ) AS seen
    ON CONFLICT (workspace, session) DO UPDATE SET rounds = 0, seen_version = excluded.seen_version
"""

# The task columns are the Task fields (the model's one list), kept in step with the
# schema by a test.
_UPSERT_TASK = (
    f"INSERT INTO plansight_tasks (workspace, session, {rows.TASK_COLUMNS}) "
    f"VALUES (%s, %s, {', '.join(['%s'] * rows.TASK_COLUMN_COUNT)}) "
    "ON CONFLICT (workspace, session, id) DO UPDATE SET phase_position = EXCLUDED.phase_position, "
    "position = EXCLUDED.position, "
    + ", ".join(f"{name} = EXCLUDED.{name}" for name in TASK_FIELDS if name != "id")
)
_INSERT_EVENT = (
    f"INSERT INTO plansight_events (workspace, {rows.EVENT_COLUMNS}) "
    f"VALUES (%s, {', '.join(['%s'] * rows.EVENT_COLUMN_COUNT)})"
)


# NOTIFY refuses a payload of 8000 bytes or more (PostgreSQL's default block size).
NOTIFY_PAYLOAD_BYTES = 8000


def prune_payloads(names: list[str], writer: str) -> list[str]:
    """The `didPrune` NOTIFY payloads for `names`: as many names each as fit under the
    payload limit, measured in bytes as sent (a name of 200 emoji escapes to 2400)."""
    payloads: list[str] = []
    batch: list[str] = []
    for name in names:
        candidate = json.dumps({"pruned": [*batch, name], "w": writer})
        if batch and len(candidate.encode("utf-8")) >= NOTIFY_PAYLOAD_BYTES:
            payloads.append(json.dumps({"pruned": batch, "w": writer}))
            batch = [name]
        else:
            batch.append(name)
    if batch:
        payloads.append(json.dumps({"pruned": batch, "w": writer}))
    return payloads


class PostgresWriting(PostgresReads):
    """The store's changes, `context` rounds, pruning and copying in."""

    _engine: StoreEngine  # made by the store once it is whole (`PostgresStore`)

    def edit(
        self, session: str, origin: Origin, max_sessions: int
    ) -> AbstractContextManager[PendingEdit]:
        return self._engine.edit(session, origin, max_sessions)

    @contextmanager
    def writing(self, written: Written) -> Iterator[PostgresWrites]:
        """A transaction that locks the session's row (`PostgresWrites.lock`)."""
        db = self._connection()
        try:
            with self._rolling_back(db):
                yield PostgresWrites(self, db)
                db.execute("COMMIT")
        except BaseException:
            # The copy may hold half of a change: read it again from what was committed.
            self._cache.forget(written.session)
            raise

    def after_commit(self, written: Written) -> None:
        if written.copy is not None:
            self._cache.hold(written.copy)
            if written.committed:
                self._committed[written.session] = written.copy.plan.version
        for name in written.pruned:
            self._gone(name)

    def prune_beyond(self, max_sessions: int) -> list[str]:
        """Prune the workspace down to its `max_sessions` updated last (after sessions
        were copied in with their own times: `plansight migrate`); returns the pruned."""
        with self._transaction() as db:
            doomed = _prune(db, self.workspace, self.channel, self.writer, max_sessions, keep=None)
        for name in doomed:
            self._gone(name)
        return doomed

    # ------------------------------------------------------------ context rounds

    def context_round(self, session: str) -> tuple[int, list[LoggedChange]]:
        return self._mark_seen(session, count=True)

    def unseen_changes(self, session: str) -> list[LoggedChange]:
        unseen = self._fetch(
            "SELECT 1 FROM plansight_events WHERE workspace = %s AND session = %s "
            "AND version > coalesce((SELECT seen_version FROM plansight_context "
            "WHERE workspace = %s AND session = %s), 0) LIMIT 1",
            (self.workspace, session, self.workspace, session),
        )
        if not unseen:
            return []  # the common case, and a read: no write transaction
        return self._mark_seen(session, count=False)[1]

    def _mark_seen(self, session: str, count: bool) -> tuple[int, list[LoggedChange]]:
        """Marks the session's changes seen; with `count`, one more round."""
        with self._transaction() as db:
            return StoreEngine.count_round(PostgresWrites(self, db), session, count, keep=True)

    # ------------------------------------------------------------ copying in

    def adopt(
        self,
        plan: Plan,
        events: list[LoggedEvent],
        kept: dict[int, Record],
        checkout: Checkout | None = None,
    ) -> bool:
        """Copy a session and its event log from another store, versions and times as they
        were, with `kept`, the plans kept for `restore` (by version), and its `checkout`;
        False, and nothing written, when this workspace has the name already."""
        key = (self.workspace, plan.session)
        created = events[0].at if events else plan.updated_at
        with self._transaction() as db:
            taken = db.execute(
                "INSERT INTO plansight_sessions (workspace, name, version, next_id, created_at, "
                "updated_at, agent_base, checkout) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING RETURNING name",
                # Copied whole: its agent counts as having seen it, as a migrated store's.
                (
                    *key,
                    plan.version,
                    plan.next_id,
                    created,
                    plan.updated_at,
                    plan.version,
                    checkout_text(checkout),
                ),
            ).fetchone()
            if taken is None:
                return False
            written = rows.plan_rows(plan, rows.WrittenRows({}, None))
            cursor = db.cursor()
            cursor.executemany(
                "INSERT INTO plansight_phases (workspace, session, position, name) "
                "VALUES (%s, %s, %s, %s)",
                [(*key, i, name) for i, name in enumerate(written.phase_names)],
            )
            cursor.executemany(_UPSERT_TASK, [(*key, *row) for row in written.changed])
            cursor.executemany(
                _INSERT_EVENT,
                [(self.workspace, *rows.event_row(e, kept.get(e.version))) for e in events],
            )
            payload = json.dumps({"s": plan.session, "v": plan.version, "w": self.writer})
            db.execute("SELECT pg_notify(%s, %s)", (self.channel, payload))
        return True


class PostgresWrites:
    """One write transaction's steps (see `store.engine`) in PostgreSQL's SQL, sent in
    one pipeline with the COMMIT (one round trip)."""

    def __init__(self, store: PostgresReads, db: Any) -> None:
        self._store = store
        self._db = db
        self._workspace = store.workspace

    def lock(self, session: str) -> Locked:
        """Lock the session's row, making one (version 0) for a new session: a concurrent
        writer of the same new session waits on it as on any other row."""
        db = self._db
        with db.pipeline():  # BEGIN goes with the reads
            db.execute("BEGIN")
            db.execute(self._store.lock_timeout)
            locked = self._store._read_head(db, session, lock=True)
        if not locked.new:
            return locked
        now = utc_now()
        db.execute(
            "INSERT INTO plansight_sessions (workspace, name, version, next_id, created_at, "
            "updated_at) VALUES (%s, %s, 0, 1, %s, %s) ON CONFLICT DO NOTHING",
            (self._workspace, session, now, now),
        )
        return self._store._read_head(db, session, lock=True)

    def batch(self) -> AbstractContextManager[None]:
        return cast(AbstractContextManager[None], self._db.pipeline())

    def write_head(
        self, plan: Plan, agent_base: int, now: str, new: bool, checkout: Checked
    ) -> None:
        # A new session's row exists already: it held the lock (made at version 0).
        kept = checkout is KEEP_CHECKOUT
        self._db.execute(
            "UPDATE plansight_sessions SET version = %s, next_id = %s, updated_at = %s, "
            "title = %s, agent_base = %s"
            + (", created_at = %s" if new else "")
            + ("" if kept else ", checkout = %s")
            + " WHERE workspace = %s AND name = %s",
            (
                plan.version,
                plan.next_id,
                now,
                plan.title,
                agent_base,
                *((now,) if new else ()),
                *(() if kept else (checkout,)),
                self._workspace,
                plan.session,
            ),
        )

    def write_phases(self, session: str, names: list[str]) -> None:
        key = (self._workspace, session)
        self._db.execute("DELETE FROM plansight_phases WHERE workspace = %s AND session = %s", key)
        if names:
            self._db.cursor().executemany(
                "INSERT INTO plansight_phases (workspace, session, position, name) "
                "VALUES (%s, %s, %s, %s)",
                [(*key, i, name) for i, name in enumerate(names)],
            )

    def delete_tasks(self, session: str, ids: list[str]) -> None:
        self._db.execute(
            "DELETE FROM plansight_tasks WHERE workspace = %s AND session = %s AND id = ANY(%s)",
            (self._workspace, session, ids),
        )

    def upsert_tasks(self, session: str, task_rows: list[rows.TaskRow]) -> None:
        self._db.cursor().executemany(
            _UPSERT_TASK, [(self._workspace, session, *row) for row in task_rows]
        )

    def log_event(self, row: rows.EventRow) -> None:
        self._db.execute(_INSERT_EVENT, (self._workspace, *row))

    def let_plans_go(self, session: str, first: int, last: int) -> None:
        self._db.execute(
            "UPDATE plansight_events SET snapshot = NULL WHERE workspace = %s AND session = %s "
            "AND version BETWEEN %s AND %s AND snapshot IS NOT NULL",
            (self._workspace, session, first, last),
        )

    def set_agent_base(self, session: str, version: int) -> None:
        self._db.execute(
            "UPDATE plansight_sessions SET agent_base = %s WHERE workspace = %s AND name = %s",
            (version, self._workspace, session),
        )

    def drop_unborn(self, session: str) -> None:
        # Nothing to commit: the row that held the lock goes with it.
        self._db.execute(
            "DELETE FROM plansight_sessions WHERE workspace = %s AND name = %s",
            (self._workspace, session),
        )

    def reset_rounds(self, session: str) -> None:
        self._db.execute(
            "UPDATE plansight_context SET rounds = 0 "
            "WHERE workspace = %s AND session = %s AND rounds != 0",
            (self._workspace, session),
        )

    def mark_told(self, session: str, version: int) -> None:
        self._db.execute(
            "INSERT INTO plansight_context (workspace, session, rounds, seen_version) "
            "VALUES (%s, %s, 0, %s) ON CONFLICT (workspace, session) DO UPDATE "
            "SET rounds = 0, seen_version = excluded.seen_version",
            (self._workspace, session, version),
        )

    def mark_seen_by_agent(self, session: str, version: int) -> None:
        self._db.execute(
            _SEEN_BY_ITS_AGENT,
            {"workspace": self._workspace, "session": session, "version": version},
        )

    def announce(self, session: str, version: int) -> None:
        # Delivered at COMMIT, to every listener of the workspace, in commit order.
        payload = json.dumps({"s": session, "v": version, "w": self._store.writer})
        self._db.execute("SELECT pg_notify(%s, %s)", (self._store.channel, payload))

    def head_version(self, session: str) -> int | None:
        # Behind any writer of the session, so the cursor covers what it committed.
        row = self._db.execute(
            "SELECT version FROM plansight_sessions WHERE workspace = %s AND name = %s "
            "AND version > 0 FOR UPDATE",
            (self._workspace, session),
        ).fetchone()
        return None if row is None else int(row[0])

    def seen_cursor(self, session: str) -> tuple[int, int]:
        row = self._db.execute(
            "SELECT rounds, seen_version FROM plansight_context "
            "WHERE workspace = %s AND session = %s FOR UPDATE",
            (self._workspace, session),
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def changes_after(self, session: str, version: int) -> list[LoggedChange]:
        return [
            rows.change_of(columns)
            for columns in self._db.execute(
                f"SELECT {rows.CHANGE_COLUMNS} FROM plansight_events WHERE workspace = %s "
                "AND session = %s AND version > %s ORDER BY version",
                (self._workspace, session, version),
            )
        ]

    def write_cursor(self, session: str, rounds: int, version: int) -> None:
        key = (self._workspace, session)
        self._db.execute(
            "UPDATE plansight_sessions SET agent_base = %s "
            "WHERE workspace = %s AND name = %s AND agent_base != %s",
            (version, *key, version),
        )
        self._db.execute(
            "INSERT INTO plansight_context (workspace, session, rounds, seen_version) "
            "VALUES (%s, %s, %s, %s) ON CONFLICT (workspace, session) DO UPDATE "
            "SET rounds = EXCLUDED.rounds, seen_version = EXCLUDED.seen_version",
            (*key, rounds, version),
        )

    def prune(self, keep: str, max_sessions: int) -> list[str]:
        store = self._store
        return _prune(self._db, self._workspace, store.channel, store.writer, max_sessions, keep)


def _prune(
    db: Any, workspace: str, channel: str, writer: str, max_sessions: int, keep: str | None
) -> list[str]:
    """Keep the workspace's `max_sessions` most recently updated sessions (`keep`, the
    one being written, among them)."""
    doomed = [
        row[0]
        for row in db.execute(
            "DELETE FROM plansight_sessions WHERE workspace = %s AND name IN ("
            "SELECT name FROM plansight_sessions WHERE workspace = %s "
            "AND name IS DISTINCT FROM %s "
            "ORDER BY updated_at DESC, name OFFSET %s) RETURNING name",
            (
                workspace,
                workspace,
                keep,
                max(max_sessions - (1 if keep is not None else 0), 0),
            ),
        )
    ]
    if doomed:
        db.execute(
            "DELETE FROM plansight_context WHERE workspace = %s AND session = ANY(%s)",
            (workspace, doomed),
        )
        # Watchers elsewhere tell their clients (`didPrune`): a hint only, they read
        # which sessions are gone from the table.
        for payload in prune_payloads(doomed, writer):
            db.execute("SELECT pg_notify(%s, %s)", (channel, payload))
        log.info("pruned %d session(s) beyond the %d a store holds", len(doomed), max_sessions)
    return doomed
