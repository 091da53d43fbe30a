"""A store written by version 1 opens and is migrated in place; and a task's fields,
declared once in the model, reach the wire, the store and the encoder's cache key."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

from pydantic.alias_generators import to_camel

from plansight.core.model import TASK_FIELDS, WIRE_FIELDS, Phase, Plan, Task
from plansight.lsp.encoded import StateEncoder
from plansight.protocol.models import TaskModel
from plansight.protocol.requests import ApplyParams, WriteParams
from plansight.service import PlanService
from plansight.store.base import ChangeEvent
from plansight.store.sqlite import SqliteStore
from plansight.store.sqlite.schema import _MIGRATIONS, SCHEMA_VERSION
from plansight.wire import task_json

V1_TASK = (
    "s", "t1", 0, 0, "Run the build", "Running the build", "in_progress", '["a note"]',
    "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:01.000Z", "2026-01-01T00:00:01.000Z", None,
)  # fmt: skip


def make_v1_store(path: Path) -> None:
    """A file exactly as Plansight 1 left it: its schema, its rows, user_version 1."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(_MIGRATIONS[1])
    db.execute(
        "INSERT INTO sessions VALUES ('s', 1, 3, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z')"
    )
    db.execute("INSERT INTO phases VALUES ('s', 0, 'Build')")
    db.execute("INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", V1_TASK)
    db.execute(
        "INSERT INTO tasks VALUES ('s', 't2', 0, 1, 'Ship', 'Shipping', 'pending', '[]', "
        "'2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', NULL, NULL)"
    )
    db.execute(
        "INSERT INTO events (session, version, origin, method, request, completed, changes, writer, at) "
        "VALUES ('s', 1, 'agent', 'plansight/apply', '{}', '[]', '[]', 'old', '2026-01-01T00:00:01.000Z')"
    )
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()


def test_a_version_1_store_is_migrated_in_place_and_keeps_everything(store_path: Path) -> None:
    make_v1_store(store_path)
    store = SqliteStore(store_path)
    try:
        plan = store.load("s")
        assert (plan.version, plan.title, plan.next_id) == (1, None, 3)
        build, _ship = plan.phases[0].tasks
        assert (build.id, build.content, build.status, build.notes) == (
            "t1", "Run the build", "in_progress", ["a note"],
        )  # fmt: skip
        assert (build.description, build.priority, build.blocked_by, build.files) == (
            "",
            None,
            [],
            [],
        )
        assert plan.current() is build
        service = PlanService(store)
        request = {"session": "s", "ops": [{"op": "block", "task": "Ship"}]}
        result = service.apply(ApplyParams.validate(request), request).result
        assert result["version"] == 2
        assert result["phases"][0]["tasks"][1]["status"] == "blocked"
        # Versions from before the migration kept no plan: history starts after it.
        assert [e.version for e in store.history("s", 10)] == [2]
    finally:
        store.close()
    db = sqlite3.connect(store_path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
    reopened = SqliteStore(store_path)
    assert reopened.load("s").phases[0].tasks[1].status == "blocked"
    reopened.close()


# ---------------------------------------------------------------- one list of fields


def distinct_values(task: Task) -> Task:
    """`task` with every field set to a value no other field of it holds."""
    changed = task.copy()
    for name in TASK_FIELDS:
        value = getattr(task, name)
        if name == "id":
            continue
        if isinstance(value, list):
            setattr(changed, name, [*value, f"{name}-x"])
        elif isinstance(value, int):
            setattr(changed, name, value + 7)
        elif name == "priority":
            setattr(changed, name, "low")
        elif name == "status":
            setattr(changed, name, "blocked")
        elif name == "created_by":
            setattr(changed, name, "user")
        else:
            setattr(changed, name, f"{name}-x")
    return changed


def sample_task() -> Task:
    return Task(
        "t1", "a", "A", "pending", [], "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"
    )


def test_every_wire_field_of_the_model_is_in_the_wire_model_and_sent() -> None:
    wire = {to_camel(name) for name in WIRE_FIELDS} | {"waiting"}
    assert wire == {field.alias or name for name, field in TaskModel.model_fields.items()}
    assert set(task_json(sample_task())) == wire


def test_every_field_of_the_model_has_a_store_column_and_survives_a_restart(
    store_path: Path,
) -> None:
    store = SqliteStore(store_path)
    task = distinct_values(sample_task())
    with store.edit("s", "agent", 200) as edit:  # the store's file is made by its first change
        edit.plan.phases = [Phase("P", [task])]
        edit.commit(ChangeEvent("agent", "plansight/apply", {}))
    assert store._db is not None
    columns = {row[1] for row in store._db.execute("PRAGMA table_info(tasks)")}
    assert set(TASK_FIELDS) <= columns
    store.close()
    reopened = SqliteStore(store_path)
    assert reopened.load("s").phases[0].tasks[0] == task
    record = reopened.snapshot("s", 1)
    assert record is not None
    assert record["phases"][0]["tasks"][0] == json.loads(json.dumps(dataclasses.asdict(task)))
    reopened.close()


def test_a_change_to_any_field_changes_what_the_encoder_sends() -> None:
    encoder = StateEncoder()
    plan = Plan("s", phases=[Phase("P", [sample_task()])])
    before = encoder.state(plan)
    for name in TASK_FIELDS:
        if name == "id":
            continue
        plan.phases[0].tasks[0] = task = sample_task()
        setattr(task, name, getattr(distinct_values(task), name))
        if name in WIRE_FIELDS:
            assert encoder.state(plan) != before, name


def test_steering_migration_makes_every_earlier_task_the_agents_and_its_view_current(
    store_path: Path,
) -> None:
    make_v1_store(store_path)
    store = SqliteStore(store_path)
    try:
        assert [t.created_by for t in store.load("s").tasks()] == ["agent", "agent"]
        with store.edit("s", "agent", 200) as edit:
            # The agent saw the plan as it was: a base of 0 would keep every old task.
            assert edit.agent_base == 1
        # An agent's full list that drops an old task removes it, as before v3.
        request = {
            "session": "s",
            "todos": [{"content": "Ship", "activeForm": "S", "status": "pending"}],
        }
        result = PlanService(store).write(WriteParams.validate(request), request).result
        assert [r["content"] for r in result["removedTasks"]] == ["Run the build"]
    finally:
        store.close()
