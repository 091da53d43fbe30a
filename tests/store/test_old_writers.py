"""An older Plansight still running against a store a newer one migrated (issue 20 item
19) fails, and the store keeps what the newer one wrote: the guard is in the schema.

The old writer's statements are protocol 1's own, as `SqliteStore._write` and `edit` ran
them (git show 6586063:server/plansight/store/sqlite.py): one transaction that updates
the session, replaces the task rows it knows with `INSERT OR REPLACE` of its columns,
and logs the event without a plan."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore
from plansight.store.sqlite.schema import OLD_WRITER_REFUSED

V1_TASK_COLUMNS = (
    "id, phase_position, position, content, active_form, status, notes, "
    "created_at, updated_at, started_at, completed_at"
)


def protocol_1_commit(path: Path, session: str, task_id: str) -> None:
    """A change as a protocol 1 server commits it: it marks the task completed."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            version, next_id = db.execute(
                "SELECT version, next_id FROM sessions WHERE name = ?", (session,)
            ).fetchone()
            now = "2026-11-26T08:00:00.000Z"
            db.execute(
                "UPDATE sessions SET version = ?, next_id = ?, updated_at = ? WHERE name = ?",
                (version + 1, next_id, now, session),
            )
            db.executemany(
                f"INSERT OR REPLACE INTO tasks (session, {V1_TASK_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        session,
                        task_id,
                        0,
                        0,
                        "Ship",
                        "Shipping",
                        "completed",
                        "[]",
                        now,
                        now,
                        None,
                        now,
                    )
                ],
            )
            db.execute(
                "INSERT INTO events (session, version, origin, method, request, completed, "
                "changes, writer, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session, version + 1, "agent", "plansight/apply", "{}", "[]", "[]", "old", now),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    finally:
        db.close()


def test_an_old_writer_fails_and_the_store_keeps_the_new_fields(tmp_path: Path) -> None:
    path = tmp_path / "plans.sqlite3"
    store = SqliteStore(path)
    service = PlanService(store)
    ops = [
        {"op": "append", "phase": "Release", "items": ["Ship"]},
        {"op": "update", "id": "t1", "priority": "high", "owner": "ann", "description": "why"},
    ]
    request = {"session": "s", "ops": ops}
    service.apply(ApplyParams.validate(request), request)

    with pytest.raises(sqlite3.IntegrityError, match=OLD_WRITER_REFUSED):
        protocol_1_commit(path, "s", "t1")

    store.close()
    reopened = SqliteStore(path)
    try:
        plan = reopened.load("s")
        task = next(plan.tasks())
        assert (plan.version, task.status) == (1, "pending")
        assert (task.priority, task.owner, task.description) == ("high", "ann", "why")
        assert [e.version for e in reopened.events("s")] == [1]
        assert reopened.snapshot("s", 1) is not None
    finally:
        reopened.close()


def test_the_new_writer_is_not_refused_after_many_versions(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "plans.sqlite3")
    service = PlanService(store)
    try:
        for i in range(45):  # past two whole-plan stretches: older plans are let go
            request = {"session": "s", "ops": [{"op": "append", "items": [f"t{i}"]}]}
            service.apply(ApplyParams.validate(request), request)
        assert store.load("s").version == 45
    finally:
        store.close()
