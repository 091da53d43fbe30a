"""Steering (v3): an agent's whole list, sent from a copy that missed what a person
changed, is merged with it by the contract's six rules; the agent is told what was kept;
a person's stale edit is merged or refused with its conflicts; a person's change never
starts a task. Run through the service on both backends: the base lives in the store."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from plansight.core.errors import VersionConflict
from plansight.core.model import Phase, Plan, Task
from plansight.core.steering import KEPT_LINE, merge
from plansight.protocol.requests import ContextParams, IngestParams
from plansight.service import PlanService
from plansight.store import open_store

from .conftest import Json, Request

NOW = "2026-01-01T00:00:00.000Z"


@pytest.fixture
def service(store_location: str) -> Iterator[PlanService]:
    """The agent's base lives in the store: these run on every backend."""
    store = open_store(store_location, workspace="steering")
    yield PlanService(store)
    store.close()


def todo(content: str, status: str = "pending", **extra: Any) -> Json:
    return {"content": content, "activeForm": f"Doing {content}", "status": status, **extra}


def tasks(result: Json) -> list[tuple[str, str, str]]:
    """(phase, content, status) of every task, in plan order."""
    return [
        (phase["name"], task["content"], task["status"])
        for phase in result["phases"]
        for task in phase["tasks"]
    ]


def kept_line(result: Json) -> str | None:
    return next(
        (line for line in result["summary"].split("\n") if line.startswith(KEPT_LINE)), None
    )


def ingest(service: PlanService, fmt: str, payload: Json, **params: Any) -> Json:
    request = {"format": fmt, "payload": payload, **params}
    return service.ingest(IngestParams.validate(request), request).result


def context(service: PlanService) -> str:
    text: str = service.context(ContextParams.validate({}))["text"]
    return text


# ---------------------------------------------------------------- the story of issue 21


def test_a_stale_write_keeps_what_the_person_added_and_completed(
    write: Request, apply: Request
) -> None:
    write([todo("A", "in_progress"), todo("B")])
    apply({"op": "append", "phase": "Todos", "items": ["C"]}, origin="user")
    apply({"op": "done", "task": "B"}, origin="user")

    result = write([todo("A", "in_progress"), todo("B")])  # the agent's copy: no C, B pending

    assert tasks(result) == [
        ("Todos", "A", "in_progress"),
        ("Todos", "B", "completed"),
        ("Todos", "C", "pending"),
    ]
    assert result["removedTasks"] == []
    assert kept_line(result) == KEPT_LINE + 'completed "B"; added "C" to phase "Todos"'
    # Right under the progress line.
    assert result["summary"].split("\n")[1] == kept_line(result)
    [created_by] = [
        t["createdBy"] for p in result["phases"] for t in p["tasks"] if t["content"] == "C"
    ]
    assert created_by == "user"


def test_the_agents_next_list_without_the_persons_task_still_keeps_it(
    write: Request, apply: Request
) -> None:
    write([todo("A", "in_progress"), todo("B")])
    apply({"op": "append", "phase": "Todos", "items": ["C"]}, origin="user")
    write([todo("A", "in_progress"), todo("B")])  # told: its base moves

    result = write([todo("A", "completed"), todo("B", "in_progress")])

    assert tasks(result) == [
        ("Todos", "A", "completed"),
        ("Todos", "B", "in_progress"),
        ("Todos", "C", "pending"),  # rule 4: a person's task, never removed by a list
    ]
    assert result["removedTasks"] == []


def test_a_task_the_person_removed_stays_removed(write: Request, apply: Request) -> None:
    write([todo("A", "in_progress"), todo("B")])
    apply({"op": "rm", "task": "B"}, origin="user")

    result = write([todo("A", "in_progress"), todo("B")])

    assert tasks(result) == [("Todos", "A", "in_progress")]
    assert kept_line(result) == KEPT_LINE + 'removed "B"'


def test_a_task_the_agent_created_and_left_out_is_removed_as_before(
    write: Request, apply: Request
) -> None:
    write([todo("A", "in_progress"), todo("B")])
    apply({"op": "done", "task": "A"}, origin="user")

    result = write([todo("A", "in_progress")])  # drops B, its own task (rule 3)

    assert tasks(result) == [("Todos", "A", "completed")]
    assert [r["content"] for r in result["removedTasks"]] == ["B"]
    assert 'Removed 1 unfinished task: "B"' in result["summary"]


def test_the_agents_own_change_wins_over_its_base_and_a_persons_other_fields_survive(
    write: Request, apply: Request
) -> None:
    write([todo("A", "in_progress"), todo("B")])
    apply({"op": "update", "task": "B", "priority": "high", "description": "why"}, origin="user")
    apply({"op": "done", "task": "A"}, origin="user")

    # The agent changes A back to in progress... no: it starts B, and A stays as it saw it.
    result = write([todo("A", "in_progress"), todo("B", "completed")])

    b = result["phases"][0]["tasks"][1]
    assert (b["status"], b["priority"], b["description"]) == ("completed", "high", "why")
    assert result["phases"][0]["tasks"][0]["status"] == "completed"


def test_a_context_answer_moves_the_base(
    service: PlanService, write: Request, apply: Request
) -> None:
    write([todo("A", "in_progress"), todo("B")])
    apply({"op": "done", "task": "B"}, origin="user")
    assert 'completed "B"' in context(service)  # the agent is told

    result = write([todo("A", "in_progress"), todo("B")])  # so this pending is its own call

    assert tasks(result)[1] == ("Todos", "B", "pending")
    assert kept_line(result) is None


def test_the_kept_line_tells_once_then_context_has_nothing_new(
    service: PlanService, write: Request, apply: Request
) -> None:
    write([todo("A", "in_progress")])
    apply({"op": "append", "phase": "Todos", "items": ["C"]}, origin="user")
    assert kept_line(write([todo("A", "in_progress")])) is not None

    assert "<system-reminder>" not in context(service)


def test_a_merge_that_changes_nothing_still_tells_and_moves_the_base(
    service: PlanService, write: Request, apply: Request
) -> None:
    write([todo("A", "in_progress"), todo("B")])
    apply({"op": "done", "task": "B"}, origin="user")

    result = write([todo("A", "in_progress"), todo("B")])

    assert result["changed"] is False
    assert kept_line(result) == KEPT_LINE + 'completed "B"'
    # Told: a pending B now is the agent's own decision.
    assert tasks(write([todo("A", "in_progress"), todo("B")]))[1][2] == "pending"


def test_with_no_person_change_a_write_is_exactly_v2(write: Request) -> None:
    write([todo("A", "in_progress"), todo("B")])

    result = write([todo("B", "in_progress"), todo("D")])

    assert tasks(result) == [("Todos", "B", "in_progress"), ("Todos", "D", "pending")]
    assert [r["content"] for r in result["removedTasks"]] == ["A"]
    assert kept_line(result) is None


def test_a_kept_task_stays_in_its_phase_after_the_task_before_it(
    write: Request, apply: Request
) -> None:
    write([todo("A", "in_progress", phase="P"), todo("B", phase="P"), todo("E", phase="Q")])
    apply({"op": "append", "phase": "P", "items": ["C"]}, origin="user")
    apply({"op": "append", "phase": "R", "items": ["F"]}, origin="user")
    apply({"op": "update", "task": "C", "status": "pending"}, origin="user")

    result = write(
        [todo("A", "in_progress", phase="P"), todo("E", phase="Q"), todo("B", phase="P")]
    )

    assert tasks(result) == [
        ("P", "A", "in_progress"),
        ("P", "B", "pending"),
        ("P", "C", "pending"),
        ("Q", "E", "pending"),
        ("R", "F", "pending"),  # a phase the list lacks: after the phase before it
    ]


# ---------------------------------------------------------------- every full replacement


def test_an_agents_todowrite_through_ingest_is_merged(service: PlanService, apply: Request) -> None:
    payload = {"todos": [todo("A", "in_progress"), todo("B")]}
    ingest(service, "claude-todowrite", payload)
    apply({"op": "append", "phase": "Todos", "items": ["C"]}, origin="user")
    apply({"op": "done", "task": "B"}, origin="user")

    result = ingest(service, "claude-todowrite", payload)

    assert tasks(result) == [
        ("Todos", "A", "in_progress"),
        ("Todos", "B", "completed"),
        ("Todos", "C", "pending"),
    ]
    assert kept_line(result) == KEPT_LINE + 'completed "B"; added "C" to phase "Todos"'


def test_codex_and_gemini_lists_are_merged(service: PlanService, apply: Request) -> None:
    codex = {"plan": [{"step": "A", "status": "in_progress"}, {"step": "B", "status": "pending"}]}
    ingest(service, "codex-plan", codex, session="codex")
    apply({"op": "done", "task": "B"}, origin="user", session="codex")
    assert tasks(ingest(service, "codex-plan", codex, session="codex"))[1][2] == "completed"

    gemini = {"todos": [{"description": "A", "status": "in_progress"}]}
    ingest(service, "gemini-todos", gemini, session="gemini")
    apply({"op": "append", "phase": "Todos", "items": ["C"]}, origin="user", session="gemini")
    result = ingest(service, "gemini-todos", gemini, session="gemini")
    assert [t[1] for t in tasks(result)] == ["A", "C"]


def test_an_agents_markdown_import_is_merged(
    service: PlanService, import_markdown: Request, apply: Request
) -> None:
    import_markdown("## P\n- [/] A\n- [ ] B\n")
    apply({"op": "done", "task": "B"}, origin="user")
    apply({"op": "append", "phase": "P", "items": ["C"]}, origin="user")

    result = import_markdown("## P\n- [/] A\n- [ ] B\n")

    assert tasks(result) == [
        ("P", "A", "in_progress"),
        ("P", "B", "completed"),
        ("P", "C", "pending"),
    ]
    assert kept_line(result) is not None


def test_an_agents_init_is_merged_and_makes_its_tasks_anew(apply: Request) -> None:
    first = apply({"op": "init", "list": [{"phase": "P", "items": ["A", "B"]}]})
    old_ids = [t["id"] for t in first["phases"][0]["tasks"]]
    apply({"op": "done", "task": "B"}, origin="user")
    apply({"op": "append", "phase": "P", "items": ["C"]}, origin="user")

    result = apply({"op": "init", "list": [{"phase": "P", "items": ["A", "B"]}]})

    assert tasks(result) == [
        ("P", "A", "in_progress"),
        ("P", "B", "completed"),
        ("P", "C", "pending"),
    ]
    ids = [t["id"] for t in result["phases"][0]["tasks"]]
    assert ids[0] not in old_ids and ids[1] not in old_ids  # made anew
    assert [t["createdBy"] for t in result["phases"][0]["tasks"]] == ["agent", "agent", "user"]
    assert kept_line(result) == KEPT_LINE + 'completed "B"; added "C" to phase "P"'


# ---------------------------------------------------------------- createdBy


def test_created_by_follows_the_origin_and_a_restore_keeps_it(
    service: PlanService, apply: Request, write: Request
) -> None:
    write([todo("A", "in_progress")])
    result = apply({"op": "append", "phase": "Todos", "items": ["C"]}, origin="user")
    assert [t["createdBy"] for t in result["phases"][0]["tasks"]] == ["agent", "user"]
    apply({"op": "rm", "task": "C"}, origin="user")

    from plansight.protocol.requests import RestoreParams

    request = {"version": 2, "origin": "user"}
    restored = service.restore(RestoreParams.validate(request), request).result

    assert [t["createdBy"] for t in restored["phases"][0]["tasks"]] == ["agent", "user"]


# ---------------------------------------------------------------- no auto-start for a person


def test_a_persons_change_never_starts_a_task(
    apply: Request, write: Request, import_markdown: Request
) -> None:
    added = apply({"op": "append", "phase": "Todos", "items": ["A", "B"]}, origin="user")
    assert added["current"] is None
    write([todo("A", "in_progress"), todo("B")])
    done = apply({"op": "done", "task": "A"}, origin="user")
    assert [t[2] for t in tasks(done)] == ["completed", "pending"]
    imported = import_markdown("- [ ] X\n- [ ] Y\n", origin="user", session="other")
    assert imported["current"] is None
    # An agent's change still may.
    assert apply({"op": "done", "task": "A"})["current"]["content"] == "B"


# ---------------------------------------------------------------- a person's stale edit


def test_a_persons_stale_write_is_merged_with_the_agents_change(
    write: Request, apply: Request
) -> None:
    write([todo("A", "in_progress"), todo("B")])  # version 1: the editor opened it here
    apply({"op": "done", "task": "A"})  # the agent, version 2

    result = write(
        [todo("A", "in_progress"), todo("B"), todo("D")],
        origin="user",
        baseVersion=1,
        merge=True,
    )

    assert tasks(result) == [
        ("Todos", "A", "completed"),
        ("Todos", "B", "in_progress"),
        ("Todos", "D", "pending"),
    ]


def test_a_persons_stale_write_that_conflicts_changes_nothing(
    service: PlanService, write: Request, apply: Request
) -> None:
    write([todo("A", "in_progress"), todo("B")])
    apply({"op": "done", "task": "B"})
    apply({"op": "rm", "task": "A"})  # version 3

    with pytest.raises(VersionConflict) as caught:
        write(
            [todo("A", "completed"), todo("B", "blocked")], origin="user", baseVersion=1, merge=True
        )

    assert caught.value.current_version == 3
    assert caught.value.data() == {
        "currentVersion": 3,
        "conflicts": [
            {"id": "t1", "content": "A", "field": "task"},
            {"id": "t2", "content": "B", "field": "status"},
        ],
    }
    assert service.store.load("default").version == 3


def test_a_stale_base_the_history_does_not_list_is_refused_without_conflicts(
    write: Request, import_markdown: Request
) -> None:
    write([todo("A", "in_progress")])
    write([todo("A", "completed")])

    with pytest.raises(VersionConflict) as caught:
        import_markdown("- [ ] A\n", origin="user", baseVersion=0, merge=True)

    assert caught.value.data() == {"currentVersion": 2}


def test_without_merge_a_stale_base_is_refused_as_in_v2(write: Request) -> None:
    write([todo("A", "in_progress")])
    write([todo("A", "completed")])
    with pytest.raises(VersionConflict) as caught:
        write([todo("A")], origin="user", baseVersion=1)
    assert caught.value.data() == {"currentVersion": 2}


# ---------------------------------------------------------------- the merge itself


def plan_of(*tasks_: tuple[str, str, list[str]]) -> Plan:
    """(id, content, blockedBy) tasks in one phase."""
    made = [Task(i, c, c, "pending", [], NOW, NOW, blocked_by=list(b)) for i, c, b in tasks_]
    return Plan("s", phases=[Phase("P", made)], next_id=len(made) + 1)


def test_a_cycle_made_by_the_merge_falls_back_to_the_current_dependencies() -> None:
    base = plan_of(("t1", "x", []), ("t2", "y", []))
    current = plan_of(("t1", "x", []), ("t2", "y", ["t1"]))  # a person: y waits for x
    mine = plan_of(("t1", "x", ["t2"]), ("t2", "y", []))  # the agent: x waits for y

    merge(base, mine, current, NOW, agent=True)

    assert [(t.content, t.blocked_by) for t in current.tasks()] == [("x", []), ("y", ["t1"])]


def test_with_the_base_as_current_the_merge_gives_the_list_itself() -> None:
    base = plan_of(("t1", "x", []), ("t2", "y", []))
    mine = plan_of(("t2", "y", []), ("t3", "z", ["t2"]))
    current = base.copy()

    merged = merge(base, mine, current, NOW, agent=True)

    assert [t.values() for t in current.tasks()] == [t.values() for t in mine.tasks()]
    assert merged.kept == []


def test_a_base_the_history_no_longer_keeps_still_keeps_a_persons_task(tmp_path: Any) -> None:
    """The reading: the current plan stands for the lost base, so the agent's list wins
    where it differs, but a task a person created is still never removed by it."""
    import sqlite3

    from plansight.protocol.requests import ApplyParams, WriteParams
    from plansight.store.sqlite import SqliteStore

    path = tmp_path / "plans.sqlite3"
    store = SqliteStore(path)
    service = PlanService(store)

    def write(items: list[Json]) -> Json:
        request = {"todos": items}
        return service.write(WriteParams.validate(request), request).result

    write([todo("A", "in_progress"), todo("B")])
    request = {
        "origin": "user",
        "ops": [{"op": "append", "phase": "Todos", "items": ["C"]}, {"op": "done", "task": "B"}],
    }
    service.apply(ApplyParams.validate(request), request)
    with sqlite3.connect(path) as db:  # as if version 1 had left the history kept
        db.execute("UPDATE events SET snapshot = NULL WHERE version = 1")
    db.close()
    # A service that did not keep the agent's base itself (`agent_view.py`: the one that
    # wrote version 1 keeps it while the history lists it, which it still does here).
    service = PlanService(store)

    result = write([todo("A", "in_progress"), todo("B")])

    assert tasks(result) == [
        ("Todos", "A", "in_progress"),
        ("Todos", "B", "pending"),
        ("Todos", "C", "pending"),
    ]
    store.close()


# ---------------------------------------------------------------- steering with subtasks (v4)


def nested(*tasks_: tuple[str, str, str | None], by: str = "agent") -> Plan:
    """(id, content, parent) tasks in one phase, in document order."""
    made = [
        Task(i, c, c, "pending", [], NOW, NOW, parent=p, created_by=by)  # type: ignore[arg-type]
        for i, c, p in tasks_
    ]
    return Plan("s", phases=[Phase("P", made)], next_id=len(made) + 1)


def parents(plan: Plan) -> list[tuple[str, str | None]]:
    return [(t.content, t.parent) for t in plan.tasks()]


def test_a_persons_reparent_survives_an_agents_stale_list() -> None:
    base = nested(("t1", "A", None), ("t2", "B", None), ("t3", "C", None))
    current = nested(("t1", "A", None), ("t3", "C", "t1"), ("t2", "B", None))  # C under A
    mine = nested(("t1", "A", None), ("t2", "B", None), ("t3", "C", None))

    merged = merge(base, mine, current, NOW, agent=True)

    assert ("C", "t1") in parents(current)
    assert merged.kept == ['moved "C" under "A"']


def test_a_kept_task_whose_parent_the_agent_removed_takes_its_place() -> None:
    """A > B > C, C a person's subtask: the agent's list drops B (its own task, rule 3);
    C stays (rule 4) and goes under A, where B was."""
    base = nested(("t1", "A", None), ("t2", "B", "t1"))
    current = nested(("t1", "A", None), ("t2", "B", "t1"), ("t3", "C", "t2"))
    current.phases[0].tasks[2].created_by = "user"
    mine = nested(("t1", "A", None))

    merge(base, mine, current, NOW, agent=True)

    assert parents(current) == [("A", None), ("C", "t1")]


def test_a_task_whose_parent_the_person_removed_takes_its_place() -> None:
    base = nested(("t1", "A", None), ("t2", "B", "t1"), ("t3", "C", "t2"))
    current = nested(("t1", "A", None), ("t3", "C", "t2"))  # the person removed B alone
    mine = nested(("t1", "A", None), ("t2", "B", "t1"), ("t3", "C", "t2"))  # stale

    merge(base, mine, current, NOW, agent=True)

    assert parents(current) == [("A", None), ("C", "t1")]  # B stays removed (rule 5)


def test_an_editors_merge_names_a_parent_both_changed() -> None:
    base = nested(("t1", "A", None), ("t2", "B", None), ("t3", "C", None))
    current = nested(("t1", "A", None), ("t3", "C", "t1"), ("t2", "B", None))
    mine = nested(("t1", "A", None), ("t2", "B", None), ("t3", "C", "t2"))

    merged = merge(base, mine, current, NOW, agent=False)

    assert [(c.content, c.field) for c in merged.conflicts] == [("C", "parent")]
    # merge: "mine": the request's parent.
    current = nested(("t1", "A", None), ("t3", "C", "t1"), ("t2", "B", None))
    merge(base, mine, current, NOW, agent=False, mine_wins=True)
    assert ("C", "t2") in parents(current)
