"""Steering (v3): the plan an agent last saw, kept in memory by the service
(`agent_view.py`), gives exactly the merge the history's plan gives, and is passed over
when it may no longer be that plan: another process's change, a restore, an undo, a
session made anew."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from plansight.agent_view import AgentBases
from plansight.bindings import CHANGES
from plansight.core.model import Phase, Plan, Task
from plansight.service import PlanService
from plansight.store import open_store
from plansight.store.base import TodoStore
from plansight.store.rules import HISTORY_DEPTH

Json = dict[str, Any]


def todo(content: str, status: str = "pending") -> Json:
    return {"content": content, "activeForm": f"Doing {content}", "status": status}


def user(*ops: Json) -> tuple[str, Json]:
    return "plansight/apply", {"ops": list(ops), "origin": "user"}


def write(*todos: Json) -> tuple[str, Json]:
    return "plansight/write", {"todos": list(todos)}


# Who sends each step: "ours" the service whose kept bases are tested, "other" a second
# process on the same store (its own store handle and service).
STORY: list[tuple[str, tuple[str, Json]]] = [
    ("ours", write(todo("A"), todo("B", "in_progress"), todo("C"))),
    ("ours", user({"op": "append", "phase": "Todos", "items": ["D"]}, {"op": "done", "task": "A"})),
    ("ours", write(todo("A"), todo("B", "in_progress"), todo("C"))),  # stale: merged
    ("ours", write(todo("A", "completed"), todo("B", "completed"), todo("C", "in_progress"))),
    ("ours", user({"op": "update", "task": "C", "content": "C2"}, {"op": "rm", "task": "D"})),
    (
        "ours",
        (
            "plansight/ingest",
            {
                "format": "claude-todowrite",
                "payload": {"todos": [todo("A"), todo("C", "in_progress"), todo("E")]},
            },
        ),
    ),
    ("ours", ("plansight/restore", {"version": 3, "origin": "user"})),
    ("ours", write(todo("A", "completed"), todo("C2", "in_progress"), todo("F"))),
    ("other", write(todo("A"), todo("G", "in_progress"))),  # another process's agent
    ("other", user({"op": "done", "task": "G"})),
    ("ours", write(todo("A", "completed"), todo("C2", "in_progress"), todo("H"))),
    ("ours", ("plansight/undo", {"origin": "user"})),
    ("ours", write(todo("A", "completed"), todo("H", "in_progress"), todo("I"))),
    ("ours", user({"op": "append", "phase": "Later", "items": ["J"]})),
    (
        "ours",
        (
            "plansight/apply",
            {"ops": [{"op": "init", "list": [{"phase": "Todos", "items": ["A", "H", "K"]}]}]},
        ),
    ),
    ("ours", user({"op": "done", "task": "K"})),
    ("ours", ("plansight/import", {"markdown": "# Plan\n\n## Todos\n- [ ] A\n- [ ] K\n"})),
    ("other", user({"op": "done", "task": "A"})),
    ("ours", write(todo("A"), todo("K", "in_progress"))),
    ("ours", ("plansight/clear", {"origin": "user"})),
    ("ours", write(todo("L", "in_progress"))),
]


@pytest.fixture
def stores(store_location: str) -> Iterator[tuple[TodoStore, TodoStore]]:
    """Two handles on one store: this process's and another's."""
    ours = open_store(store_location, workspace="steering")
    other = open_store(store_location, workspace="steering")
    yield ours, other
    ours.close()
    other.close()


def run(service: PlanService, session: str, step: tuple[str, Json]) -> Json:
    method, params = step
    request = {**params, "session": session}
    return CHANGES[method].answer(service, request).result


def seen(result: Json) -> Json:
    """What the result says, its times aside."""
    return {
        "version": result["version"],
        "title": result["title"],
        "summary": result["summary"],
        "current": (result["current"] or {}).get("id"),
        "phases": [
            (
                phase["name"],
                [
                    (t["id"], t["content"], t["status"], t["notes"], t["createdBy"])
                    for t in phase["tasks"]
                ],
            )
            for phase in result["phases"]
        ],
    }


def test_a_kept_base_merges_exactly_as_the_historys_plan(
    stores: tuple[TodoStore, TodoStore],
) -> None:
    """The story twice on one store: in one session through long-lived services (kept
    bases, and another process's changes they never saw), in another through a new
    service for every request (the base read from the history each time). Every answer
    is the same, and the merges of the long-lived service read no history."""
    ours_store, other_store = stores
    ours, other = PlanService(ours_store), PlanService(other_store)
    history_reads: list[int] = []
    read = ours_store.snapshot

    def counted(session: str, version: int) -> Any:
        history_reads.append(version)
        return read(session, version)

    ours_store.snapshot = counted  # type: ignore[method-assign]
    kept_lines = 0
    for number, (who, step) in enumerate(STORY, 1):
        history_reads.clear()
        kept = run(ours if who == "ours" else other, "kept", step)
        read_for_it = list(history_reads)
        fresh = run(PlanService(ours_store), "fresh", step)
        assert seen(kept) == seen(fresh), f"step {number}: {step}"
        if step[0] == "plansight/write" and "Kept the user's changes" in kept["summary"]:
            kept_lines += 1
            if who == "ours" and number != 11:  # 11: another process moved the base
                assert read_for_it == [], f"step {number} read the history"
    assert kept_lines >= 3  # the story merges, it does not only take the fast path


def test_a_base_another_process_moved_is_passed_over(
    stores: tuple[TodoStore, TodoStore],
) -> None:
    """This service keeps the plan of its agent's list; another process's agent writes
    (the base moves) and a person changes the plan. The next stale list is merged from
    the other process's base, as the history has it, not from the kept one."""
    ours_store, other_store = stores
    ours, other = PlanService(ours_store), PlanService(other_store)
    run(ours, "s", write(todo("A", "in_progress"), todo("B")))
    run(other, "s", write(todo("A", "in_progress"), todo("B"), todo("C")))
    run(other, "s", user({"op": "done", "task": "C"}))
    # Stale for the other process's base: C is the agent's, and the person completed it.
    result = run(ours, "s", write(todo("A", "in_progress"), todo("B"), todo("C")))
    statuses = {t["content"]: t["status"] for p in result["phases"] for t in p["tasks"]}
    assert statuses == {"A": "in_progress", "B": "pending", "C": "completed"}
    assert 'completed "C"' in result["summary"]


def task_a(created_at: str = "2026-01-01T00:00:00Z") -> Task:
    return Task("t1", "A", "Doing A", "pending", [], created_at, created_at)


def plan_of(session: str, version: int, *tasks: Task) -> Plan:
    return Plan(session, version=version, phases=[Phase("Todos", list(tasks))], next_id=9)


def test_a_session_made_anew_under_the_same_name_is_not_taken_for_the_kept_one() -> None:
    """A session pruned and made again reaches the kept version with other tasks."""
    bases = AgentBases()
    bases.keep(plan_of("s", 3, task_a()))
    again = plan_of("s", 5, task_a("2026-02-01T00:00:00Z"))
    assert bases.base(again, 3) is None
    assert bases.base(again, 3) is None  # and it was forgotten


def test_a_base_the_history_no_longer_lists_is_not_used() -> None:
    """The store has no plan that old: neither may the kept bases (rule 4's fallback)."""
    bases = AgentBases()
    task = task_a()
    bases.keep(plan_of("s", 3, task))
    assert bases.base(plan_of("s", 3 + HISTORY_DEPTH, task), 3) is not None
    assert bases.base(plan_of("s", 4 + HISTORY_DEPTH, task), 3) is None


def test_a_kept_base_keeps_its_tasks_when_the_plan_changes_in_place() -> None:
    """A person's `done` changes the store's working task in place: the kept base,
    which shared it, still has the task as the agent saw it."""
    bases = AgentBases()
    task = task_a()
    plan = plan_of("s", 3, task)
    bases.keep(plan)
    bases.before_change("s")
    task.set_status("completed", "2026-01-02T00:00:00Z")
    base = bases.base(plan_of("s", 4, task), 3)
    assert base is not None and [t.status for t in base.tasks()] == ["pending"]
