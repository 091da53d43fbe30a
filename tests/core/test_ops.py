"""`plansight/apply`: the seven operations, their error lines, no rollback, the schema,
`completedTasks` and `version`, as PROTOCOL.md describes them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from plansight.core.errors import VersionConflict
from plansight.core.model import Plan
from plansight.core.ops import apply_ops
from plansight.core.settings import Settings
from plansight.protocol.requests import ApplyParams, ClearParams, GetParams
from plansight.service import PlanService

from .conftest import Json, Request
from .states import rows, task

NOW = "2025-01-01T00:00:00.000Z"


def plan_of(apply: Request) -> Json:
    """Phases A [a1, a2, a3] and B [b1, b2]; a1 is auto-started."""
    return apply(
        {
            "op": "init",
            "list": [
                {"phase": "A", "items": ["a1", "a2", "a3"]},
                {"phase": "B", "items": ["b1", "b2"]},
            ],
        }
    )


def statuses(state: Json) -> dict[str, str]:
    return {content: status for _, content, status in rows(state)}


# ---------------------------------------------------------------- init


def test_init_replaces_the_whole_list(apply: Request) -> None:
    plan_of(apply)
    result = apply({"op": "init", "list": [{"phase": "C", "items": ["c1", "c2"]}]})
    assert rows(result) == [("C", "c1", "in_progress"), ("C", "c2", "pending")]
    assert [phase["name"] for phase in result["phases"]] == ["C"]


def test_init_items_take_content_active_form_status_and_notes(apply: Request) -> None:
    result = apply(
        {
            "op": "init",
            "list": [
                {
                    "phase": "Build",
                    "items": [
                        {"content": "Write code", "status": "completed"},
                        {
                            "content": "Run the build",
                            "activeForm": "Running the build",
                            "notes": ["use -j2"],
                        },
                        "Ship it",
                    ],
                }
            ],
        }
    )
    assert rows(result) == [
        ("Build", "Write code", "completed"),
        ("Build", "Run the build", "in_progress"),
        ("Build", "Ship it", "pending"),
    ]
    build = task(result, "Run the build")
    assert build["activeForm"] == "Running the build"
    assert build["notes"] == ["use -j2"]
    assert task(result, "Ship it")["activeForm"] == "Ship it"  # defaults to content
    assert result["current"]["id"] == build["id"]


def test_ids_are_short_and_never_reused_after_a_new_init(apply: Request) -> None:
    first = apply({"op": "init", "list": [{"phase": "A", "items": ["x", "y"]}]})
    assert [t["id"] for t in first["phases"][0]["tasks"]] == ["t1", "t2"]
    second = apply({"op": "init", "list": [{"phase": "A", "items": ["x"]}]})
    assert second["phases"][0]["tasks"][0]["id"] == "t3"


def test_init_phase_named_twice_is_one_phase(apply: Request) -> None:
    result = apply(
        {"op": "init", "list": [{"phase": "A", "items": ["a"]}, {"phase": "A", "items": ["b"]}]}
    )
    assert rows(result) == [("A", "a", "in_progress"), ("A", "b", "pending")]


def test_init_with_a_phase_without_items_is_skipped(apply: Request) -> None:
    before = plan_of(apply)
    result = apply({"op": "init", "list": [{"phase": "C", "items": []}]})
    assert result["isError"] is True
    assert result["errors"] == ['Missing items for phase "C" in init operation']
    assert rows(result) == rows(before)
    assert result["version"] == before["version"]


def test_init_without_list_is_skipped(apply: Request) -> None:
    result = apply({"op": "init"})
    assert result["errors"] == ["Missing list for init operation"]
    assert result["version"] == 0


# ---------------------------------------------------------------- start


def test_start_demotes_every_other_task_in_progress(apply: Request) -> None:
    plan_of(apply)
    result = apply({"op": "start", "task": "b1"})
    assert statuses(result) == {
        "a1": "pending",
        "a2": "pending",
        "a3": "pending",
        "b1": "in_progress",
        "b2": "pending",
    }
    assert result["current"]["content"] == "b1"
    assert result["current"]["startedAt"] is not None


def test_start_by_id(apply: Request) -> None:
    state = plan_of(apply)
    b2 = task(state, "b2")["id"]
    result = apply({"op": "start", "id": b2})
    assert result["current"]["id"] == b2
    assert task(result, "a1")["status"] == "pending"


def test_start_targets_the_first_task_with_that_content(apply: Request) -> None:
    apply(
        {
            "op": "init",
            "list": [
                {"phase": "A", "items": [{"content": "lint", "status": "completed"}, "other"]},
                {"phase": "B", "items": ["lint"]},
            ],
        }
    )
    result = apply({"op": "start", "task": "lint"})
    assert result["current"]["id"] == "t1"
    assert rows(result)[0] == ("A", "lint", "in_progress")
    assert rows(result)[2] == ("B", "lint", "pending")


def test_start_without_target_starts_the_first_pending_task(apply: Request) -> None:
    plan_of(apply)
    apply({"op": "done", "task": "a1"}, {"op": "start", "task": "b2"})
    result = apply({"op": "start"})
    assert result["current"]["content"] == "a2"


def test_start_of_an_unknown_task_changes_nothing(apply: Request) -> None:
    before = plan_of(apply)
    result = apply({"op": "start", "task": "nope"})
    assert result["errors"] == ['Task "nope" not found']
    assert result["isError"] is True
    assert result["changed"] is False
    assert result["version"] == before["version"]
    assert rows(result) == rows(before)


# ---------------------------------------------------------------- done / drop / rm


def test_done_by_task_completes_it_and_reports_it(apply: Request) -> None:
    state = plan_of(apply)
    result = apply({"op": "done", "task": "a1"})
    done = task(result, "a1")
    assert done["status"] == "completed"
    assert done["completedAt"] is not None
    assert result["completedTasks"] == [{"id": done["id"], "content": "a1", "phase": "A"}]
    assert result["progress"] == {
        "completed": 1,
        "abandoned": 0,
        "blocked": 0,
        "total": 5,
        "percent": 20,
    }
    assert task(state, "a1")["createdAt"] == done["createdAt"]


def test_done_by_id(apply: Request) -> None:
    state = plan_of(apply)
    result = apply({"op": "done", "id": task(state, "b2")["id"]})
    assert task(result, "b2")["status"] == "completed"
    assert [c["content"] for c in result["completedTasks"]] == ["b2"]


def test_done_by_phase_completes_every_task_of_that_phase_only(apply: Request) -> None:
    plan_of(apply)
    apply({"op": "drop", "task": "a2"})
    result = apply({"op": "done", "phase": "A"})
    assert statuses(result) == {
        "a1": "completed",
        "a2": "abandoned",  # what already ended stays as it ended
        "a3": "completed",
        "b1": "in_progress",
        "b2": "pending",
    }
    assert [(c["content"], c["phase"]) for c in result["completedTasks"]] == [
        ("a1", "A"),
        ("a3", "A"),
    ]


def test_done_without_target_completes_every_task(apply: Request) -> None:
    plan_of(apply)
    apply({"op": "drop", "task": "b1"})
    result = apply({"op": "done"})
    assert statuses(result) == {
        "a1": "completed",
        "a2": "completed",
        "a3": "completed",
        "b1": "abandoned",
        "b2": "completed",
    }
    assert result["current"] is None
    assert result["progress"] == {
        "completed": 4,
        "abandoned": 1,
        "blocked": 0,
        "total": 5,
        "percent": 80,
    }


def test_drop_marks_abandoned_and_is_not_a_completion(apply: Request) -> None:
    plan_of(apply)
    result = apply({"op": "drop", "task": "a1"})
    dropped = task(result, "a1")
    assert dropped["status"] == "abandoned"
    assert dropped["completedAt"] is not None
    assert result["completedTasks"] == []
    assert result["current"]["content"] == "a2"  # auto-start moved on


def test_drop_by_phase_and_by_id(apply: Request) -> None:
    state = plan_of(apply)
    result = apply({"op": "drop", "phase": "B"}, {"op": "drop", "id": task(state, "a3")["id"]})
    assert statuses(result) == {
        "a1": "in_progress",
        "a2": "pending",
        "a3": "abandoned",
        "b1": "abandoned",
        "b2": "abandoned",
    }


def test_drop_without_target_abandons_every_unfinished_task(apply: Request) -> None:
    plan_of(apply)
    apply({"op": "done", "task": "a1"})
    result = apply({"op": "drop"})
    assert statuses(result) == {
        "a1": "completed",
        "a2": "abandoned",
        "a3": "abandoned",
        "b1": "abandoned",
        "b2": "abandoned",
    }


def test_rm_by_task_and_by_id(apply: Request) -> None:
    state = plan_of(apply)
    result = apply({"op": "rm", "task": "a2"}, {"op": "rm", "id": task(state, "b1")["id"]})
    assert rows(result) == [
        ("A", "a1", "in_progress"),
        ("A", "a3", "pending"),
        ("B", "b2", "pending"),
    ]


def test_rm_by_phase_empties_it_and_keeps_the_phase(apply: Request) -> None:
    plan_of(apply)
    result = apply({"op": "rm", "phase": "A"})
    assert result["phases"][0]["tasks"] == []
    assert rows(result) == [("B", "b1", "in_progress"), ("B", "b2", "pending")]


def test_rm_without_target_removes_every_task_and_keeps_the_phases(apply: Request) -> None:
    plan_of(apply)
    result = apply({"op": "rm"})
    assert [(p["name"], p["tasks"]) for p in result["phases"]] == [("A", []), ("B", [])]
    assert result["progress"]["total"] == 0
    assert result["current"] is None


def test_task_and_phase_together_search_only_that_phase(apply: Request) -> None:
    plan_of(apply)
    result = apply({"op": "done", "task": "a1", "phase": "B"})
    assert result["errors"] == ['Task "a1" not found in phase "B"']
    assert task(result, "a1")["status"] == "in_progress"
    result = apply({"op": "done", "task": "b2", "phase": "B"})
    assert task(result, "b2")["status"] == "completed"


@pytest.mark.parametrize("op", ["done", "drop", "rm"])
def test_unknown_targets_are_named_in_the_error(apply: Request, op: str) -> None:
    before = plan_of(apply)
    result = apply(
        {"op": op, "task": "Deploy"}, {"op": op, "phase": "Later"}, {"op": op, "id": "t99"}
    )
    assert result["errors"] == [
        'Task "Deploy" not found',
        'Phase "Later" not found',
        'Task id "t99" not found',
    ]
    assert rows(result) == rows(before)
    assert result["version"] == before["version"]


# ---------------------------------------------------------------- append


def test_append_adds_pending_tasks_at_the_end_of_a_phase(apply: Request) -> None:
    plan_of(apply)
    result = apply({"op": "append", "phase": "A", "items": ["a4", {"content": "a5"}]})
    assert [t["content"] for t in result["phases"][0]["tasks"]] == ["a1", "a2", "a3", "a4", "a5"]
    assert task(result, "a4")["status"] == "pending"


def test_append_creates_a_missing_phase_at_the_end(apply: Request) -> None:
    plan_of(apply)
    result = apply({"op": "append", "phase": "Release", "items": ["tag", "publish"]})
    assert [phase["name"] for phase in result["phases"]] == ["A", "B", "Release"]
    assert rows(result)[-2:] == [("Release", "tag", "pending"), ("Release", "publish", "pending")]


def test_append_to_an_empty_list_starts_the_first_task(apply: Request) -> None:
    result = apply({"op": "append", "phase": "Now", "items": ["first", "second"]})
    assert rows(result) == [("Now", "first", "in_progress"), ("Now", "second", "pending")]
    assert result["version"] == 1


def test_appended_tasks_are_pending_whatever_the_item_says(apply: Request) -> None:
    plan_of(apply)
    result = apply(
        {"op": "append", "phase": "B", "items": [{"content": "b3", "status": "completed"}]}
    )
    assert task(result, "b3")["status"] == "pending"
    assert result["completedTasks"] == []


def test_append_refuses_a_content_that_already_exists_anywhere(apply: Request) -> None:
    before = plan_of(apply)
    result = apply({"op": "append", "phase": "B", "items": ["new", "a2"]})
    assert result["errors"] == ['Task "a2" already exists']
    assert result["isError"] is True
    # The op is skipped whole: "new" is not added either.
    assert rows(result) == rows(before)
    assert result["version"] == before["version"]


def test_append_refuses_the_same_content_twice_in_one_op(apply: Request) -> None:
    result = apply({"op": "append", "phase": "A", "items": ["x", "x"]})
    assert result["errors"] == ['Task "x" already exists']
    assert result["phases"] == []


def test_append_without_a_phase_goes_where_the_work_is(apply: Request) -> None:
    """The current task's phase, else the last phase, else Todos: the server's one answer."""
    first = apply({"op": "append", "items": ["a"]})
    assert [p["name"] for p in first["phases"]] == ["Todos"]
    apply(
        {"op": "init", "list": [{"phase": "A", "items": ["x"]}, {"phase": "B", "items": ["y"]}]},
        {"op": "start", "task": "x"},
    )
    in_a = apply({"op": "append", "items": ["z"]})
    assert [t["content"] for t in in_a["phases"][0]["tasks"]] == ["x", "z"]
    apply({"op": "done"})
    last = apply({"op": "append", "items": ["w"]})
    assert not last["errors"]
    assert [t["content"] for t in last["phases"][1]["tasks"]] == ["y", "w"]


def test_append_with_an_empty_phase_or_without_items_is_skipped(apply: Request) -> None:
    result = apply(
        {"op": "append", "phase": " ", "items": ["x"]},
        {"op": "append", "phase": "A"},
        {"op": "append", "phase": "A", "items": [""]},
    )
    assert result["errors"] == [
        "Missing phase for append operation",
        "Missing items for append operation",
        "Missing content for append operation",
    ]
    assert result["phases"] == []


# ---------------------------------------------------------------- note


def test_note_strips_trailing_whitespace(apply: Request) -> None:
    plan_of(apply)
    result = apply({"op": "note", "task": "a2", "text": "flaky on CI  \n\t "})
    assert task(result, "a2")["notes"] == ["flaky on CI"]


def test_notes_append_in_order_and_keep_lines(apply: Request) -> None:
    state = plan_of(apply)
    result = apply(
        {"op": "note", "id": task(state, "b1")["id"], "text": "first"},
        {"op": "note", "task": "b1", "text": "second\nline two"},
    )
    assert task(result, "b1")["notes"] == ["first", "second\nline two"]


def test_note_without_target_goes_to_the_current_task(apply: Request) -> None:
    plan_of(apply)
    apply({"op": "start", "task": "a3"})
    result = apply({"op": "note", "text": "looking at it"})
    assert task(result, "a3")["notes"] == ["looking at it"]
    assert result["current"]["notes"] == ["looking at it"]


@pytest.mark.parametrize("text", [None, "", "   ", "\n\t\n"])
def test_note_without_text_is_refused(apply: Request, text: str | None) -> None:
    before = plan_of(apply)
    op: Json = {"op": "note", "task": "a1"}
    if text is not None:
        op["text"] = text
    result = apply(op)
    assert result["errors"] == ["Missing text for note operation"]
    assert task(result, "a1")["notes"] == []
    assert result["version"] == before["version"]


def test_note_on_an_unknown_task(apply: Request) -> None:
    plan_of(apply)
    result = apply({"op": "note", "task": "zzz", "text": "hello"})
    assert result["errors"] == ['Task "zzz" not found']


# ---------------------------------------------------------------- batches without rollback


def test_a_bad_op_in_the_middle_is_skipped_and_the_batch_goes_on(apply: Request) -> None:
    before = plan_of(apply)
    result = apply(
        {"op": "done", "task": "a1"},
        {"op": "done", "task": "Deploy"},
        {"op": "note", "task": "a2"},
        {"op": "start", "task": "a2"},
        {"op": "append", "phase": "Nope", "items": ["a3"]},
        {"op": "rm", "phase": "Missing"},
        {"op": "drop", "task": "b2"},
    )
    assert result["errors"] == [
        'Task "Deploy" not found',
        "Missing text for note operation",
        'Task "a3" already exists',
        'Phase "Missing" not found',
    ]
    assert result["isError"] is True
    assert result["changed"] is True
    assert statuses(result) == {
        "a1": "completed",
        "a2": "in_progress",
        "a3": "pending",
        "b1": "pending",
        "b2": "abandoned",
    }
    assert [phase["name"] for phase in result["phases"]] == ["A", "B"]
    # One committed change for the whole batch.
    assert result["version"] == before["version"] + 1
    assert result["summary"].splitlines()[0].startswith("Errors: ")


def test_the_state_after_a_bad_batch_is_what_get_returns(
    apply: Request, service: PlanService
) -> None:
    plan_of(apply)
    result = apply({"op": "done", "task": "a1"}, {"op": "done", "task": "missing"})
    state = service.get(GetParams())
    for key in ("session", "version", "phases", "progress", "current", "updatedAt"):
        assert result[key] == state[key]


def test_a_batch_of_only_bad_ops_changes_nothing(apply: Request) -> None:
    before = plan_of(apply)
    result = apply({"op": "done", "task": "x"}, {"op": "note", "text": ""})
    assert result["changed"] is False
    assert result["version"] == before["version"]
    assert result["summary"].splitlines()[1].startswith("Todo list unchanged: 0/5 completed")


# ---------------------------------------------------------------- the schema


@pytest.mark.parametrize(
    ("ops", "where"),
    [
        ([{"op": "start", "task": "a1"}, {"op": "finish", "task": "a1"}], ("ops", 1)),
        ([{"task": "a1"}], ("ops", 0)),
        ([{"op": "done", "task": 3}], ("ops", 0)),
        ([{"op": "start", "id": ["t1"]}], ("ops", 0)),
        ([{"op": "append", "phase": "A", "items": "a4"}], ("ops", 0)),
        ([{"op": "append", "phase": "A", "items": [{"content": 7}]}], ("ops", 0)),
        ([{"op": "init", "list": {"phase": "A", "items": ["x"]}}], ("ops", 0)),
        ([{"op": "note", "task": "a1", "text": True}], ("ops", 0)),
        (
            [{"op": "append", "phase": "A", "items": [{"content": "x", "status": "paused"}]}],
            ("ops", 0),
        ),
        ([], ("ops",)),
    ],
)
def test_a_schema_failure_refuses_the_whole_request(
    apply: Request, service: PlanService, ops: list[Json], where: tuple[object, ...]
) -> None:
    before = plan_of(apply)
    with pytest.raises(ValidationError) as refused:
        apply(*ops)
    assert any(error["loc"][: len(where)] == where for error in refused.value.errors())
    after = service.get(GetParams())
    assert after["version"] == before["version"]
    assert rows(after) == rows(before)


@pytest.mark.parametrize(
    "params",
    [
        {"ops": "done"},
        {"ops": [{"op": "done"}], "origin": "robot"},
        {"ops": [{"op": "done"}], "session": 4},
        {"ops": [{"op": "done"}], "session": ""},
        {"ops": [{"op": "done"}], "baseVersion": "1"},
    ],
)
def test_bad_request_fields_fail_the_schema(params: Json) -> None:
    with pytest.raises(ValidationError):
        ApplyParams.validate(params)


# ---------------------------------------------------------------- completedTasks


def test_completed_tasks_lists_only_this_batchs_completions(apply: Request) -> None:
    plan_of(apply)
    first = apply({"op": "done", "task": "a1"}, {"op": "done", "task": "a2"})
    assert [c["content"] for c in first["completedTasks"]] == ["a1", "a2"]
    again = apply({"op": "done", "task": "a1"}, {"op": "done", "task": "b1"})
    assert [c["content"] for c in again["completedTasks"]] == ["b1"]


def test_a_task_completed_then_removed_in_one_batch_is_not_a_completion(
    apply: Request,
) -> None:
    plan_of(apply)
    result = apply({"op": "done", "task": "a1"}, {"op": "rm", "task": "a1"})
    assert result["completedTasks"] == []


def test_a_task_reopened_and_completed_again_counts_again(apply: Request) -> None:
    plan_of(apply)
    apply({"op": "done", "task": "a1"})
    apply({"op": "start", "task": "a1"})
    result = apply({"op": "done", "task": "a1"})
    assert [c["content"] for c in result["completedTasks"]] == ["a1"]


# ---------------------------------------------------------------- version


def test_version_starts_at_zero_and_grows_by_one_per_committed_change(
    apply: Request, service: PlanService
) -> None:
    assert service.get(GetParams(session="new"))["version"] == 0
    versions = [
        plan_of(apply)["version"],
        apply({"op": "done", "task": "a1"}, {"op": "done", "task": "a2"})["version"],
        apply({"op": "note", "text": "n"})["version"],
        apply({"op": "rm"})["version"],
    ]
    assert versions == [1, 2, 3, 4]
    assert service.get(GetParams())["version"] == 4


def test_a_request_that_changes_nothing_keeps_the_version(apply: Request) -> None:
    plan_of(apply)
    apply({"op": "done", "task": "a1"})
    result = apply({"op": "done", "task": "a1"}, {"op": "start", "task": "a2"})
    assert result["version"] == 2
    assert result["changed"] is False
    assert result["isError"] is False
    assert result["summary"].startswith("Todo list unchanged: 1/5 completed")


def test_sessions_are_independent(apply: Request) -> None:
    plan_of(apply)
    other = apply({"op": "append", "phase": "X", "items": ["x"]}, session="other")
    assert other["session"] == "other"
    assert other["version"] == 1
    assert rows(other) == [("X", "x", "in_progress")]
    assert apply({"op": "done", "task": "x"})["errors"] == ['Task "x" not found']


def test_base_version_guards_against_a_moved_list(apply: Request, service: PlanService) -> None:
    plan_of(apply)
    assert apply({"op": "done", "task": "a1"}, baseVersion=1)["version"] == 2
    with pytest.raises(VersionConflict) as conflict:
        apply({"op": "done", "task": "a2"}, baseVersion=1)
    assert conflict.value.current_version == 2
    state = service.get(GetParams())
    assert state["version"] == 2
    assert task(state, "a2")["status"] == "in_progress"


# ---------------------------------------------------------------- limits


def limited(**limits: int) -> Settings:
    return Settings.validate(limits)


def test_init_over_max_tasks_or_max_phases_is_skipped() -> None:
    plan = Plan("s")
    ops = ApplyParams.validate(
        {
            "ops": [
                {"op": "init", "list": [{"phase": "A", "items": ["1", "2", "3"]}]},
                {
                    "op": "init",
                    "list": [{"phase": "A", "items": ["1"]}, {"phase": "B", "items": ["2"]}],
                },
                {"op": "init", "list": [{"phase": "A", "items": ["1", "2"]}]},
            ]
        }
    ).ops
    errors = apply_ops(plan, ops, limited(maxTasks=2, maxPhases=1), NOW)
    assert errors == [
        "Too many tasks (3, the limit is 2)",
        "Too many phases (2, the limit is 1)",
    ]
    assert [t.content for t in plan.tasks()] == ["1", "2"]


def test_append_over_max_tasks_or_max_phases_is_skipped(
    service: PlanService, apply: Request
) -> None:
    service.settings = limited(maxTasks=3, maxPhases=2)
    plan_of_two = apply({"op": "init", "list": [{"phase": "A", "items": ["a1", "a2"]}]})
    result = apply(
        {"op": "append", "phase": "A", "items": ["a3", "a4"]},
        {"op": "append", "phase": "B", "items": ["b1"]},
        {"op": "append", "phase": "C", "items": ["c1"]},
    )
    assert result["errors"] == [
        "Too many tasks (4, the limit is 3)",
        "Too many tasks (4, the limit is 3)",
    ]
    assert rows(result) == [*rows(plan_of_two), ("B", "b1", "pending")]


def test_contents_phase_names_and_notes_over_their_limits_are_refused(
    service: PlanService, apply: Request
) -> None:
    service.settings = limited(maxContentLength=5, maxNoteLength=8, maxNotesPerTask=2)
    result = apply(
        {"op": "append", "phase": "A", "items": ["short", "toolong"]},
        {"op": "append", "phase": "Phase6", "items": ["x"]},
        {"op": "append", "phase": "A", "items": [{"content": "y", "activeForm": "Doing y"}]},
        {"op": "append", "phase": "A", "items": [{"content": "z", "notes": ["123456789"]}]},
        {"op": "append", "phase": "A", "items": ["ok"]},
        {"op": "note", "task": "ok", "text": "12345678"},
        {"op": "note", "task": "ok", "text": "123456789"},
        {"op": "note", "task": "ok", "text": "second"},
        {"op": "note", "task": "ok", "text": "third"},
    )
    for line in (
        'Task content "toolong" is too long (7 characters, the limit is 5)',
        'Phase name "Phase6" is too long (6 characters, the limit is 5)',
        'Active form "Doing y" is too long (7 characters, the limit is 5)',
        'Note "123456789" is too long (9 characters, the limit is 8)',
        'Too many notes on task "ok" (the limit is 2)',
    ):
        assert line in result["errors"]
    assert (
        result["errors"].count('Note "123456789" is too long (9 characters, the limit is 8)') == 2
    )
    assert rows(result) == [("A", "ok", "in_progress")]
    assert task(result, "ok")["notes"] == ["12345678", "second"]


def test_limits_count_the_cleaned_content() -> None:
    plan = Plan("s")
    ops = ApplyParams.validate(
        {"ops": [{"op": "append", "phase": "A", "items": ["  abc\t\n", "a\u202eb\u0000d"]}]}
    ).ops
    assert apply_ops(plan, ops, limited(maxContentLength=3), NOW) == []
    assert [t.content for t in plan.tasks()] == ["abc", "abd"]


# ---------------------------------------------------------------- clear


def test_clear_empties_the_session_and_bumps_the_version_once(
    apply: Request, service: PlanService
) -> None:
    before = plan_of(apply)
    apply({"op": "rm", "phase": "B"})
    cleared = service.clear(ClearParams(), {}).result
    assert cleared["phases"] == []
    assert cleared["summary"].split("\n")[0] == "Todo list cleared."
    assert cleared["version"] == before["version"] + 2
    assert cleared["changed"] is True
    again = service.clear(ClearParams(), {}).result
    assert again["version"] == cleared["version"]
    assert again["changed"] is False


def test_clearing_an_unknown_session_creates_nothing(service: PlanService) -> None:
    result = service.clear(ClearParams(session="never"), {}).result
    assert result["version"] == 0
    assert service.sessions() == {"sessions": []}
