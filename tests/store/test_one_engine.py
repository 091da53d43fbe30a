"""One store engine over two dialects: what the backends once did each their own way
(the history kept, the values a task row may hold, the agent's seen cursor) is the same
on both, and stores made by the older schemas are brought to it in place."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest

from plansight.core.record import plan_record
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import TodoStore, open_store
from plansight.store.postgres import PostgresStore
from plansight.store.postgres.schema import _MIGRATIONS as PG_MIGRATIONS
from plansight.store.rules import HISTORY_DEPTH
from plansight.store.snapshots import FULL_PLAN_EVERY
from plansight.store.sqlite import SqliteStore
from plansight.store.sqlite.schema import _MIGRATIONS, SCHEMA_VERSION

Json = dict[str, Any]
EMPTY_PLAN = json.dumps({"title": None, "nextId": 1, "phases": []})


def apply(service: PlanService, *ops: Json, session: str = "default") -> Json:
    request = {"session": session, "ops": list(ops)}
    outcome = service.apply(ApplyParams.validate(request), request)
    assert outcome.plan is not None
    committed: Json = json.loads(json.dumps(plan_record(outcome.plan)))
    committed["version"] = outcome.plan.version
    return committed


def raw(store: TodoStore, query: str, *args: Any) -> list[tuple[Any, ...]]:
    """A statement run on the store's database as another program would, with `?`
    placeholders on both backends; SQLite's table names, PostgreSQL's prefixed."""
    if isinstance(store, SqliteStore):
        with sqlite3.connect(store.path) as db:
            return db.execute(query, args).fetchall()
    assert isinstance(store, PostgresStore)
    for table in ("sessions", "tasks", "events", "context"):
        query = query.replace(f" {table} ", f" plansight_{table} ")
    with psycopg.connect(store.url, autocommit=True) as pg:
        cursor = pg.execute(query.replace("?", "%s"), args)
        return cursor.fetchall() if cursor.description else []


@pytest.fixture
def store(store_location: str) -> Any:
    opened = open_store(store_location, workspace="engine")
    yield opened
    opened.close()


def test_history_is_kept_alike_on_both_backends(store: TodoStore) -> None:
    """Whole plans every FULL_PLAN_EVERY-th version (and the first), the change alone
    between them, the stretches no kept version needs dropped; every kept version reads
    back as the plan committed at it. (PostgreSQL kept every version's whole plan.)"""
    service = PlanService(store)
    first = apply(service, {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]})
    committed = {first.pop("version"): first}
    for i in range(HISTORY_DEPTH + 2 * FULL_PLAN_EVERY):
        plan = apply(service, {"op": "update", "id": f"t{1 + i % 2}", "description": f"d{i}"})
        committed[plan.pop("version")] = plan
    latest = max(committed)
    assert latest == len(committed)
    kept = {
        version: json.loads(text)
        for version, text in raw(
            store,
            "SELECT version, snapshot FROM events WHERE session = 'default' "
            "AND snapshot IS NOT NULL",
        )
    }
    whole = sorted(v for v, record in kept.items() if "phases" in record)
    assert whole == [v for v in sorted(kept) if v % FULL_PLAN_EVERY == 0]
    assert min(kept) == (latest - HISTORY_DEPTH) // FULL_PLAN_EVERY * FULL_PLAN_EVERY
    for version, plan in committed.items():
        read = store.snapshot("default", version)
        assert read == (plan if version >= latest - HISTORY_DEPTH else None), version


@pytest.mark.parametrize(
    ("column", "value"),
    [("status", "done"), ("priority", "urgent"), ("created_by", "robot")],
)
def test_a_task_row_holds_only_the_contracts_values(
    store: TodoStore, column: str, value: str
) -> None:
    """The database itself refuses a status, priority or creator the contract does not
    know, on both backends (PostgreSQL had no CHECK)."""
    apply(PlanService(store), {"op": "append", "items": ["a"]})
    with pytest.raises((sqlite3.IntegrityError, psycopg.errors.CheckViolation)):
        raw(store, f"UPDATE tasks SET {column} = ? WHERE id = 't1'", value)


def test_the_seen_cursor_is_the_seen_version_on_both_backends(store: TodoStore) -> None:
    service = PlanService(store)
    apply(service, {"op": "append", "items": ["a", "b"]})
    apply(service, {"op": "start", "id": "t1"}, session="other")  # moves the log's seq
    request = {"ops": [{"op": "done", "id": "t1"}], "origin": "user"}
    service.apply(ApplyParams.validate(request), request)
    assert [c.version for c in store.unseen_changes("default")] == [2]
    ((seen,),) = raw(store, "SELECT seen_version FROM context WHERE session = 'default'")
    assert seen == 2
    assert store.unseen_changes("default") == []


def _store_at_schema(path: Path, version: int) -> sqlite3.Connection:
    """An SQLite file made by the numbered migrations up to `version`, as the Plansight
    of that schema made it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    for number in range(1, version + 1):
        step = _MIGRATIONS[number]
        if callable(step):
            step(db)
        else:
            db.executescript(step)
    db.execute(f"PRAGMA user_version = {version}")
    return db


def test_a_schema_5_store_keeps_what_its_agent_has_seen(store_path: Path) -> None:
    """Schema 5 counted the seen cursor in the log's sequence numbers; migrated, it counts
    the session's versions and still says which changes the agent has not heard of."""
    db = _store_at_schema(store_path, 5)
    at = "2026-01-01T00:00:00.000Z"
    for name in ("a", "b"):
        db.execute(
            "INSERT INTO sessions (name, version, next_id, created_at, updated_at, agent_base) "
            "VALUES (?, 3, 1, ?, ?, 3)",
            (name, at, at),
        )
    for version in (1, 2, 3):  # interleaved: b's version v is seq 2v
        for name in ("a", "b"):
            db.execute(
                "INSERT INTO events (session, version, origin, method, request, completed, "
                "changes, writer, at, snapshot) VALUES (?, ?, 'user', 'plansight/apply', '{}', "
                "'[]', '[\"changed\"]', 'old', ?, ?)",
                (name, version, at, EMPTY_PLAN),
            )
    db.execute("INSERT INTO context (session, rounds, seen_seq) VALUES ('b', 1, 4)")
    db.execute("INSERT INTO context (session, rounds, seen_seq) VALUES ('a', 0, 5)")
    db.commit()
    db.close()
    store = SqliteStore(store_path)
    try:
        assert [c.version for c in store.unseen_changes("b")] == [3]
        assert [c.version for c in store.unseen_changes("a")] == []
    finally:
        store.close()
    with sqlite3.connect(store_path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        columns = [row[1] for row in db.execute("PRAGMA table_info(context)")]
        assert "seen_seq" not in columns
        assert dict(db.execute("SELECT session, seen_version FROM context")) == {"a": 3, "b": 3}


def test_a_schema_3_team_store_gets_its_checks_and_keeps_its_rows(postgres_url: str) -> None:
    """A PostgreSQL store made by schema 3 (no CHECKs, every plan kept whole) is migrated
    when opened; its tasks and its history read back as they were."""
    at = "2026-01-01T00:00:00.000Z"
    record = {"title": None, "nextId": 2, "phases": [{"name": "P", "tasks": []}]}
    with psycopg.connect(postgres_url, autocommit=True) as pg:
        pg.execute("CREATE TABLE plansight_schema (version INTEGER NOT NULL)")
        for number in (1, 2, 3):
            for statement in PG_MIGRATIONS[number]:
                pg.execute(statement)
            pg.execute("INSERT INTO plansight_schema (version) VALUES (%s)", (number,))
        pg.execute(
            "INSERT INTO plansight_sessions (workspace, name, version, next_id, created_at, "
            "updated_at, agent_base) VALUES ('engine', 's', 1, 2, %s, %s, 1)",
            (at, at),
        )
        pg.execute("INSERT INTO plansight_phases VALUES ('engine', 's', 0, 'P')")
        pg.execute(
            "INSERT INTO plansight_events (workspace, session, version, origin, method, "
            "request, completed, changes, writer, at, snapshot) VALUES ('engine', 's', 1, "
            "'agent', 'plansight/apply', '{}', '[]', '[]', 'old', %s, %s)",
            (at, json.dumps(record)),
        )
    store = open_store(postgres_url, workspace="engine")
    try:
        assert store.snapshot("s", 1) == record
        plan = apply(PlanService(store), {"op": "append", "items": ["a"]}, session="s")
        assert plan.pop("version") == 2 and store.snapshot("s", 2) == plan
        with pytest.raises(psycopg.errors.CheckViolation):
            raw(store, "UPDATE tasks SET status = 'done' WHERE session = 's'")
    finally:
        store.close()


def test_counting_rounds_of_a_session_that_does_not_exist_stores_nothing(
    store: TodoStore,
) -> None:
    """As the contract reads it (PostgreSQL kept a row and counted on)."""
    apply(PlanService(store), {"op": "append", "items": ["a"]})
    assert store.context_round("ghost") == (1, [])
    assert store.context_round("ghost") == (1, [])
    assert raw(store, "SELECT count(*) FROM context WHERE session = 'ghost'") == [(0,)]
