"""Normalization after every `apply` batch: at most one task in progress, and with
`autoStart` the first pending task (phase order, then task order) is started."""

from __future__ import annotations

from typing import Any

from plansight.core.model import Plan
from plansight.core.ops import apply_ops
from plansight.core.settings import Settings
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService

from .conftest import Request
from .states import rows

NOW = "2025-01-01T00:00:00.000Z"


def run(plan: Plan, *ops: dict[str, Any], auto_start: bool = True) -> list[str]:
    parsed = ApplyParams.validate({"ops": list(ops)}).ops
    return apply_ops(plan, parsed, Settings(auto_start=auto_start), NOW)


def marks(plan: Plan) -> list[tuple[str, str]]:
    return [(task.content, task.status) for task in plan.tasks()]


def item(content: str, status: str) -> dict[str, str]:
    return {"content": content, "status": status}


def test_of_several_tasks_in_progress_the_first_keeps_it() -> None:
    plan = Plan("s")
    run(
        plan,
        {
            "op": "init",
            "list": [
                {"phase": "A", "items": [item("a1", "completed"), item("a2", "in_progress")]},
                {"phase": "B", "items": [item("b1", "in_progress"), item("b2", "in_progress")]},
            ],
        },
    )
    assert marks(plan) == [
        ("a1", "completed"),
        ("a2", "in_progress"),
        ("b1", "pending"),
        ("b2", "pending"),
    ]
    assert plan.current() is not None
    assert plan.current().content == "a2"


def test_auto_start_takes_the_first_pending_task_in_phase_then_task_order() -> None:
    plan = Plan("s")
    run(
        plan,
        {
            "op": "init",
            "list": [
                {"phase": "A", "items": [item("a1", "completed"), item("a2", "abandoned")]},
                {"phase": "B", "items": [item("b1", "completed"), "b2", "b3"]},
                {"phase": "C", "items": ["c1"]},
            ],
        },
    )
    assert plan.current() is not None
    assert plan.current().content == "b2"


def test_auto_start_goes_back_to_an_earlier_phase_when_the_current_task_ends() -> None:
    plan = Plan("s")
    run(
        plan,
        {"op": "init", "list": [{"phase": "A", "items": ["a1"]}, {"phase": "B", "items": ["b1"]}]},
    )
    run(plan, {"op": "start", "task": "b1"})
    run(plan, {"op": "done", "task": "b1"})
    assert marks(plan) == [("a1", "in_progress"), ("b1", "completed")]
    assert plan.current() is not None
    assert plan.current().started_at == NOW


def test_normalization_runs_once_after_the_whole_batch() -> None:
    plan = Plan("s")
    run(plan, {"op": "append", "phase": "A", "items": ["a1", "a2", "a3"]})
    # Mid-batch nothing is auto-started, so `start` without target still finds a1 pending.
    run(plan, {"op": "done", "task": "a1"}, {"op": "start"}, {"op": "done", "task": "a2"})
    assert marks(plan) == [("a1", "completed"), ("a2", "completed"), ("a3", "in_progress")]


def test_nothing_is_started_when_every_task_has_ended() -> None:
    plan = Plan("s")
    run(plan, {"op": "append", "phase": "A", "items": ["a1", "a2"]})
    run(plan, {"op": "done", "task": "a1"}, {"op": "drop", "task": "a2"})
    assert plan.current() is None


def test_without_auto_start_pending_tasks_stay_pending() -> None:
    plan = Plan("s")
    run(plan, {"op": "append", "phase": "A", "items": ["a1", "a2"]}, auto_start=False)
    assert marks(plan) == [("a1", "pending"), ("a2", "pending")]
    assert plan.current() is None
    run(plan, {"op": "start", "task": "a2"}, auto_start=False)
    run(plan, {"op": "done", "task": "a2"}, auto_start=False)
    assert marks(plan) == [("a1", "pending"), ("a2", "completed")]
    assert plan.current() is None


def test_without_auto_start_two_in_progress_still_become_one() -> None:
    plan = Plan("s")
    run(
        plan,
        {"op": "init", "list": [{"phase": "A", "items": [item("x", "in_progress")] * 2}]},
        auto_start=False,
    )
    assert marks(plan) == [("x", "in_progress"), ("x", "pending")]


def test_the_auto_start_setting_reaches_apply_through_the_service(
    service: PlanService, apply: Request
) -> None:
    service.settings = Settings(auto_start=False)
    result = apply({"op": "append", "phase": "A", "items": ["a1"]})
    assert rows(result) == [("A", "a1", "pending")]
    assert result["current"] is None
    service.settings = Settings()
    result = apply({"op": "note", "task": "a1", "text": "go"})
    assert rows(result) == [("A", "a1", "in_progress")]
