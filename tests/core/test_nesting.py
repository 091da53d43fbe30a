"""The nesting rules every change ends with (`core/nesting.py`): a subtask in its parent's
phase, each phase in document order, a parent's status its subtasks', and the leaves that
progress, `current` and normalization count."""

from __future__ import annotations

from plansight.core.model import Phase, Plan, Task, TaskStatus, progress_of
from plansight.core.nesting import depth_problem, settle
from plansight.core.ops import normalize

NOW = "2026-01-01T00:00:00.000Z"


def task(id: str, parent: str | None = None, status: TaskStatus = "pending") -> Task:
    return Task(id, id, id, status, [], NOW, NOW, parent=parent)


def layout(plan: Plan) -> list[tuple[str, list[tuple[str, str | None]]]]:
    return [(p.name, [(t.id, t.parent) for t in p.tasks]) for p in plan.phases]


def test_a_subtask_goes_to_its_top_level_ancestors_phase_in_document_order() -> None:
    plan = Plan("s", phases=[Phase("A", [task("a"), task("c", "b")]), Phase("B", [task("b", "a")])])
    settle(plan, NOW)
    assert layout(plan) == [("A", [("a", None), ("b", "a"), ("c", "b")]), ("B", [])]


def test_a_parent_naming_no_task_or_a_cycle_leaves_the_task_at_the_top() -> None:
    plan = Plan(
        "s",
        phases=[Phase("A", [task("x", "gone"), task("p", "q")]), Phase("B", [task("q", "p")])],
    )
    settle(plan, NOW)
    assert sorted(t.id for t in plan.tasks()) == ["p", "q", "x"]
    assert plan.phases[0].tasks[0].parent is None
    assert [t.parent for t in plan.tasks()].count(None) >= 2


def test_parents_follow_their_subtasks_deepest_first() -> None:
    plan = Plan(
        "s",
        phases=[
            Phase(
                "A",
                [
                    task("top"),
                    task("mid", "top"),
                    task("leaf1", "mid", "completed"),
                    task("leaf2", "mid", "abandoned"),
                    task("other", "top", "blocked"),
                ],
            )
        ],
    )
    settle(plan, NOW)
    status = {t.id: t.status for t in plan.tasks()}
    assert status["mid"] == "completed"
    assert status["top"] == "blocked"
    assert plan.phases[0].tasks[1].completed_at == NOW


def test_progress_current_and_auto_start_count_leaves_only() -> None:
    plan = Plan("s", phases=[Phase("A", [task("p"), task("c1", "p"), task("c2", "p")])])
    started = normalize(plan, True, NOW)
    assert started is not None and started.id == "c1"
    assert plan.current() is started
    assert plan.phases[0].tasks[0].status == "in_progress"
    assert progress_of(plan).total == 2


def test_depth_problem_names_the_first_task_too_deep_in_document_order() -> None:
    plan = Plan(
        "s", phases=[Phase("A", [task("a"), task("b", "a"), task("c", "b"), task("d", "b")])]
    )
    found = depth_problem(plan, 2)
    assert found is not None
    assert found[0].id == "c"
    assert found[1] == 'Too deep: "c" would be at depth 3, the limit is 2'


def test_a_subtask_whose_parent_is_in_a_later_phase_moves_there_once() -> None:
    """Found by the steering property test (a merged plan after a person moved a task under
    another phase's task): the subtask was appended to the later phase, met there again
    and appended again while that phase was walked, for ever; the server hung."""
    plan = Plan("s", phases=[Phase("A", [task("a"), task("c", "b")]), Phase("B", [task("b")])])
    settle(plan, NOW)
    assert layout(plan) == [("A", [("a", None)]), ("B", [("b", None), ("c", "b")])]


def _values(plan: Plan) -> list[tuple[str, list[tuple[object, ...]]]]:
    return [
        (p.name, [(t.id, t.parent, t.status, t.completed_at) for t in p.tasks]) for p in plan.phases
    ]


def test_settling_again_after_a_change_in_place_is_settling_afresh() -> None:
    # `settle` keeps what it settled last on the plan and, while the same task objects
    # hold the same places and parents, derives only the phases whose tasks changed; a
    # task's id changed in place (its subtasks now name no task) is the whole plan again.
    plan = Plan(
        "s",
        phases=[
            Phase("A", [task("a"), task("a1", "a"), task("a2", "a")]),
            Phase("B", [task("b"), task("b1", "b")]),
        ],
    )
    settle(plan, NOW)
    plan.phases[1].tasks[1].set_status("completed", NOW)
    settle(plan, NOW)
    fresh = plan.copy()
    settle(fresh, NOW)
    assert _values(plan) == _values(fresh)
    assert plan.phases[1].tasks[0].status == "completed"
    plan.phases[0].tasks[0].id = "renamed"
    settle(plan, NOW)
    assert [t.parent for t in plan.phases[0].tasks] == [None, None, None]
    fresh = plan.copy()
    settle(fresh, NOW)
    assert _values(plan) == _values(fresh)


def test_a_parent_changed_in_place_is_settled_afresh() -> None:
    # The kept tree is checked phase by phase where marks moved: a subtask given a parent
    # of another phase in place (its place and id unchanged) still goes to that phase,
    # under it, and that parent's status follows it.
    plan = Plan(
        "s",
        phases=[
            Phase("A", [task("a"), task("a1", "a")]),
            Phase("B", [task("b"), task("b1", "b")]),
        ],
    )
    settle(plan, NOW)
    moving = plan.phases[1].tasks[1]
    moving.set_status("in_progress", NOW)
    moving.parent = "a"
    settle(plan, NOW)
    assert [t.id for t in plan.phases[0].tasks] == ["a", "a1", "b1"]
    assert [t.id for t in plan.phases[1].tasks] == ["b"]
    assert plan.phases[0].tasks[0].status == "in_progress"
    fresh = plan.copy()
    settle(fresh, NOW)
    assert _values(plan) == _values(fresh)
