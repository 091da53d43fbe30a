"""The SQLite store: WAL mode, one short write transaction per change, an event log.

Reads are served from an in-memory copy of each session, checked against the database
with `PRAGMA data_version`, which only moves when another connection commits; so a
request that changes nothing never touches the disk, and a change writes only the rows
that differ. Whatever is read from the file is read inside one read transaction, so a
copy is always one committed version, never a mix of two.

The file is created by the first change, not before (a server that is only asked to
read leaves no file behind), and it is checked to still be the file at the path on every
call: a store removed or replaced under a running process is reopened at its path.
Faults of the storage (disk full, read-only, locked too long, gone) leave as `StoreError`.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from pathlib import Path
from typing import Any

from plansight.core.changes import LoggedChange
from plansight.core.model import Origin, Plan
from plansight.store import rows
from plansight.store.base import ChangeNotice, LoggedEvent, PendingEdit, SessionSummary
from plansight.store.engine import Locked, StoreEngine, Written
from plansight.store.errors import StoreError, StoreFault
from plansight.store.file_events import FileEvents, open_events
from plansight.store.rules import history_limit, restorable
from plansight.store.schema import SCHEMA_VERSION, migrate
from plansight.store.session_cache import SessionCache, SessionCopy, copy_of, empty_copy
from plansight.store.snapshots import FULL_PLAN_EVERY, plan_at
from plansight.store.summaries import blockers_wanted, current_tasks, summaries_of

log = logging.getLogger(__name__)

# Without file-system events, a commit elsewhere reaches a watcher within this (plus the
# time to send it); with them, at once, and the store is still looked at this often in
# case an event was missed (the folder itself replaced, say).
POLL_SECONDS = 0.05
EVENTS_FALLBACK_SECONDS = 5.0

_UPSERT_TASK = (
    f"INSERT OR REPLACE INTO tasks (session, {rows.TASK_COLUMNS}) "
    f"VALUES (?, {', '.join('?' * rows.TASK_COLUMN_COUNT)})"
)
_INSERT_EVENT = (
    f"INSERT INTO events ({rows.EVENT_COLUMNS}) VALUES ({', '.join('?' * rows.EVENT_COLUMN_COUNT)})"
)


FileIdentity = tuple[int, int]  # (device, inode)
# As often as a watching server polls for other processes' changes.
IDENTITY_RECHECK_SECONDS = 0.05


# An agent's commit (`rules.agents_own_change`): its context rounds start again, and the
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


class SqliteStore:
    def __init__(self, path: str | os.PathLike[str], busy_timeout: float = 10.0) -> None:
        """`busy_timeout`: how long to wait for another process's lock before failing
        (an agent's hook gives up much sooner than an editor's server)."""
        self.path = str(path)
        self._busy_timeout = busy_timeout
        self.writer = secrets.token_hex(8)  # tells our own events from other processes'
        self._db: sqlite3.Connection | None = None
        self._identity: FileIdentity | None = None
        self._cache = SessionCache()  # the sessions used last (a bounded cache, not the store)
        self._data_version = -1
        self._last_seq = 0
        self._notices: list[ChangeNotice] = []
        self._known: set[str] = set()  # sessions in the store as last seen
        self._pruned: list[str] = []
        self._watching = False
        self._events: FileEvents | None = None  # the store folder's, once watching
        self._checked_at = -1.0  # when the file's identity was last checked (monotonic)
        self._engine = StoreEngine(self)
        _check_location(self.path)
        with _faults():
            db = self._attach(create=False)
            if db is not None:
                # Changes committed before this process opened the store are not news.
                self._last_seq = self._max_seq(db)

    # ------------------------------------------------------------ the file

    def _attach(self, create: bool, read: bool = False) -> sqlite3.Connection | None:
        """The connection to the file now at `path`: reopened when the file was removed
        or replaced since it was opened, created only when `create` (None without).

        A `read` trusts a check made in the last IDENTITY_RECHECK_SECONDS (a `stat` costs
        more than a cached `get`): it may show the last state committed to a file removed
        that long ago, never an uncommitted one. Changes always check."""
        now = time.monotonic()
        if read and self._db is not None and now - self._checked_at < IDENTITY_RECHECK_SECONDS:
            return self._db
        identity = _identity_of(self.path)
        self._checked_at = now
        if self._db is not None:
            if identity == self._identity:
                return self._db
            log.warning("the plan store was removed or replaced: opening it again")
            # SQLite's -wal beside the path still holds this file's last changes, and
            # would be read as part of whatever file comes next: move them out of it.
            with suppress(sqlite3.Error):
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._detach()
        tries = 3
        while True:
            if identity is None and not create:
                return None
            db = _connect(self.path, self._busy_timeout)
            opened = _identity_of(self.path)
            # The file may be replaced between the look and the open: then which of the
            # two this connection holds is unknown, and holding the old one would serve
            # its plans as the new file's for ever. Open again until both looks agree
            # (the next change's check catches a file replaced even faster than that).
            tries -= 1
            if identity is None or opened == identity or tries == 0:
                break
            with suppress(sqlite3.Error):
                db.close()
            identity = opened
        self._db, self._identity = db, opened
        self._data_version = -1  # read everything again from this file
        self._last_seq = 0  # every change in a file opened now is news
        return db

    def _detach(self) -> None:
        if self._db is not None:
            with suppress(sqlite3.Error):
                self._db.close()
        self._db = self._identity = None
        self._cache.clear()

    def _still_at_path(self) -> None:
        """A commit into a file no longer at the path is lost to every other process."""
        if _identity_of(self.path) != self._identity:
            self._detach()
            raise StoreError(
                "unavailable",
                "The plan store was removed or replaced while this change was written, "
                "so it was not kept",
                advice="try again",
            )

    @contextmanager
    def _snapshot(self, db: sqlite3.Connection) -> Iterator[None]:
        """One read transaction: every SELECT inside sees the same committed version."""
        if db.in_transaction:
            yield
            return
        db.execute("BEGIN")
        try:
            yield
        finally:
            _end_read(db)

    # ------------------------------------------------------------ reading

    def load(self, session: str) -> Plan:
        # The hottest path (every `get`): a plain try rather than `_faults()`.
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
            fault = _fault_of(exc)
            if fault is None:
                raise
            raise StoreError(fault) from exc

    @contextmanager
    def _committed(self) -> Iterator[sqlite3.Connection | None]:
        """The file inside one read transaction, caught up with other connections'
        commits (None: there is no store yet). Storage faults leave as StoreError."""
        with _faults():
            db = self._attach(create=False)
            if db is None:
                yield None
                return
            with self._snapshot(db):
                self._sync(db)
                yield db

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
                "SELECT name, title, version, updated_at FROM sessions "
                "ORDER BY updated_at DESC, name"
            ),
            db.execute("SELECT session, status, count(*) FROM tasks GROUP BY session, status"),
            current,
            blockers,
        )

    def _copy(self, db: sqlite3.Connection, session: str) -> SessionCopy:
        return _copy_cached(self._cache, db, session)

    # ------------------------------------------------------------ writing

    def edit(
        self, session: str, origin: Origin, max_sessions: int
    ) -> AbstractContextManager[PendingEdit]:
        return self._engine.edit(session, origin, max_sessions)

    @contextmanager
    def writing(self, written: Written) -> Iterator[SqliteWrites]:
        """`BEGIN IMMEDIATE` (the one writer of the file); after `COMMIT`, the file must
        still be the one at the path, else the change is lost to every other process."""
        with _faults():
            db = self._attach(create=True)
            assert db is not None
            db.execute("BEGIN IMMEDIATE")
        steps = SqliteWrites(db, self._cache)
        last_seq = self._last_seq
        try:
            with _faults():
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
            self._cache.keep(written.copy)
            self._known.add(written.session)
        for name in written.pruned:
            self._forget(name)
            self._known.discard(name)
            if self._watching:
                self._pruned.append(name)

    def _forget(self, session: str) -> None:
        self._cache.forget(session)

    # ------------------------------------------------------------ context rounds

    def context_round(self, session: str) -> tuple[int, list[LoggedChange]]:
        with _faults():
            db = self._attach(create=False)
            if db is None:
                return 1, []
            try:
                return self._count_round(db, session, keep=True)
            except sqlite3.OperationalError as exc:
                if _fault_of(exc) != "readOnly":
                    raise
                # A read-only store still answers: the round is counted but not kept.
                return self._count_round(db, session, keep=False)

    def unseen_changes(self, session: str) -> list[LoggedChange]:
        with _faults():
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
                if _fault_of(exc) != "readOnly":
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

    # ------------------------------------------------------------ history

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
        with _faults():
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

    # ------------------------------------------------------------ watching

    def watch_from_now(self) -> None:
        self._watching = True
        self.poll()
        self._notices.clear()
        self._pruned.clear()

    def poll(self) -> list[ChangeNotice]:
        if self._events is not None:
            self._events.drain()  # before looking: an event after this wakes us again
        with _faults():
            db = self._attach(create=False)
            if db is None:
                self._lose_all()
                if self._events is not None:  # its folder may go too: watch it anew
                    self._events.close()
                    self._events = None
            else:
                with self._snapshot(db):
                    self._sync(db)
        notices, self._notices = self._notices, []
        return notices

    def watch_handle(self) -> tuple[int | None, float]:
        """The store folder's file-system events where there are any (its folder may not
        exist yet: tried again on every call until it does), else a poll."""
        if self._events is None:
            self._events = open_events(os.path.dirname(os.path.abspath(self.path)))
            if self._events is None:
                return None, POLL_SECONDS
        return self._events.fileno(), EVENTS_FALLBACK_SECONDS

    def pruned(self) -> list[str]:
        pruned, self._pruned = self._pruned, []
        return pruned

    def _lose_all(self) -> None:
        """The file is gone: every session it held is gone with it."""
        if self._watching:
            self._pruned.extend(sorted(self._known))
        self._known.clear()

    def _sync(self, db: sqlite3.Connection) -> None:
        """Catch up with commits of other connections, if there were any."""
        data_version = self._read_data_version(db)
        if data_version == self._data_version:
            return
        self._data_version = data_version
        for seq, session, version, origin, completed, removed, writer in db.execute(
            "SELECT seq, session, version, origin, completed, removed, writer FROM events "
            "WHERE seq > ? ORDER BY seq",
            (self._last_seq,),
        ):
            self._last_seq = seq
            if writer != self.writer and self._watching:
                self._notices.append(rows.notice_of(session, version, origin, completed, removed))
        versions = dict(db.execute("SELECT name, version FROM sessions"))
        for session, version in self._cache.versions():
            if versions.get(session, 0) != version:
                self._forget(session)
        if self._watching:
            self._pruned.extend(sorted(self._known.difference(versions)))
        self._known = set(versions)

    def _read_data_version(self, db: sqlite3.Connection) -> int:
        return int(db.execute("PRAGMA data_version").fetchone()[0])

    def _max_seq(self, db: sqlite3.Connection) -> int:
        return int(db.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0])

    def events(self, session: str | None = None) -> list[LoggedEvent]:
        with _faults():
            db = self._attach(create=False)
            if db is None:
                return []
            query = f"SELECT {rows.LOG_COLUMNS} FROM events"
            args: tuple[str, ...] = ()
            if session is not None:
                query, args = query + " WHERE session = ?", (session,)
            return [rows.event_of(row) for row in db.execute(query + " ORDER BY seq", args)]

    def close(self) -> None:
        self._detach()
        if self._events is not None:
            self._events.close()
            self._events = None


def _copy_cached(kept: SessionCache, db: sqlite3.Connection, session: str) -> SessionCopy:
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


class SqliteWrites:
    """One write transaction's steps (see `store.engine`) in SQLite's SQL."""

    def __init__(self, db: sqlite3.Connection, kept: SessionCache) -> None:
        self._db = db
        self._cache = kept
        self.logged_seq: int | None = None  # the event this transaction logged

    def lock(self, session: str) -> Locked:
        # `BEGIN IMMEDIATE` locked the whole file already.
        copy = _copy_cached(self._cache, self._db, session)
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

    def write_head(self, plan: Plan, agent_base: int, now: str, new: bool) -> None:
        if new:
            self._db.execute(
                "INSERT INTO sessions (name, version, next_id, created_at, updated_at, title, "
                "agent_base) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (plan.session, plan.version, plan.next_id, now, now, plan.title, agent_base),
            )
        else:
            self._db.execute(
                "UPDATE sessions SET version = ?, next_id = ?, updated_at = ?, title = ?, "
                "agent_base = ? WHERE name = ?",
                (plan.version, plan.next_id, now, plan.title, agent_base, plan.session),
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
            log.info("pruned %d session(s) beyond the %d a store keeps", len(doomed), max_sessions)
        return doomed


# ---------------------------------------------------------------- faults

# SQLite's primary result codes (sqlite3.SQLITE_* in Python 3.11, missing from the
# type stubs), by what a person can do about them.
_FAULTS: dict[int, StoreFault] = {
    13: "diskFull",  # SQLITE_FULL
    8: "readOnly",  # SQLITE_READONLY
    3: "readOnly",  # SQLITE_PERM
    5: "busy",  # SQLITE_BUSY
    6: "busy",  # SQLITE_LOCKED
    10: "unavailable",  # SQLITE_IOERR
    14: "unavailable",  # SQLITE_CANTOPEN
    11: "unavailable",  # SQLITE_CORRUPT
    26: "unavailable",  # SQLITE_NOTADB
}
# SQLITE_READONLY_DBMOVED: the file was moved or unlinked while open (chmod won't help).
_SQLITE_READONLY_DBMOVED = 8 | (4 << 8)


def _fault_of(exc: sqlite3.Error) -> StoreFault | None:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return None
    if code == _SQLITE_READONLY_DBMOVED:
        return "unavailable"
    return _FAULTS.get(code & 0xFF)


@contextmanager
def _faults() -> Iterator[None]:
    """Storage faults leave as StoreError; anything else (a bug) as it is."""
    try:
        yield
    except sqlite3.Error as exc:
        fault = _fault_of(exc)
        if fault is None:
            raise
        raise StoreError(fault) from exc


# ---------------------------------------------------------------- opening


def _end_read(db: sqlite3.Connection) -> None:
    if db.in_transaction:
        db.execute("COMMIT")


def _identity_of(path: str) -> FileIdentity | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(
            "unavailable", f"The plan store cannot be reached ({_os_fault(exc)})"
        ) from None
    return info.st_dev, info.st_ino


def _os_fault(exc: OSError) -> str:
    return os.strerror(exc.errno) if exc.errno else exc.__class__.__name__


def _check_location(path: str) -> None:
    """Refuse at once a path that could never hold a store (a folder, or under a file),
    without creating anything."""
    target = Path(path)
    if target.is_dir():
        raise StoreError("unavailable", "The plan store path is a folder")
    for folder in target.parents:
        if folder.exists():
            if not folder.is_dir():
                raise StoreError("unavailable", "The plan store's folder is a file")
            return


def _make_folders(folder: Path) -> None:
    """Missing folders are made 0700 whatever the umask: plans can carry private notes."""
    missing: list[Path] = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        with suppress(FileExistsError):
            os.mkdir(made, 0o700)
            os.chmod(made, 0o700)


def _connect(path: str, busy_timeout: float = 10.0) -> sqlite3.Connection:
    target = Path(path)
    try:
        if target.is_symlink():
            _check_link(target)
        else:
            _make_folders(target.parent)
            if not os.path.lexists(target):
                # A -wal left by a removed store is not the new file's: gone before the
                # file exists. Not after: a process may open the new file the moment it
                # exists and enter WAL mode, and unlinking its -wal and -shm then would
                # leave it reading a copy nobody else writes, for as long as it runs.
                for companion in ("-wal", "-shm"):
                    with suppress(FileNotFoundError):
                        os.unlink(path + companion)
            with suppress(FileExistsError):
                fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
                os.fchmod(fd, 0o600)
                os.close(fd)
    except OSError as exc:
        reason: StoreFault = "unavailable"
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            reason = "readOnly"
        elif exc.errno == errno.ENOSPC:
            reason = "diskFull"
        raise StoreError(reason, f"Cannot create the plan store ({_os_fault(exc)})") from None
    try:
        return _open_database(path, busy_timeout)
    except StoreError as exc:
        if exc.reason not in ("readOnly", "unavailable") or _writable(path):
            raise
    # A store on a read-only medium or in a folder this user cannot write: SQLite cannot
    # open it in WAL mode unless told that nothing will change it while it is open.
    return _open_read_only(path)


def _open_database(path: str, busy_timeout: float) -> sqlite3.Connection:
    with _faults():
        db = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=busy_timeout
        )
    try:
        with _faults():
            _refuse_foreign(db)
            _enter_wal(db, busy_timeout)
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
            migrate(db)
    except BaseException:
        db.close()
        raise
    return db


def _writable(path: str) -> bool:
    return os.access(path, os.W_OK) and os.access(os.path.dirname(path) or ".", os.W_OK)


def _open_read_only(path: str) -> sqlite3.Connection:
    uri = Path(path).absolute().as_uri() + "?mode=ro&immutable=1"
    with _faults():
        db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    try:
        with _faults():
            _refuse_foreign(db)
            if int(db.execute("PRAGMA user_version").fetchone()[0]) != SCHEMA_VERSION:
                raise StoreError("readOnly", "The read-only plan store needs an upgrade")
    except BaseException:
        db.close()
        raise
    log.info("the plan store is read-only: serving reads only")
    return db


def _check_link(link: Path) -> None:
    """A link at the store path is followed only into an existing SQLite file: one
    planted towards another file (or nowhere) must not get it overwritten or created."""
    try:
        with open(link, "rb") as target:
            magic = target.read(16)
    except OSError:
        magic = b""
    if magic != b"SQLite format 3\x00":
        raise StoreError(
            "unavailable",
            "The plan store path is a symbolic link to something that is not a Plansight store",
            advice="remove the link, or point PLANSIGHT_DB at a store",
        )


def _refuse_foreign(db: sqlite3.Connection) -> None:
    """A SQLite database of another program is left alone (no WAL switch, no tables)."""
    # One read transaction: a new store being made by another process is never seen
    # with its tables but not yet its version.
    db.execute("BEGIN")
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    finally:
        _end_read(db)
    if version == 0 and tables:
        raise StoreError(
            "unavailable",
            "The file at the plan store path is another program's database",
            advice="point PLANSIGHT_DB (or --db) at a Plansight store",
        )


def _enter_wal(db: sqlite3.Connection, wait_seconds: float = 10.0) -> None:
    """Switch the file to WAL mode. When two processes open a new store at once, the
    switch needs a lock SQLite's busy handler does not wait for: wait here instead."""
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)
