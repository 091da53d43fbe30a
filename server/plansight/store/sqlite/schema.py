"""The SQLite schema and its migrations, one numbered step each."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from plansight.store.store_error import StoreError

SCHEMA_VERSION = 8


def _steering_migration() -> str:
    """Protocol 3, steering: who created each task (every task from before is the
    agent's), and the version each session's agent last saw (`agent_base`). A session
    from before counts as seen whole by its agent: a base of 0 would make every task one
    the agent never saw, which no full replacement removes."""
    return """
    ALTER TABLE tasks ADD COLUMN created_by TEXT NOT NULL DEFAULT 'agent'
        CHECK (created_by IN ('agent', 'user'));
    ALTER TABLE sessions ADD COLUMN agent_base INTEGER NOT NULL DEFAULT 0;
    UPDATE sessions SET agent_base = version;
    ALTER TABLE events ADD COLUMN agent_base INTEGER
    """


# The message an older Plansight gets when it tries to write a store migrated past it.
OLD_WRITER_REFUSED = "plansight: this store was migrated by a newer Plansight; update this one"


def _refuse_old_writers(db: sqlite3.Connection) -> None:
    """Schema 5: an older Plansight still running against the store must fail, never
    corrupt it. Protocol 1 wrote `INSERT OR REPLACE` of its own task columns, wiping the
    fields it did not know (priority, owner, description, dependencies), and logged a
    version with no plan kept. Every commit of every version logs one event, in the
    same transaction as its rows; only writers older than schema 2 log one without a
    plan (the new ones always keep a whole plan or a change against the one before). So
    refusing such an event makes the old writer's whole transaction roll back."""
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS events_from_older_writers_refused "
        "BEFORE INSERT ON events WHEN NEW.snapshot IS NULL "
        f"BEGIN SELECT RAISE(ABORT, '{OLD_WRITER_REFUSED}'); END"
    )


def _one_seen_cursor(db: sqlite3.Connection) -> None:
    """Schema 6: the agent's seen cursor counts the session's versions, as PostgreSQL's
    always did (it counted the log's sequence numbers here: one concept, two names). A
    cursor becomes the newest version of the session at or before it."""
    db.execute("ALTER TABLE context RENAME COLUMN seen_seq TO seen_version")
    db.execute(
        "UPDATE context SET seen_version = coalesce((SELECT max(version) FROM events "
        "WHERE events.session = context.session AND events.seq <= context.seen_version), 0)"
    )


_MIGRATIONS: dict[int, str | Callable[[sqlite3.Connection], None]] = {
    1: """
    CREATE TABLE sessions (
        name TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        next_id INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE phases (
        session TEXT NOT NULL,
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (session, position)
    ) WITHOUT ROWID;
    CREATE TABLE tasks (
        session TEXT NOT NULL,
        id TEXT NOT NULL,
        phase_position INTEGER NOT NULL,
        position INTEGER NOT NULL,
        content TEXT NOT NULL,
        active_form TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed', 'abandoned')),
        notes TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        started_at TEXT,
        completed_at TEXT,
        PRIMARY KEY (session, id)
    ) WITHOUT ROWID;
    CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        session TEXT NOT NULL,
        version INTEGER NOT NULL,
        origin TEXT NOT NULL,
        method TEXT NOT NULL,
        request TEXT NOT NULL,
        completed TEXT NOT NULL,
        changes TEXT NOT NULL,
        writer TEXT NOT NULL,
        at TEXT NOT NULL,
        UNIQUE (session, version)
    );
    CREATE TABLE context (
        session TEXT PRIMARY KEY,
        rounds INTEGER NOT NULL,
        seen_seq INTEGER NOT NULL
    );
    """,
    # Protocol 2: the task's new fields (a column each, named as the Task field), the
    # status `blocked` (SQLite cannot change a CHECK: the table is made again), session
    # titles, and what the history needs (removed tasks, auto-starts, a plan per version).
    2: """
    CREATE TABLE tasks_v2 (
        session TEXT NOT NULL,
        id TEXT NOT NULL,
        phase_position INTEGER NOT NULL,
        position INTEGER NOT NULL,
        content TEXT NOT NULL,
        active_form TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed', 'abandoned', 'blocked')),
        notes TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        priority TEXT CHECK (priority IN ('high', 'medium', 'low')),
        blocked_by TEXT NOT NULL DEFAULT '[]',
        owner TEXT,
        files TEXT NOT NULL DEFAULT '[]',
        external_id TEXT,
        started_at TEXT,
        completed_at TEXT,
        started_rank INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session, id)
    ) WITHOUT ROWID;
    INSERT INTO tasks_v2 (session, id, phase_position, position, content, active_form, status,
        notes, created_at, updated_at, started_at, completed_at)
        SELECT session, id, phase_position, position, content, active_form, status, notes,
        created_at, updated_at, started_at, completed_at FROM tasks;
    DROP TABLE tasks;
    ALTER TABLE tasks_v2 RENAME TO tasks;
    ALTER TABLE sessions ADD COLUMN title TEXT;
    ALTER TABLE events ADD COLUMN removed TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE events ADD COLUMN auto_started TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE events ADD COLUMN snapshot TEXT
    """,
    # What runs on every call reads a session's events after a sequence number (the
    # changes an agent has not heard of): without this it scanned the session's whole
    # log, so a long-lived session got slower with every change.
    3: """
    CREATE INDEX events_by_session_seq ON events (session, seq)
    """,
    4: _steering_migration(),
    5: _refuse_old_writers,
    6: _one_seen_cursor,
    # Protocol 4: the git checkout (worktree, branch) of each session's last agent change,
    # as JSON (`checkouts.checkout_text`); NULL for every session from before (none known).
    7: """
    ALTER TABLE sessions ADD COLUMN checkout TEXT
    """,
    # Protocol 4, nested tasks: the id of the task each task is a subtask of; NULL (the
    # top level) for every task from before, so every plan reads back as it was.
    8: """
    ALTER TABLE tasks ADD COLUMN parent TEXT
    """,
}


def migrate(db: sqlite3.Connection) -> None:
    """Bring the database to SCHEMA_VERSION; refuses a database from a newer Plansight."""
    current = int(db.execute("PRAGMA user_version").fetchone()[0])
    if current > SCHEMA_VERSION:
        raise StoreError(
            "unavailable",
            f"The plan store was written by a newer Plansight (schema {current} > {SCHEMA_VERSION})",
            advice="update Plansight to use it",
        )
    if current == SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated while we waited for the lock.
        current = int(db.execute("PRAGMA user_version").fetchone()[0])
        for version in range(current + 1, SCHEMA_VERSION + 1):
            step = _MIGRATIONS[version]
            if callable(step):
                step(db)
                db.execute(f"PRAGMA user_version = {version}")
                continue
            for statement in step.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {version}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # a failed write may have rolled it back already
            db.execute("ROLLBACK")
        raise
