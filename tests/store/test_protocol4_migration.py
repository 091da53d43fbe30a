"""A store written by Plansight at protocol 3 (SQLite schema 7, PostgreSQL schema 5) opens
at protocol 4 and keeps every plan and its history: each task at the top level (no
parent), every old version restorable, and a nested plan written after it reads back.

The protocol-3 store is a real one: `fixtures/stores/protocol3.sql` is the dump of a file
that Plansight at commit 02db213 (protocol 3) wrote through its own CLI (see
fixtures/stores/README.md)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg

from plansight.core.record import plan_from_record
from plansight.protocol.requests import GetParams, RestoreParams
from plansight.service import PlanService
from plansight.store import open_store
from plansight.store.base import ChangeEvent, TodoStore
from plansight.store.postgres.schema import _MIGRATIONS as PG_MIGRATIONS
from plansight.store.sqlite import SqliteStore

Json = dict[str, Any]
FIXTURE = Path(__file__).parent.parent / "fixtures" / "stores" / "protocol3.sql"
SESSION = "claude-code:aaaa1111"
PROTOCOL3_PG_SCHEMA = 5

# What the protocol-3 Plansight had in its store, read with that version's CLI.
PLAN_BEFORE = {
    "Todos": [
        ("Read the parser", "completed"),
        ("Fix the tokenizer", "in_progress"),
        ("Run the tests", "pending"),
        ("Update the changelog", "abandoned"),
    ],
    "Release": [("Tag v2", "pending")],
}


def make_protocol3_sqlite(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(FIXTURE.read_text(encoding="utf-8"))
    db.execute("PRAGMA user_version = 7")
    db.commit()
    db.close()


def make_protocol3_postgres(url: str) -> None:
    """A team store at schema 5 holding the same rows (the columns of both backends are
    named as the Task fields; a team store's rows carry a workspace besides)."""
    rows = sqlite3.connect(":memory:")
    rows.executescript(FIXTURE.read_text(encoding="utf-8"))
    with psycopg.connect(url, autocommit=True) as db, db.transaction():
        db.execute("CREATE TABLE plansight_schema (version INTEGER NOT NULL)")
        for version in range(1, PROTOCOL3_PG_SCHEMA + 1):
            for statement in PG_MIGRATIONS[version]:
                db.execute(statement)
            db.execute("INSERT INTO plansight_schema (version) VALUES (%s)", (version,))
        for table in ("sessions", "phases", "tasks", "events", "context"):
            cursor = rows.execute(f"SELECT * FROM {table}")
            names = [column[0] for column in cursor.description]
            marks = ", ".join(["%s"] * (len(names) + 1))
            for row in cursor:
                db.execute(
                    f"INSERT INTO plansight_{table} (workspace, {', '.join(names)}) "
                    f"VALUES ({marks})",
                    ("w", *row),
                )
        # The log's numbers were copied as they were: its sequence goes on after them.
        db.execute(
            "SELECT setval(pg_get_serial_sequence('plansight_events', 'seq'), max(seq)) "
            "FROM plansight_events"
        )


def plan_of(state: Json) -> dict[str, list[tuple[str, str]]]:
    return {
        phase["name"]: [(task["content"], task["status"]) for task in phase["tasks"]]
        for phase in state["phases"]
    }


def parents_of(state: Json) -> dict[str, str | None]:
    return {task["content"]: task["parent"] for phase in state["phases"] for task in phase["tasks"]}


def check_every_plan_and_version_kept(service: PlanService) -> None:
    state = service.get(GetParams.validate({"session": SESSION}))
    assert state["version"] == 5
    assert plan_of(state) == PLAN_BEFORE
    assert set(parents_of(state).values()) == {None}
    tokenizer = state["phases"][0]["tasks"][1]
    assert tokenizer["notes"] == ["mind the unicode case"]
    assert state["phases"][0]["tasks"][2]["blockedBy"] == [tokenizer["id"]]
    assert state["phases"][0]["tasks"][3]["createdBy"] == "user"
    other = service.get(GetParams.validate({"session": "codex:bbbb"}))
    assert plan_of(other) == {"Todos": [("Only task", "pending")]}
    # Every version the protocol-3 history kept is still restorable.
    request = {"session": SESSION, "version": 2, "origin": "user"}
    restored = service.restore(RestoreParams.validate(request), request).result
    assert plan_of(restored) == {
        "Todos": [
            ("Read the parser", "completed"),
            ("Fix the tokenizer", "in_progress"),
            ("Run the tests", "pending"),
            ("Update the changelog", "pending"),
        ]
    }


def keeps_a_parent(store: TodoStore) -> None:
    """A subtask committed after the migration reads back under its parent, also from a
    version's kept plan (history)."""
    with store.edit(SESSION, "user", 200) as edit:
        todos = edit.plan.phases[0].tasks
        todos[2].parent = todos[1].id  # "Run the tests" under "Fix the tokenizer"
        edit.commit(ChangeEvent("user", "plansight/apply", {}))
    parents = {task.content: task.parent for task in store.load(SESSION).tasks()}
    tokenizer = store.load(SESSION).phases[0].tasks[1].id
    assert parents["Run the tests"] == tokenizer
    assert [name for name, parent in parents.items() if parent] == ["Run the tests"]
    kept = store.snapshot(SESSION, store.load(SESSION).version)
    assert kept is not None
    # A record kept before the field existed lacks it: read back, it is the default.
    kept_plan = plan_from_record(SESSION, kept)
    assert [t.parent for t in kept_plan.phases[0].tasks] == [None, None, tokenizer, None]


def test_a_protocol3_sqlite_file_opens_and_keeps_every_plan_and_version(
    store_path: Path,
) -> None:
    make_protocol3_sqlite(store_path)
    store = SqliteStore(store_path)
    try:
        check_every_plan_and_version_kept(PlanService(store))
    finally:
        store.close()
    assert sqlite3.connect(store_path).execute("PRAGMA user_version").fetchone()[0] == 8


def test_a_protocol3_sqlite_file_keeps_a_parent_written_after_it(store_path: Path) -> None:
    make_protocol3_sqlite(store_path)
    store = SqliteStore(store_path)
    try:
        keeps_a_parent(store)
    finally:
        store.close()
    reopened = SqliteStore(store_path)
    try:
        assert [t.parent is not None for t in reopened.load(SESSION).tasks()].count(True) == 1
    finally:
        reopened.close()


def test_a_protocol3_postgres_database_opens_and_keeps_every_plan_and_version(
    postgres_url: str,
) -> None:
    make_protocol3_postgres(postgres_url)
    store = open_store(postgres_url, workspace="w")
    try:
        check_every_plan_and_version_kept(PlanService(store))
        keeps_a_parent(store)
    finally:
        store.close()
    with psycopg.connect(postgres_url, autocommit=True) as db:
        assert db.execute("SELECT max(version) FROM plansight_schema").fetchone()[0] == 6
        columns = {
            row[0]
            for row in db.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_name = 'plansight_tasks'"
            )
        }
        assert "parent" in columns
