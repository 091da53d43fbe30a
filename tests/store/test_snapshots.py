"""The plan kept per version: most versions keep only what changed, and every kept
version still reads back as exactly the plan committed at it."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

from plansight.core.errors import RequestRefused
from plansight.core.record import plan_record
from plansight.protocol.requests import ApplyParams, WriteParams
from plansight.service import Outcome, PlanService
from plansight.store.rules import HISTORY_DEPTH
from plansight.store.snapshots import FULL_PLAN_EVERY
from plansight.store.sqlite import SqliteStore

from .test_schema_v2 import make_v1_store

Json = dict[str, Any]


def apply(service: PlanService, *ops: Json) -> Json:
    request = {"ops": list(ops)}
    return committed(service.apply(ApplyParams.validate(request), request))


def committed(outcome: Outcome) -> Json:
    assert outcome.plan is not None
    return json.loads(json.dumps(plan_record(outcome.plan)))


def some_change(service: PlanService, rng: random.Random, n: int) -> Json:
    """One of the changes agents and people make: tasks added, started, finished,
    dropped, blocked, noted, updated, removed; phases removed; the whole list written
    again in another order (every task moves)."""
    task = f"t{rng.randint(1, n)}"
    if rng.random() < 0.1:
        plan = service.store.load("default")
        todos = [
            {
                "content": t.content,
                "activeForm": t.active_form,
                "status": t.status if t.status != "blocked" else "pending",
            }
            for t in plan.tasks()
            if t.status != "abandoned"
        ]
        rng.shuffle(todos)
        request = {
            "todos": [*todos, {"content": f"w{n}", "activeForm": f"w{n}", "status": "pending"}]
        }
        return committed(service.write(WriteParams.validate(request), request))
    return apply(
        service,
        rng.choice(
            [
                {"op": "append", "phase": rng.choice("PQR"), "items": [f"task {n}"]},
                {"op": "start", "id": task},
                {"op": "done", "id": task},
                {"op": "drop", "id": task},
                {"op": "block", "id": task, "reason": f"waits {n}"},
                {"op": "note", "id": task, "text": f"note {n}\nline"},
                {"op": "rm", "id": task},
                {"op": "rm", "phase": rng.choice("QR")},
                {"op": "update", "id": task, "priority": "high", "owner": f"o{n}"},
            ]
        ),
    )


def test_every_kept_version_reads_back_as_the_plan_committed_at_it(
    service: PlanService, store: SqliteStore
) -> None:
    rng = random.Random(15)
    kept = {1: apply(service, {"op": "init", "list": [{"phase": "P", "items": ["a"]}]})}
    n = 1
    while len(kept) < HISTORY_DEPTH + 3 * FULL_PLAN_EVERY:
        n += 1
        try:
            record = some_change(service, rng, n)
        except RequestRefused:  # an unknown task: nothing committed
            continue
        kept[store.load("default").version] = record
    latest = store.load("default").version
    assert latest > HISTORY_DEPTH + FULL_PLAN_EVERY
    for version, record in kept.items():
        read = store.snapshot("default", version)
        if version >= latest - HISTORY_DEPTH:
            assert read == record, version
        else:
            assert read is None, version


def test_most_versions_keep_only_their_change_and_old_plans_are_dropped(
    service: PlanService, store: SqliteStore
) -> None:
    apply(service, {"op": "init", "list": [{"phase": "P", "items": [f"t{i}" for i in range(20)]}]})
    for i in range(HISTORY_DEPTH + 2 * FULL_PLAN_EVERY):
        apply(service, {"op": "note", "task": f"t{1 + i % 20}", "text": f"n{i}"})
    assert store._db is not None
    sizes = dict(
        store._db.execute(
            "SELECT version, length(snapshot) FROM events WHERE session = 'default' "
            "AND snapshot IS NOT NULL"
        ).fetchall()
    )
    latest = store.load("default").version
    whole = [v for v in sizes if v % FULL_PLAN_EVERY == 0]
    changes = [size for v, size in sizes.items() if v % FULL_PLAN_EVERY]
    assert max(changes) * 5 < min(sizes[v] for v in whole)
    # Kept: the newest HISTORY_DEPTH + 1 plans and what they are read from, no more.
    assert min(sizes) == (latest - HISTORY_DEPTH) // FULL_PLAN_EVERY * FULL_PLAN_EVERY
    assert len(sizes) <= HISTORY_DEPTH + 1 + FULL_PLAN_EVERY


def test_the_first_change_after_a_migration_keeps_its_whole_plan(store_path: Path) -> None:
    make_v1_store(store_path)  # version 1 of session "s", kept without a plan
    store = SqliteStore(store_path)
    service = PlanService(store)
    request = {"session": "s", "ops": [{"op": "done", "id": "t1"}]}
    outcome = service.apply(ApplyParams.validate(request), request)
    assert outcome.changed and outcome.plan is not None
    expected = json.loads(json.dumps(plan_record(outcome.plan)))
    assert store.snapshot("s", 1) is None  # written before plans were kept
    assert store.snapshot("s", 2) == expected
    store.close()
    with sqlite3.connect(store_path) as db:
        (text,) = db.execute("SELECT snapshot FROM events WHERE version = 2").fetchone()
    assert "phases" in json.loads(text)
