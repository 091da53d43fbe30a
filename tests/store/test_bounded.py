"""What the SQLite store does per call follows what is asked for, not what it stores:
reads that write nothing, and the per-call queries served by an index. (Memory bounded
to the sessions used last, and summaries from the tables: the store contract, on every
backend.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from plansight.protocol.requests import ApplyParams, ContextParams
from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore

Json = dict[str, Any]


def apply(service: PlanService, session: str, *ops: Json, origin: str = "agent") -> Json:
    request = {"session": session, "ops": list(ops), "origin": origin}
    return service.apply(ApplyParams.validate(request), request).result


def test_reading_the_unseen_changes_writes_nothing_when_there_are_none(
    service: PlanService, store: SqliteStore, store_path: Path
) -> None:
    apply(service, "s", {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]})
    apply(service, "s", {"op": "done", "id": "t1"}, origin="user")
    told = service.person_changes("s")  # once, and marked seen
    assert len(told) == 1 and '"a"' in told[0]
    with sqlite3.connect(store_path) as watcher:
        before = watcher.execute("PRAGMA data_version").fetchone()[0]
        for _ in range(5):
            assert service.person_changes("s") == []
        assert watcher.execute("PRAGMA data_version").fetchone()[0] == before
    # No round counted by them: the context call after is the first of its run.
    assert "Update your todos" not in service.context(ContextParams(session="s"))["text"]


def test_after_an_agents_own_change_the_look_for_a_persons_writes_nothing(
    service: PlanService, store_path: Path
) -> None:
    """`todo_write` and the like look for the person's changes after every write of the
    agent's: the agent's own change was marked seen in its commit, so the look is a read."""
    apply(service, "s", {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]})
    with sqlite3.connect(store_path) as watcher:
        for op in ({"op": "start", "id": "t2"}, {"op": "note", "text": "n"}):
            apply(service, "s", op)
            before = watcher.execute("PRAGMA data_version").fetchone()[0]
            assert service.person_changes("s") == []
            assert watcher.execute("PRAGMA data_version").fetchone()[0] == before


def test_what_runs_on_every_call_is_served_by_an_index(store: SqliteStore) -> None:
    service = PlanService(store)
    apply(service, "s", {"op": "init", "list": [{"phase": "P", "items": ["a"]}]})
    assert store._db is not None
    for query in (
        "SELECT 1 FROM events WHERE session = 's' AND seq > 5 LIMIT 1",
        "SELECT seq FROM events WHERE session = 's' AND seq > 5 ORDER BY seq",
        "SELECT max(seq) FROM events WHERE session = 's'",
        "SELECT 1 FROM events WHERE session = 's' AND origin = 'user' AND seq > 5",
    ):
        plan = " ".join(row[-1] for row in store._db.execute("EXPLAIN QUERY PLAN " + query))
        assert "events_by_session_seq" in plan and "SCAN" not in plan, (query, plan)
