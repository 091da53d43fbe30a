"""The PostgreSQL schema and its migrations, one numbered step each, as SQLite's.

Tables carry a `plansight_` prefix so a team can keep them in a database (or schema) it
shares with other tools; every row belongs to a workspace.
"""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = 6

# Any number will do, as long as it is Plansight's: it serializes concurrent migrations.
_MIGRATION_LOCK = 0x706C616E73


def _steering_migration() -> list[str]:
    """Protocol 3, steering, as SQLite's migration 4: who created each task (every task
    from before is the agent's) and the version each session's agent last saw, a
    session from before counting as seen whole by its agent."""
    return [
        "ALTER TABLE plansight_tasks ADD COLUMN created_by TEXT NOT NULL DEFAULT 'agent'",
        "ALTER TABLE plansight_sessions ADD COLUMN agent_base BIGINT NOT NULL DEFAULT 0",
        "UPDATE plansight_sessions SET agent_base = version",
        "ALTER TABLE plansight_events ADD COLUMN agent_base BIGINT",
    ]


def _value_checks() -> list[str]:
    """Schema 4: a task's status, priority and creator are checked by the database, as
    SQLite's tables always did (a row any other writer puts in is refused, not read back
    as a task no client can draw). The lists are those of their time, as in every
    migration."""
    return [
        """
        ALTER TABLE plansight_tasks
            ADD CONSTRAINT plansight_tasks_status CHECK (status IN
                ('pending', 'in_progress', 'completed', 'abandoned', 'blocked')),
            ADD CONSTRAINT plansight_tasks_priority CHECK (priority IN ('high', 'medium', 'low')),
            ADD CONSTRAINT plansight_tasks_created_by CHECK (created_by IN ('agent', 'user'))
        """
    ]


_MIGRATIONS: dict[int, list[str]] = {
    1: [
        """
        CREATE TABLE plansight_sessions (
            workspace TEXT NOT NULL,
            name TEXT NOT NULL,
            version BIGINT NOT NULL,
            next_id BIGINT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (workspace, name)
        )
        """,
        "CREATE INDEX plansight_sessions_recent ON plansight_sessions (workspace, updated_at DESC)",
        """
        CREATE TABLE plansight_phases (
            workspace TEXT NOT NULL,
            session TEXT NOT NULL,
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (workspace, session, position),
            FOREIGN KEY (workspace, session) REFERENCES plansight_sessions ON DELETE CASCADE
        )
        """,
        """
        CREATE TABLE plansight_tasks (
            workspace TEXT NOT NULL,
            session TEXT NOT NULL,
            id TEXT NOT NULL,
            phase_position INTEGER NOT NULL,
            position INTEGER NOT NULL,
            content TEXT NOT NULL,
            active_form TEXT NOT NULL,
            status TEXT NOT NULL,
            notes TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            started_at TEXT,
            completed_at TEXT,
            PRIMARY KEY (workspace, session, id),
            FOREIGN KEY (workspace, session) REFERENCES plansight_sessions ON DELETE CASCADE
        )
        """,
        """
        CREATE TABLE plansight_events (
            seq BIGSERIAL PRIMARY KEY,
            workspace TEXT NOT NULL,
            session TEXT NOT NULL,
            version BIGINT NOT NULL,
            origin TEXT NOT NULL,
            method TEXT NOT NULL,
            request TEXT NOT NULL,
            completed TEXT NOT NULL,
            changes TEXT NOT NULL,
            writer TEXT NOT NULL,
            at TEXT NOT NULL,
            UNIQUE (workspace, session, version),
            FOREIGN KEY (workspace, session) REFERENCES plansight_sessions ON DELETE CASCADE
        )
        """,
        """
        CREATE TABLE plansight_context (
            workspace TEXT NOT NULL,
            session TEXT NOT NULL,
            rounds INTEGER NOT NULL,
            seen_version BIGINT NOT NULL,
            PRIMARY KEY (workspace, session)
        )
        """,
    ],
    # Protocol 2, as SQLite's migration 2: the task's new fields (a column each, named as
    # the Task field), session titles, and what the history needs (removed tasks,
    # auto-starts, the plan after each version).
    2: [
        """
        ALTER TABLE plansight_tasks
            ADD COLUMN description TEXT NOT NULL DEFAULT '',
            ADD COLUMN priority TEXT,
            ADD COLUMN blocked_by TEXT NOT NULL DEFAULT '[]',
            ADD COLUMN owner TEXT,
            ADD COLUMN files TEXT NOT NULL DEFAULT '[]',
            ADD COLUMN external_id TEXT,
            ADD COLUMN started_rank BIGINT NOT NULL DEFAULT 0
        """,
        "ALTER TABLE plansight_sessions ADD COLUMN title TEXT",
        """
        ALTER TABLE plansight_events
            ADD COLUMN removed TEXT NOT NULL DEFAULT '[]',
            ADD COLUMN auto_started TEXT NOT NULL DEFAULT '[]',
            ADD COLUMN snapshot TEXT
        """,
    ],
    3: _steering_migration(),
    4: _value_checks(),
    # Protocol 4, as SQLite's migration 7: the git checkout of each session's last agent
    # change, as JSON; NULL for every session from before.
    5: ["ALTER TABLE plansight_sessions ADD COLUMN checkout TEXT"],
    # Protocol 4, nested tasks, as SQLite's migration 8: each task's parent's id; NULL
    # (the top level) for every task from before.
    6: ["ALTER TABLE plansight_tasks ADD COLUMN parent TEXT"],
}


class NewerSchema(Exception):
    """The database was written by a newer Plansight."""


def migrate(db: Any) -> None:
    """Bring the database to SCHEMA_VERSION (`db`: a psycopg connection in autocommit).

    DDL is transactional in PostgreSQL: a migration is applied whole or not at all."""
    if _current(db) == SCHEMA_VERSION:
        return  # no lock, no DDL: a store role without CREATE rights opens it too
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        db.execute("CREATE TABLE IF NOT EXISTS plansight_schema (version INTEGER NOT NULL)")
        current = _current(db)  # another process may have migrated while we waited
        if current > SCHEMA_VERSION:
            raise NewerSchema(current)
        for version in range(current + 1, SCHEMA_VERSION + 1):
            for statement in _MIGRATIONS[version]:
                db.execute(statement)
            db.execute("INSERT INTO plansight_schema (version) VALUES (%s)", (version,))


def _current(db: Any) -> int:
    exists = db.execute("SELECT to_regclass('plansight_schema') IS NOT NULL").fetchone()[0]
    if not exists:
        return 0
    current = int(
        db.execute("SELECT coalesce(max(version), 0) FROM plansight_schema").fetchone()[0]
    )
    if current > SCHEMA_VERSION:
        raise NewerSchema(current)
    return current
