"""The PostgreSQL store: one team database, sessions scoped by workspace, pushes by
LISTEN/NOTIFY.

Writers serialize on the session's row (`SELECT ... FOR UPDATE`), so versions stay
gap-free however many processes and machines write. Each commit sends a NOTIFY carrying
the session and its version; watchers read the committed state. Reads are checked against
the session's version (one small query) and served from a copy when it has not moved.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import select
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any, cast

from plansight.core.changes import LoggedChange
from plansight.core.model import TASK_FIELDS, Origin, Plan, utc_now
from plansight.core.record import Record
from plansight.store import rows
from plansight.store.base import ChangeNotice, LoggedEvent, PendingEdit, SessionSummary
from plansight.store.engine import Locked, StoreEngine, Written
from plansight.store.errors import StoreError
from plansight.store.location import redact_url
from plansight.store.pg_connect import connect, lock_timeout, require_driver, translate
from plansight.store.pg_listen import ChangeListener
from plansight.store.pg_schema import NewerSchema, migrate
from plansight.store.rules import history_limit, restorable
from plansight.store.session_cache import SessionCache, SessionCopy, copy_of, empty_copy
from plansight.store.snapshots import FULL_PLAN_EVERY, plan_at
from plansight.store.summaries import blockers_wanted, current_tasks, summaries_of

log = logging.getLogger(__name__)

# An agent's commit (`rules.agents_own_change`): its context rounds start again, and the
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
# A consistent read of several statements, taking no lock.
_READ = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"


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


def channel_of(workspace: str) -> str:
    """A NOTIFY channel per workspace (an identifier: at most 63 bytes, so a digest)."""
    return "plansight_" + hashlib.sha256(workspace.encode("utf-8")).hexdigest()[:24]


class PostgresStore:
    def __init__(self, url: str, workspace: str, wait_seconds: float | None = None) -> None:
        """`wait_seconds`: how long to wait for the server and for another writer's lock
        (default: 10 s each; an agent's hook waits less)."""
        require_driver()
        self._wait_seconds = wait_seconds
        self.lock_timeout = lock_timeout(wait_seconds)
        self.path = redact_url(url)  # where the store is, as it may be shown or logged
        self.url = url
        self.workspace = workspace
        self.channel = channel_of(workspace)
        self.writer = secrets.token_hex(8)  # tells our own commits from other processes'
        self._db: Any = None
        self._cache = SessionCache()  # the sessions used last (a bounded cache, not the store)
        self._listener: ChangeListener | None = None
        self._seen: dict[str, int] = {}  # session -> newest version pushed or ours
        self._born: dict[str, str] = {}  # session -> its row's created_at, when read
        self._committed: dict[str, int] = {}  # session -> the version we committed last
        # Sessions to read from the tables: a NOTIFY is a hint (any role that can connect
        # can send one), never a version or a prune taken on trust.
        self._due: set[str] = set()
        self._watching = False
        self._catch_up = False  # the listener came back: compare versions before NOTIFYs
        self._pruned: list[str] = []  # sessions gone since the last `pruned` call
        self._engine = StoreEngine(self)
        db = self._connection()
        try:
            migrate(db)
        except NewerSchema as exc:
            self.close()
            raise StoreError(
                "unavailable",
                advice=f"the plan store {self.path} was written by a newer Plansight "
                f"(schema {exc.args[0]}): upgrade Plansight to use it",
            ) from None
        except Exception as exc:
            error = self._failed(exc)
            self.close()
            raise error from None

    # ------------------------------------------------------------ connection

    def _connection(self) -> Any:
        """The data connection, opened again after a fault. An idle connection has nothing
        to read unless the server ended it (a restart, a killed backend): then a new one
        serves this request, as nothing of it was sent yet."""
        if self._db is not None and not self._db.closed and _ended_by_server(self._db):
            log.info("the connection to %s was closed by the server; opening another", self.path)
            with suppress(Exception):
                self._db.close()
        if self._db is None or self._db.closed:
            self._db = connect(self.url, self._wait_seconds)
        return self._db

    def _failed(self, exc: Exception) -> StoreError:
        if isinstance(exc, StoreError):
            return exc
        if self._db is not None and (self._db.closed or self._db.broken):
            with suppress(Exception):
                self._db.close()
            self._db = None
            self._cache.clear()
        return translate(exc, self.path)

    @contextmanager
    def _transaction(self, begin: str = "BEGIN") -> Iterator[Any]:
        """One transaction; a psycopg failure leaves as a StoreError with its reason."""
        db = self._connection()
        try:
            with db.pipeline():
                db.execute(begin)
                db.execute(self.lock_timeout)
        except Exception as exc:
            raise self._failed(exc) from None
        with self._rolling_back(db):
            yield db
            db.execute("COMMIT")

    @contextmanager
    def _rolling_back(self, db: Any) -> Iterator[None]:
        """Leaving by an exception rolls back the transaction `db` began; a psycopg
        failure leaves as a StoreError with its reason."""
        try:
            yield
        except BaseException as exc:
            if not db.broken:
                with suppress(Exception):
                    db.execute("ROLLBACK")
            if _is_driver_error(exc):
                raise self._failed(exc) from None  # type: ignore[arg-type]
            raise

    # ------------------------------------------------------------ reading

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
        with self._transaction(_READ) as db:
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
            with self._transaction(_READ) as db:
                for name, _ in heads:
                    if name not in plans:
                        plans[name] = self._read(db, name).plan
        # A session pruned since the heads were read is not listed.
        return [plans[name] for name, _ in heads if plans[name].version > 0]

    def summaries(self) -> list[SessionSummary]:
        """From the tables (see `store.summaries`): no plan is read whole."""
        key = (self.workspace,)
        with self._transaction(_READ) as db:
            with db.pipeline():
                heads, counts, in_progress = db.cursor(), db.cursor(), db.cursor()
                heads.execute(
                    "SELECT name, title, version, updated_at FROM plansight_sessions "
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

    # ------------------------------------------------------------ writing

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
            self._cache.keep(written.copy)
            if written.committed:
                self._committed[written.session] = written.copy.plan.version
        for name in written.pruned:
            self._gone(name)

    def keep_newest(self, max_sessions: int) -> list[str]:
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

    @contextmanager
    def _consistent(self) -> Iterator[Any]:
        """Several reads that see one committed state: inside the edit's transaction when
        one is open (steering's base and `undo` read the history there), else in a read
        transaction of their own."""
        db = self._connection()
        if db.info.transaction_status.name == "IDLE":
            with self._transaction(_READ) as db:
                yield db
        else:
            yield db

    def _fetch(self, query: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """One read statement's rows, or StoreError."""
        try:
            return list(self._connection().execute(query, args).fetchall())
        except Exception as exc:
            raise self._failed(exc) from None

    # ------------------------------------------------------------ watching

    def watch_from_now(self) -> None:
        """Start listening: `poll` reports changes committed from here on."""
        if self._listener is None:
            self._listener = ChangeListener(self.url, self.channel, self.path)
        self._listener.open()  # LISTEN first, then read versions: nothing falls between
        heads = self._heads()
        self._seen = {session: version for session, (version, _) in heads.items()}
        self._born = {session: born for session, (_, born) in heads.items()}
        self._due.clear()
        self._pruned.clear()
        self._watching = True

    def watch_handle(self) -> tuple[int | None, float]:
        """What the watcher waits on: the listening socket (None while reconnecting) and
        how long at most before calling `poll` anyway."""
        if self._listener is None:
            return None, 1.0
        fd = self._listener.fileno()
        if fd is None or self._due or self._catch_up:  # reconnecting, or reads to retry
            return fd, self._listener.retry_in()
        # A NOTIFY or the connection's end wakes the watcher; the timeout is a safety net.
        return fd, 60.0

    def poll(self) -> list[ChangeNotice]:
        """Changes other processes committed since the last poll (read as committed from
        the tables), oldest first. After a reconnect, what was missed while away."""
        listener = self._listener
        if listener is None:
            return []
        if listener.fileno() is None:
            if not listener.reconnect():
                return []
            self._catch_up = True
        if self._catch_up:
            # Whatever committed while we were away has no NOTIFY left: compare the heads.
            # A session may have been pruned and made again meanwhile, with a version
            # below the one pushed before: `_report` tells it apart by its row.
            heads = self._heads()
            self._catch_up = False
            for session in [s for s in self._seen if s not in heads]:
                self._gone(session)
            for session, (version, born) in heads.items():
                if version != self._seen.get(session) or self._born.get(session, born) != born:
                    self._due.add(session)
        for payload in listener.drain():
            self._notified(payload)
        return self._report()

    def _notified(self, payload: dict[str, Any]) -> None:
        """A NOTIFY: which sessions to read again. Its version and its prunes are hints
        (the channel is open to every role of the database): the tables say what is so."""
        pruned = payload.get("pruned")
        if isinstance(pruned, list):
            # Our own prunes were counted when they committed (`_seen` no longer has them).
            self._due.update(
                name for name in pruned if isinstance(name, str) and name in self._seen
            )
            return
        session, version = payload.get("s"), payload.get("v")
        if not isinstance(session, str) or not isinstance(version, int):
            return  # not one of ours
        if version <= self._seen.get(session, 0) and session not in self._due:
            # Old news, or a session made again with lower versions: its row says which.
            if self._seen.get(session) is not None and version < self._seen[session]:
                self._due.add(session)
            return
        ours = payload.get("w") == self.writer and self._committed.get(session) == version
        if ours and session not in self._due:
            self._seen[session] = version  # our own commit: nothing to read, nothing to push
        else:  # read with the others' changes before it; our own are left out there
            self._due.add(session)

    def _gone(self, session: str) -> None:
        self._seen.pop(session, None)
        self._born.pop(session, None)
        self._committed.pop(session, None)
        self._due.discard(session)
        self._cache.forget(session)
        if self._watching:
            self._pruned.append(session)

    def pruned(self) -> list[str]:
        """Sessions pruned (by any process) since the last call, once watching."""
        pruned, self._pruned = self._pruned, []
        return pruned

    def _report(self) -> list[ChangeNotice]:
        """Read each session due from the tables: its head (gone, made again, or moved on)
        and the changes since the version pushed last, oldest first, leaving out our own."""
        if not self._due:
            return []
        notices: list[ChangeNotice] = []
        try:
            db = self._connection()
            for session in sorted(self._due):
                notices += self._read_news(db, session)
        except Exception as exc:
            # What is left in `_due` is read once the database answers again.
            log.warning("cannot read the changes to push: %s", self._failed(exc))
        return notices

    def _read_news(self, db: Any, session: str) -> list[ChangeNotice]:
        key = (self.workspace, session)
        head = db.execute(
            "SELECT version, created_at FROM plansight_sessions WHERE workspace = %s "
            "AND name = %s AND version > 0",
            key,
        ).fetchone()
        seen = self._seen.get(session)
        if head is None:  # pruned (or never was: a forged hint)
            if seen is not None:
                self._gone(session)
            self._due.discard(session)
            return []
        version, born = int(head[0]), str(head[1])
        if seen is not None and (version < seen or self._born.get(session, born) != born):
            # Pruned and made again: editors drop the old one before they get the new.
            self._gone(session)
            seen = None
        notices = [
            rows.notice_of(session, number, origin, completed, removed)
            for number, origin, completed, removed, writer in db.execute(
                "SELECT version, origin, completed, removed, writer FROM plansight_events "
                "WHERE workspace = %s AND session = %s AND version > %s AND version <= %s "
                "ORDER BY version",
                (*key, seen or 0, version),
            )
            if writer != self.writer
        ]
        self._seen[session] = max(version, seen or 0)
        self._born[session] = born
        self._due.discard(session)
        return notices

    def _heads(self) -> dict[str, tuple[int, str]]:
        """Each session of the workspace: its version and when its row was made."""
        try:
            found = (
                self._connection()
                .execute(
                    "SELECT name, version, created_at FROM plansight_sessions "
                    "WHERE workspace = %s AND version > 0",
                    (self.workspace,),
                )
                .fetchall()
            )
        except Exception as exc:
            raise self._failed(exc) from None
        return {name: (int(version), str(born)) for name, version, born in found}

    # ------------------------------------------------------------ copying in

    def adopt(self, plan: Plan, events: list[LoggedEvent], kept: dict[int, Record]) -> bool:
        """Copy a session and its event log from another store, versions and times as they
        were, with `kept`, the plans kept for `restore` (by version); False, and nothing
        written, when this workspace has the name already."""
        key = (self.workspace, plan.session)
        created = events[0].at if events else plan.updated_at
        with self._transaction() as db:
            taken = db.execute(
                "INSERT INTO plansight_sessions (workspace, name, version, next_id, created_at, "
                "updated_at, agent_base) VALUES (%s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING RETURNING name",
                # Copied whole: its agent counts as having seen it, as a migrated store's.
                (*key, plan.version, plan.next_id, created, plan.updated_at, plan.version),
            ).fetchone()
            if taken is None:
                return False
            written = rows.plan_rows(plan, {}, None)
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

    # ------------------------------------------------------------ audits

    def events(self, session: str | None = None) -> list[LoggedEvent]:
        query = f"SELECT {rows.LOG_COLUMNS} FROM plansight_events WHERE workspace = %s"
        args: tuple[str, ...] = (self.workspace,)
        if session is not None:
            query, args = query + " AND session = %s", (*args, session)
        return [rows.event_of(row) for row in self._fetch(query + " ORDER BY seq", args)]

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
        if self._db is not None:
            with suppress(Exception):
                self._db.close()
            self._db = None


class PostgresWrites:
    """One write transaction's steps (see `store.engine`) in PostgreSQL's SQL, sent in
    one pipeline with the COMMIT (one round trip)."""

    def __init__(self, store: PostgresStore, db: Any) -> None:
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

    def write_head(self, plan: Plan, agent_base: int, now: str, new: bool) -> None:
        # A new session's row exists already: it held the lock (made at version 0).
        self._db.execute(
            "UPDATE plansight_sessions SET version = %s, next_id = %s, updated_at = %s, "
            "title = %s, agent_base = %s"
            + (", created_at = %s" if new else "")
            + " WHERE workspace = %s AND name = %s",
            (
                plan.version,
                plan.next_id,
                now,
                plan.title,
                agent_base,
                *((now,) if new else ()),
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
        log.info("pruned %d session(s) beyond the %d a store keeps", len(doomed), max_sessions)
    return doomed


def _ended_by_server(db: Any) -> bool:
    """Whether the server wrote to an idle connection: only its goodbye (or a broken
    socket) arrives unasked on a connection that does not LISTEN."""
    readable, _, _ = select.select([db.fileno()], [], [], 0)
    return bool(readable)


def _is_driver_error(exc: BaseException) -> bool:
    return type(exc).__module__.startswith("psycopg")


__all__ = ["PostgresStore", "channel_of"]
