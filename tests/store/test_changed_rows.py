"""A change writes the rows of the tasks it changed, not the plan (issue 34 item 2), on
SQLite and PostgreSQL alike: a trigger another program could add counts every task row
inserted, updated or deleted by each change of a 200-task plan."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from plansight.core.settings import Settings
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import TodoStore, open_store
from plansight.store.base import ChangeEvent
from plansight.store.postgres import PostgresStore
from plansight.store.sqlite import SqliteStore

Json = dict[str, Any]

SQLITE_TRIGGERS = """
CREATE TABLE touched (id TEXT);
CREATE TRIGGER touched_insert AFTER INSERT ON tasks BEGIN INSERT INTO touched VALUES (NEW.id); END;
CREATE TRIGGER touched_update AFTER UPDATE ON tasks BEGIN INSERT INTO touched VALUES (NEW.id); END;
CREATE TRIGGER touched_delete AFTER DELETE ON tasks BEGIN INSERT INTO touched VALUES (OLD.id); END;
"""
POSTGRES_TRIGGERS = """
CREATE TABLE touched (id TEXT);
CREATE FUNCTION note_touched() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN INSERT INTO touched VALUES (OLD.id);
  ELSE INSERT INTO touched VALUES (NEW.id); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER touched AFTER INSERT OR UPDATE OR DELETE ON plansight_tasks
  FOR EACH ROW EXECUTE FUNCTION note_touched();
"""


@pytest.fixture
def store(store_location: str) -> Iterator[TodoStore]:
    opened = open_store(store_location, workspace="rows")
    yield opened
    opened.close()


class Touched:
    """The task rows written since the last `take`, read as another program would."""

    def __init__(self, store: TodoStore) -> None:
        self.store = store
        if isinstance(store, SqliteStore):
            with sqlite3.connect(store.path) as db:
                db.executescript(SQLITE_TRIGGERS)
        else:
            assert isinstance(store, PostgresStore)
            with psycopg.connect(store.url, autocommit=True) as pg:
                pg.execute(POSTGRES_TRIGGERS)

    def take(self) -> list[str]:
        if isinstance(self.store, SqliteStore):
            with sqlite3.connect(self.store.path) as db:
                ids = [row[0] for row in db.execute("SELECT id FROM touched")]
                db.execute("DELETE FROM touched")
                return sorted(ids)
        assert isinstance(self.store, PostgresStore)
        with psycopg.connect(self.store.url, autocommit=True) as pg:
            return sorted(row[0] for row in pg.execute("DELETE FROM touched RETURNING id"))


def apply(service: PlanService, *ops: Json) -> None:
    request = {"session": "big", "ops": list(ops)}
    outcome = service.apply(ApplyParams.validate(request), request)
    assert outcome.changed and not outcome.errors, outcome.summary


def test_a_change_writes_only_the_rows_of_the_tasks_it_changed(store: TodoStore) -> None:
    service = PlanService(store, Settings(max_tasks=1000))
    phases = [
        {"phase": f"Phase {p}", "items": [f"step {p}.{i}" for i in range(20)]} for p in range(10)
    ]
    apply(service, {"op": "init", "list": phases})  # t1 (step 0.0) is started
    touched = Touched(store)

    apply(service, {"op": "update", "id": "t150", "content": "step 7.9, renamed"})
    assert touched.take() == ["t150"]
    apply(service, {"op": "done", "id": "t1"})  # and t2 is started
    assert touched.take() == ["t1", "t2"]
    apply(service, {"op": "append", "phase": "Phase 4", "items": ["one more"]})
    assert touched.take() == ["t201"]
    apply(service, {"op": "note", "id": "t99", "text": "a note"})
    assert touched.take() == ["t99"]
    # A removal moves up the tasks after it in its phase (their positions), no others.
    apply(service, {"op": "rm", "id": "t198"})
    assert touched.take() == ["t198", "t199", "t200"]


def test_a_task_whose_id_changes_in_place_keeps_no_row_under_the_old_one(
    store: TodoStore, store_location: str
) -> None:
    """Of a phase holding the tasks it was written with, only the rows of the tasks whose
    marks moved are made again: one whose id moved leaves no row under the id it had."""
    service = PlanService(store, Settings(max_tasks=1000))
    apply(service, {"op": "init", "list": [{"phase": "A", "items": ["one", "two", "three"]}]})
    with store.edit("big", "agent", 100) as edit:
        edit.plan.phases[0].tasks[1].id = "t99"
        edit.commit(ChangeEvent("agent", "plansight/apply", {}))
    fresh = open_store(store_location, workspace="rows")
    try:
        assert [task.id for task in fresh.load("big").tasks()] == ["t1", "t99", "t3"]
    finally:
        fresh.close()
