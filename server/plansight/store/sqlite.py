"""The SQLite store: WAL mode, one short write transaction per change, an event log.

Reads are served from an in-memory copy of each session, checked against the database
with `PRAGMA data_version`, which only moves when another connection commits; so a
request that changes nothing never touches the disk, and a change writes only the rows
that differ.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from operator import attrgetter
from pathlib import Path
from typing import Any

from plansight.core.model import LIST_FIELDS, TASK_FIELDS, Origin, Phase, Plan, Task, utc_now
from plansight.core.record import plan_record
from plansight.store.base import ChangeEvent, ChangeNotice, LoggedChange
from plansight.store.schema import migrate

log = logging.getLogger(__name__)

# Snapshots older than this many versions of a session are dropped (the contract: at
# least the last 100 can be restored).
HISTORY_KEPT = 200

TaskRow = tuple[Any, ...]
# A column per Task field, named as the field; lists are stored as JSON text.
_TASK_COLUMNS = "phase_position, position, " + ", ".join(TASK_FIELDS)
_TASK_PLACEHOLDERS = ", ".join("?" for _ in range(len(TASK_FIELDS) + 2))
_JSON_AT = frozenset(i for i, name in enumerate(TASK_FIELDS) if name in LIST_FIELDS)


# `json.dumps(value, ensure_ascii=False)`, without building an encoder on every call.
_dumps_text = json.JSONEncoder(ensure_ascii=False).encode


class StoreError(Exception):
    """The store cannot be opened or used; the message is safe to show a person."""


_task_values = attrgetter(*TASK_FIELDS)


def _task_row(task: Task, phase_position: int, position: int) -> TaskRow:
    values = list(_task_values(task))
    for index in _JSON_AT:
        values[index] = _dumps_text(values[index]) if values[index] else "[]"
    return (phase_position, position, *values)


def _task_of(row: TaskRow) -> Task:
    values = list(row[2:])
    for index in _JSON_AT:
        values[index] = json.loads(values[index])
    return Task(*values)


class _Edit:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.event: ChangeEvent | None = None

    def commit(self, event: ChangeEvent) -> None:
        self.event = event


class SqliteStore:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self.writer = secrets.token_hex(8)  # tells our own events from other processes'
        self._db = _connect(self.path)
        migrate(self._db)
        self._plans: dict[str, Plan] = {}
        self._rows: dict[str, dict[str, TaskRow]] = {}
        self._phase_names: dict[str, list[str]] = {}
        self._data_version = self._read_data_version()
        self._last_seq = self._max_seq()
        self._notices: list[ChangeNotice] = []

    # ------------------------------------------------------------ reading

    def load(self, session: str) -> Plan:
        self._sync()
        plan = self._plans.get(session)
        if plan is None:
            plan = self._read_plan(session)
            self._plans[session] = plan
        return plan

    def sessions(self) -> list[Plan]:
        self._sync()
        names = [
            row[0]
            for row in self._db.execute("SELECT name FROM sessions ORDER BY updated_at DESC, name")
        ]
        return [self.load(name) for name in names]

    def _read_plan(self, session: str) -> Plan:
        head = self._db.execute(
            "SELECT version, next_id, updated_at, title FROM sessions WHERE name = ?", (session,)
        ).fetchone()
        if head is None:
            self._rows[session] = {}
            self._phase_names[session] = []
            return Plan(session)
        version, next_id, updated_at, title = head
        names = [
            row[0]
            for row in self._db.execute(
                "SELECT name FROM phases WHERE session = ? ORDER BY position", (session,)
            )
        ]
        phases = [Phase(name) for name in names]
        rows: dict[str, TaskRow] = {}
        for row in self._db.execute(
            f"SELECT {_TASK_COLUMNS} FROM tasks WHERE session = ? ORDER BY phase_position, position",
            (session,),
        ):
            task = _task_of(row)
            rows[task.id] = row
            phases[row[0]].tasks.append(task)
        self._rows[session] = rows
        self._phase_names[session] = names
        return Plan(session, version, phases, next_id, updated_at, title)

    # ------------------------------------------------------------ writing

    @contextmanager
    def edit(self, session: str, origin: Origin, max_sessions: int) -> Iterator[_Edit]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._sync()
            plan = self._plans.get(session)
            if plan is None:
                plan = self._plans[session] = self._read_plan(session)
            edit = _Edit(plan)
            yield edit
            if edit.event is not None:
                self._write(plan, edit.event, max_sessions)
            if origin == "agent":
                self._db.execute(
                    "UPDATE context SET rounds = 0 WHERE session = ? AND rounds != 0", (session,)
                )
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            # The copy may hold half of a change: read it again from what was committed.
            self._forget(session)
            raise

    def _write(self, plan: Plan, event: ChangeEvent, max_sessions: int) -> None:
        session = plan.session
        now = utc_now()
        plan.version += 1
        plan.updated_at = now
        db = self._db
        if (
            plan.version == 1
            and not db.execute("SELECT 1 FROM sessions WHERE name = ?", (session,)).fetchone()
        ):
            db.execute(
                "INSERT INTO sessions (name, version, next_id, created_at, updated_at, title) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (session, plan.version, plan.next_id, now, now, plan.title),
            )
            self._prune(max_sessions, keep=session)
        else:
            db.execute(
                "UPDATE sessions SET version = ?, next_id = ?, updated_at = ?, title = ? "
                "WHERE name = ?",
                (plan.version, plan.next_id, now, plan.title, session),
            )
        names = [phase.name for phase in plan.phases]
        if names != self._phase_names.get(session):
            db.execute("DELETE FROM phases WHERE session = ?", (session,))
            db.executemany(
                "INSERT INTO phases (session, position, name) VALUES (?, ?, ?)",
                [(session, i, name) for i, name in enumerate(names)],
            )
            self._phase_names[session] = names
        old_rows = self._rows.get(session, {})
        new_rows: dict[str, TaskRow] = {}
        changed: list[TaskRow] = []
        for phase_position, phase in enumerate(plan.phases):
            for position, task in enumerate(phase.tasks):
                row = _task_row(task, phase_position, position)
                new_rows[task.id] = row
                if old_rows.get(task.id) != row:
                    changed.append(row)
        gone = [(session, task_id) for task_id in old_rows if task_id not in new_rows]
        if gone:
            db.executemany("DELETE FROM tasks WHERE session = ? AND id = ?", gone)
        if changed:
            db.executemany(
                f"INSERT OR REPLACE INTO tasks (session, {_TASK_COLUMNS}) "
                f"VALUES (?, {_TASK_PLACEHOLDERS})",
                [(session, *row) for row in changed],
            )
        self._rows[session] = new_rows
        cursor = db.execute(
            "INSERT INTO events (session, version, origin, method, request, completed, changes, "
            "writer, at, removed, auto_started, snapshot) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session,
                plan.version,
                event.origin,
                event.method,
                json.dumps(event.request),  # ASCII escapes: stores whatever a client sent
                _dumps_text(event.completed),
                _dumps_text(event.changes),
                self.writer,
                now,
                _dumps_text(event.removed),
                _dumps_text(event.auto_started),
                _dumps_text(plan_record(plan)),
            ),
        )
        if plan.version > HISTORY_KEPT + 1:
            # One more plan than listed: the oldest listed change is told against it.
            db.execute(
                "UPDATE events SET snapshot = NULL WHERE session = ? AND version = ?",
                (session, plan.version - HISTORY_KEPT - 1),
            )
        if cursor.lastrowid is not None and cursor.lastrowid == self._last_seq + 1:
            # Our own event right after the last one seen: no need to read it back.
            self._last_seq = cursor.lastrowid

    def _prune(self, max_sessions: int, keep: str) -> None:
        doomed = [
            row[0]
            for row in self._db.execute(
                "SELECT name FROM sessions WHERE name != ? ORDER BY updated_at DESC, name LIMIT -1 OFFSET ?",
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
            self._forget(name)
        if doomed:
            log.info("pruned %d session(s) beyond maxSessions=%d", len(doomed), max_sessions)

    def _forget(self, session: str) -> None:
        self._plans.pop(session, None)
        self._rows.pop(session, None)
        self._phase_names.pop(session, None)

    # ------------------------------------------------------------ context rounds

    def context_round(self, session: str) -> tuple[int, list[LoggedChange]]:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute(
                "SELECT rounds, seen_seq FROM context WHERE session = ?", (session,)
            ).fetchone()
            rounds, seen = row if row else (0, 0)
            logged: list[LoggedChange] = []
            last = seen
            for seq, *columns in db.execute(
                f"SELECT seq, {_LOGGED_COLUMNS} FROM events WHERE session = ? AND seq > ? "
                "ORDER BY seq",
                (session, seen),
            ):
                logged.append(_logged(columns))
                last = seq
            db.execute(
                "INSERT INTO context (session, rounds, seen_seq) VALUES (?, ?, ?) "
                "ON CONFLICT (session) DO UPDATE SET rounds = excluded.rounds, seen_seq = excluded.seen_seq",
                (session, rounds + 1, max(last, self._max_seq_of(session))),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return rounds + 1, logged

    # ------------------------------------------------------------ history

    def history(self, session: str, limit: int) -> list[LoggedChange]:
        self._sync()
        return [
            _logged(row)
            for row in self._db.execute(
                f"SELECT {_LOGGED_COLUMNS} FROM events WHERE session = ? "
                "AND snapshot IS NOT NULL ORDER BY version DESC LIMIT ?",
                (session, min(limit, HISTORY_KEPT)),
            )
        ]

    def snapshot(self, session: str, version: int) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT snapshot FROM events WHERE session = ? AND version = ?", (session, version)
        ).fetchone()
        if row is None or row[0] is None:
            return None
        record: dict[str, Any] = json.loads(row[0])
        return record

    def _max_seq_of(self, session: str) -> int:
        row = self._db.execute(
            "SELECT max(seq) FROM events WHERE session = ?", (session,)
        ).fetchone()
        return int(row[0] or 0)

    # ------------------------------------------------------------ watching

    def watch_from_now(self) -> None:
        self._sync()
        self._notices.clear()

    def poll(self) -> list[ChangeNotice]:
        self._sync()
        notices, self._notices = self._notices, []
        return notices

    def _sync(self) -> None:
        """Catch up with commits of other connections, if there were any."""
        data_version = self._read_data_version()
        if data_version == self._data_version:
            return
        self._data_version = data_version
        for seq, session, version, origin, completed, removed, writer in self._db.execute(
            "SELECT seq, session, version, origin, completed, removed, writer FROM events "
            "WHERE seq > ? ORDER BY seq",
            (self._last_seq,),
        ):
            self._last_seq = seq
            if writer != self.writer:
                self._notices.append(
                    ChangeNotice(
                        session, version, origin, json.loads(completed), json.loads(removed)
                    )
                )
        versions = dict(self._db.execute("SELECT name, version FROM sessions"))
        for session, plan in list(self._plans.items()):
            if versions.get(session, 0) != plan.version:
                self._forget(session)

    def _read_data_version(self) -> int:
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def _max_seq(self) -> int:
        return int(self._db.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0])

    def events(self, session: str | None = None) -> list[dict[str, Any]]:
        """The event log, oldest first (for tests, replay and audits)."""
        query = "SELECT seq, session, version, origin, method, request, completed, changes, writer, at FROM events"
        args: tuple[Any, ...] = ()
        if session is not None:
            query += " WHERE session = ?"
            args = (session,)
        keys = (
            "seq",
            "session",
            "version",
            "origin",
            "method",
            "request",
            "completed",
            "changes",
            "writer",
            "at",
        )
        out = []
        for row in self._db.execute(query + " ORDER BY seq", args):
            item = dict(zip(keys, row, strict=False))
            for key in ("request", "completed", "changes"):
                item[key] = json.loads(item[key])
            out.append(item)
        return out

    def close(self) -> None:
        self._db.close()


_LOGGED_COLUMNS = "version, origin, method, at, changes, auto_started"


def _logged(row: Any) -> LoggedChange:
    version, origin, method, at, changes, auto_started = row
    return LoggedChange(version, origin, method, at, json.loads(changes), json.loads(auto_started))


def _connect(path: str) -> sqlite3.Connection:
    target = Path(path)
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not target.exists():
            # Plans can carry private notes: readable by their owner only.
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o600))
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10)
        _enter_wal(db)
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=10000")
        return db
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"Cannot open the plan store: {exc.__class__.__name__}") from exc


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


def open_store(path: str | os.PathLike[str]) -> SqliteStore:
    return SqliteStore(path)
