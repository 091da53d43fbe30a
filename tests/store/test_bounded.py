"""What a store holds in memory and does per call follows what is asked for, not what
it stores: a bounded set of sessions, summaries from the tables, reads that write
nothing, and the per-call queries served by an index."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from plansight.protocol.requests import ApplyParams, ContextParams
from plansight.service import PlanService
from plansight.store.base import summary_of
from plansight.store.sqlite import KEPT_IN_MEMORY, SqliteStore
from plansight.wire import session_info_json

Json = dict[str, Any]


def apply(service: PlanService, session: str, *ops: Json, origin: str = "agent") -> Json:
    request = {"session": session, "ops": list(ops), "origin": origin}
    return service.apply(ApplyParams.validate(request), request).result


def test_the_summaries_say_what_the_whole_plans_say(
    service: PlanService, store: SqliteStore
) -> None:
    apply(service, "empty", {"op": "init", "list": [{"phase": "P", "items": ["a"]}]})
    apply(service, "empty", {"op": "rm", "phase": "P"})
    apply(
        service,
        "busy",
        {
            "op": "init",
            "list": [
                {"phase": "One", "items": ["a", {"content": "b", "status": "completed"}]},
                {"phase": "Two", "items": ["c", "d", {"content": "e", "status": "abandoned"}]},
            ],
        },
        {"op": "block", "id": "t3", "reason": "waits"},
        {"op": "update", "id": "t4", "owner": "other", "status": "in_progress"},
        {"op": "start", "id": "t1"},
    )
    # Waiting on an unfinished task, then on nothing left unfinished.
    apply(
        service,
        "waits",
        {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]},
        {"op": "update", "id": "t2", "blockedBy": ["t1"]},
        {"op": "start", "id": "t2"},
    )
    apply(
        service,
        "done",
        {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]},
        {"op": "update", "id": "t2", "blockedBy": ["t1"]},
        {"op": "done", "id": "t1"},
        {"op": "start", "id": "t2"},
    )
    listed = service.sessions()["sessions"]
    # Newest first; sessions written in the same millisecond follow their names.
    assert sorted(info["session"] for info in listed) == ["busy", "done", "empty", "waits"]
    assert listed[0]["session"] == "done" or listed[0]["updatedAt"] == listed[1]["updatedAt"]
    assert listed == [session_info_json(summary_of(plan)) for plan in store.sessions()]
    waits = next(info for info in listed if info["session"] == "waits")
    assert waits["current"]["waiting"] is True


def test_memory_keeps_only_the_sessions_used_last(service: PlanService, store: SqliteStore) -> None:
    names = [f"s{i}" for i in range(KEPT_IN_MEMORY * 2)]
    for name in names:
        apply(service, name, {"op": "init", "list": [{"phase": "P", "items": [name]}]})
    for name in names:
        assert [t.content for t in store.load(name).tasks()] == [name]
    for i in range(100):
        assert store.load(f"unknown {i}").version == 0
    service.sessions()
    assert len(store._plans) == KEPT_IN_MEMORY
    assert len(store._rows) == len(store._phase_names) == KEPT_IN_MEMORY
    # A session read again from the file after it left memory is changed as any other.
    apply(service, names[0], {"op": "done", "id": "t1"})
    assert [t.status for t in store.load(names[0]).tasks()] == ["completed"]
    assert store.load(names[0]).version == 2


def test_reading_the_unseen_changes_writes_nothing_when_there_are_none(
    service: PlanService, store: SqliteStore, store_path: Path
) -> None:
    apply(service, "s", {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]})
    apply(service, "s", {"op": "done", "id": "t1"}, origin="user")
    told = service.user_changes("s")  # once, and marked seen
    assert len(told) == 1 and '"a"' in told[0]
    with sqlite3.connect(store_path) as watcher:
        before = watcher.execute("PRAGMA data_version").fetchone()[0]
        for _ in range(5):
            assert service.user_changes("s") == []
        assert watcher.execute("PRAGMA data_version").fetchone()[0] == before
    # No round counted by them: the context call after is the first of its run.
    assert "Update your todos" not in service.context(ContextParams(session="s"))["text"]


def test_what_runs_on_every_call_is_served_by_an_index(store: SqliteStore) -> None:
    service = PlanService(store)
    apply(service, "s", {"op": "init", "list": [{"phase": "P", "items": ["a"]}]})
    assert store._db is not None
    for query in (
        "SELECT 1 FROM events WHERE session = 's' AND seq > 5 LIMIT 1",
        "SELECT seq FROM events WHERE session = 's' AND seq > 5 ORDER BY seq",
        "SELECT max(seq) FROM events WHERE session = 's'",
    ):
        plan = " ".join(row[-1] for row in store._db.execute("EXPLAIN QUERY PLAN " + query))
        assert "events_by_session_seq" in plan and "SCAN" not in plan, (query, plan)
