"""Protocol 2 on a task: blocked, priorities, owners (one task in progress per owner),
dependencies, files, the ops block and update, and write keeping what an item leaves out."""

from __future__ import annotations

import dataclasses

import pytest

from plansight.core.errors import RequestRefused
from plansight.service import PlanService

from .conftest import Json, Request


def task(result: Json, content: str) -> Json:
    return next(t for p in result["phases"] for t in p["tasks"] if t["content"] == content)


def statuses(result: Json) -> dict[str, str]:
    return {t["content"]: t["status"] for p in result["phases"] for t in p["tasks"]}


def init(apply: Request, *items: object, **params: object) -> Json:
    return apply({"op": "init", "list": [{"phase": "P", "items": list(items)}]}, **params)


def test_a_plan_without_owners_keeps_exactly_one_task_in_progress(apply: Request) -> None:
    result = init(apply, "a", "b", "c")
    assert statuses(result) == {"a": "in_progress", "b": "pending", "c": "pending"}
    result = apply({"op": "start", "task": "c"})
    assert statuses(result) == {"a": "pending", "b": "pending", "c": "in_progress"}


def test_each_owner_keeps_its_own_task_in_progress_and_current_is_the_newest(
    apply: Request,
) -> None:
    init(
        apply,
        "lead work",
        {"content": "x", "owner": "sub-1"},
        {"content": "y", "owner": "sub-1"},
        {"content": "z", "owner": "sub-2"},
    )
    result = apply({"op": "start", "task": "x"}, {"op": "start", "task": "z"})
    assert statuses(result) == {
        "lead work": "in_progress",  # auto-started: it has no owner
        "x": "in_progress",
        "y": "pending",
        "z": "in_progress",
    }
    assert result["current"]["content"] == "z"
    result = apply({"op": "start", "task": "y"})
    assert statuses(result)["x"] == "pending" and statuses(result)["z"] == "in_progress"
    assert result["current"]["content"] == "y"
    result = apply({"op": "start", "task": "x"})
    assert result["current"]["content"] == "x"


def test_auto_start_skips_blocked_waiting_and_owned_tasks(apply: Request) -> None:
    result = init(
        apply,
        {"content": "owned", "owner": "sub"},
        {"content": "stuck", "status": "blocked"},
        {"content": "later", "blockedBy": ["first"]},
        "first",
    )
    assert statuses(result) == {
        "owned": "pending",
        "stuck": "blocked",
        "later": "pending",
        "first": "in_progress",
    }
    assert task(result, "later")["waiting"] is True
    assert task(result, "later")["blockedBy"] == [task(result, "first")["id"]]
    result = apply({"op": "done", "task": "first"})
    assert task(result, "later")["waiting"] is False
    assert statuses(result)["later"] == "in_progress"


def test_block_marks_blocked_with_the_reason_as_a_note(apply: Request) -> None:
    init(apply, "a", "b")
    result = apply({"op": "block", "task": "a", "reason": "Waiting for the API key"})
    assert task(result, "a")["status"] == "blocked"
    assert task(result, "a")["notes"] == ["Waiting for the API key"]
    assert statuses(result)["b"] == "in_progress"
    assert result["progress"]["blocked"] == 1
    assert result["phases"][0]["progress"] == {
        "completed": 0,
        "abandoned": 0,
        "blocked": 1,
        "total": 2,
        "percent": 0,
    }
    assert "  [!] a" in result["summary"].split("\n")
    moved_on = apply({"op": "start", "task": "a"})
    assert statuses(moved_on)["a"] == "in_progress"


def test_summary_names_what_a_waiting_task_waits_for(apply: Request) -> None:
    result = init(apply, "build", "test", {"content": "ship", "blockedBy": ["test", "build"]})
    assert '  [ ] ship (waits for "test", "build")' in result["summary"].split("\n")
    result = apply({"op": "done", "task": "build"})
    assert '  [ ] ship (waits for "test")' in result["summary"].split("\n")


def test_update_changes_only_the_fields_it_names(apply: Request) -> None:
    init(apply, {"content": "a", "priority": "low", "owner": "me"}, "b")
    result = apply(
        {
            "op": "update",
            "task": "a",
            "content": "A",
            "description": "Line one\nline two",
            "priority": "high",
            "addFiles": ["src/x.py", "src/y.py", "src/x.py", "  "],
        }
    )
    a = task(result, "A")
    assert (a["activeForm"], a["description"], a["priority"], a["owner"]) == (
        "A",
        "Line one\nline two",
        "high",
        "me",
    )
    assert a["files"] == ["src/x.py", "src/y.py"]
    cleared = apply({"op": "update", "task": "A", "priority": None, "owner": None})
    assert task(cleared, "A")["priority"] is None and task(cleared, "A")["owner"] is None
    assert task(cleared, "A")["description"] == "Line one\nline two"


def test_update_with_a_status_acts_as_that_op(apply: Request) -> None:
    init(apply, "a", "b")
    result = apply({"op": "update", "task": "b", "status": "in_progress"})
    assert statuses(result) == {"a": "pending", "b": "in_progress"}
    result = apply({"op": "update", "task": "b", "status": "completed"})
    assert statuses(result) == {"a": "in_progress", "b": "completed"}
    assert result["completedTasks"][0]["content"] == "b"


@pytest.mark.parametrize(
    ("blocked_by", "line"),
    [
        (["a"], 'Task "a" cannot wait for itself'),
        (["nope"], 'Task "nope" not found'),
        (["c"], 'Dependency cycle: "a" -> "c" -> "b" -> "a"'),
    ],
)
def test_dependency_rules_skip_the_op_whole(
    apply: Request, blocked_by: list[str], line: str
) -> None:
    init(apply, "a", {"content": "b", "blockedBy": ["a"]}, {"content": "c", "blockedBy": ["b"]})
    result = apply({"op": "update", "task": "a", "blockedBy": blocked_by, "priority": "high"})
    assert result["errors"] == [line]
    assert task(result, "a")["blockedBy"] == [] and task(result, "a")["priority"] is None


def test_an_append_with_a_bad_dependency_adds_nothing(apply: Request) -> None:
    init(apply, "a")
    result = apply(
        {"op": "append", "phase": "Q", "items": ["x", {"content": "y", "blockedBy": ["zz"]}]}
    )
    assert result["errors"] == ['Task "zz" not found']
    assert [p["name"] for p in result["phases"]] == ["P"]
    again = apply({"op": "append", "phase": "Q", "items": ["x"]})
    assert task(again, "x")["id"] == "t2"  # the refused append used no id


def test_removing_a_task_removes_it_from_every_blocked_by(apply: Request) -> None:
    init(apply, "a", {"content": "b", "blockedBy": ["a"]})
    result = apply({"op": "rm", "task": "a"})
    assert task(result, "b")["blockedBy"] == [] and task(result, "b")["waiting"] is False


def test_limits_of_the_new_fields(apply: Request, service: PlanService) -> None:
    service.settings = dataclasses.replace(
        service.settings, max_description_length=5, max_files_per_task=1
    )
    init(apply, "a")
    long = apply({"op": "update", "task": "a", "description": "123456"})
    assert long["errors"][0].startswith('Description of task "a" is too long')
    files = apply({"op": "update", "task": "a", "addFiles": ["x", "y"]})
    assert files["errors"] == ['Too many files on task "a" (the limit is 1)']


def test_owners_and_files_are_cleaned_like_contents(apply: Request) -> None:
    init(apply, {"content": "a", "owner": " sub\tagent\u202e \n"})
    result = apply({"op": "update", "task": "a", "addFiles": ["src/\u0007a.py\n"]})
    assert task(result, "a")["owner"] == "sub agent"
    assert task(result, "a")["files"] == ["src/a.py"]


# ---------------------------------------------------------------- write


def item(content: str, status: str = "pending", **extra: object) -> Json:
    return {"content": content, "activeForm": content, "status": status, **extra}


def test_write_keeps_the_fields_an_item_leaves_out(write: Request, apply: Request) -> None:
    write([item("a", description="why", priority="high", owner="me"), item("b")])
    apply({"op": "update", "task": "b", "blockedBy": ["a"], "addFiles": ["f.py"]})
    result = write([item("a", "in_progress"), item("b")])
    a, b = task(result, "a"), task(result, "b")
    assert (a["description"], a["priority"], a["owner"]) == ("why", "high", "me")
    assert b["blockedBy"] == [a["id"]] and b["files"] == ["f.py"]
    cleared = write([item("a", "in_progress", priority=None), item("b", blockedBy=[])])
    assert task(cleared, "a")["priority"] is None and task(cleared, "b")["blockedBy"] == []


def test_write_reports_the_unfinished_tasks_it_removed(write: Request) -> None:
    write([item("a", "completed"), item("b"), item("c"), item("d", "abandoned")])
    result = write([item("a", "completed")])
    assert [t["content"] for t in result["removedTasks"]] == ["b", "c"]
    assert result["summary"].split("\n")[:2] == [
        "Todo list updated: 1/1 completed",
        'Removed 2 unfinished tasks: "b", "c"',
    ]
    one = write([item("x")])
    assert 'Removed 1 unfinished task: "x"' not in one["summary"]
    assert one["removedTasks"] == []  # "a" was completed


def test_write_allows_one_in_progress_per_owner(write: Request) -> None:
    result = write(
        [item("a", "in_progress"), item("b", "in_progress", owner="sub"), item("c", "blocked")]
    )
    assert statuses(result) == {"a": "in_progress", "b": "in_progress", "c": "blocked"}
    with pytest.raises(RequestRefused, match="Only one task can be in_progress at a time"):
        write([item("x", "in_progress"), item("y", "in_progress")])


def test_write_refuses_a_bad_dependency_and_changes_nothing(write: Request) -> None:
    before = write([item("a"), item("b")])
    with pytest.raises(RequestRefused) as refused:
        write([item("a", blockedBy=["b"]), item("b", blockedBy=["a"])])
    # The items are linked in order: the second closes the cycle.
    assert refused.value.errors[0].path == "todos.1.blockedBy"
    assert refused.value.errors[0].message == 'Dependency cycle: "b" -> "a" -> "b"'
    after = write([item("a"), item("b")])
    assert after["version"] == before["version"]


def test_starting_a_task_already_in_progress_makes_it_current(apply: Request) -> None:
    init(apply, "lead", {"content": "x", "owner": "sub"})
    apply({"op": "start", "task": "x"})
    result = apply({"op": "start", "task": "lead"})
    assert result["changed"] is True and result["current"]["content"] == "lead"
    again = apply({"op": "start", "task": "lead"})
    assert again["changed"] is False


def test_write_reverses_a_dependency_in_one_replacement(write: Request) -> None:
    # a waited for b; now b waits for a and a for nothing: no cycle in the resulting plan,
    # whichever item comes first.
    for order in ((0, 1), (1, 0)):
        write([item("a", blockedBy=["b"]), item("b")], session=f"s{order}")
        items = [item("a", blockedBy=[]), item("b", blockedBy=["a"])]
        result = write([items[i] for i in order], session=f"s{order}")
        assert task(result, "a")["blockedBy"] == []
        assert task(result, "b")["blockedBy"] == [task(result, "a")["id"]]


def test_import_reverses_a_dependency_in_one_replacement(import_markdown: Request) -> None:
    import_markdown('## P\n- [ ] b\n- [ ] a\n  Waits for: "b"\n')
    result = import_markdown('## P\n- [ ] b\n  Waits for: "a"\n- [ ] a\n')
    assert not result["errors"], result["errors"]
    assert task(result, "a")["blockedBy"] == []
    assert task(result, "b")["blockedBy"] == [task(result, "a")["id"]]
