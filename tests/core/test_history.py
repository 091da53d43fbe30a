"""`plansight/history` and `plansight/restore`: every committed change in words, newest
first, and any listed version brought back as a new change; and `context` telling the
net change a person made."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from plansight.core.changes import FIELD_WORDS, WORDED_ELSEWHERE
from plansight.core.errors import RequestRefused
from plansight.core.model import SEEN_FIELDS
from plansight.protocol.requests import ContextParams, HistoryParams, RestoreParams
from plansight.service import PlanService
from plansight.store import open_store
from plansight.store.rules import HISTORY_DEPTH

from .conftest import Json, Request


@pytest.fixture
def service(store_location: str) -> Iterator[PlanService]:
    """History and restore live in the store: these run on every backend."""
    store = open_store(store_location, workspace="history")
    yield PlanService(store)
    store.close()


def history(service: PlanService, **params: object) -> list[Json]:
    events: list[Json] = service.history(HistoryParams.validate(params))["events"]
    return events


def restore(service: PlanService, version: int, **params: object) -> Json:
    request = {"version": version, **params}
    return service.restore(RestoreParams.validate(request), request).result


def contents(result: Json) -> list[str]:
    return [t["content"] for p in result["phases"] for t in p["tasks"]]


def test_history_lists_each_change_newest_first_in_words(
    apply: Request, service: PlanService
) -> None:
    apply({"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]})
    apply({"op": "done", "task": "a"}, origin="user")
    apply({"op": "block", "task": "b", "reason": "needs a key"})
    events = history(service)
    assert [e["version"] for e in events] == [3, 2, 1]
    assert [e["method"] for e in events] == ["plansight/apply"] * 3
    assert [e["origin"] for e in events] == ["agent", "user", "agent"]
    assert events[0]["changes"] == ['marked "b" blocked', 'added a note to "b": "needs a key"']
    # (v3) A person's change never makes the server start a task.
    assert events[1]["changes"] == ['completed "a"']
    assert 'added "a" to phase "P"' in events[2]["changes"]
    assert all(e["at"].endswith("Z") for e in events)
    assert [e["version"] for e in history(service, limit=1)] == [3]


def test_restore_brings_back_a_version_as_a_new_change(
    apply: Request, write: Request, service: PlanService
) -> None:
    apply(
        {
            "op": "init",
            "list": [{"phase": "P", "items": [{"content": "a", "priority": "high"}, "b"]}],
        }
    )
    apply({"op": "note", "task": "a", "text": "kept"})
    wiped = write([{"content": "x", "activeForm": "x", "status": "pending"}])
    assert wiped["version"] == 3
    result = restore(service, 2, origin="user")
    assert result["changed"] is True and result["version"] == 4
    assert contents(result) == ["a", "b"]
    a = result["phases"][0]["tasks"][0]
    assert (a["id"], a["priority"], a["notes"], a["status"]) == (
        "t1",
        "high",
        ["kept"],
        "in_progress",
    )
    assert [t["content"] for t in result["removedTasks"]] == ["x"]
    assert history(service)[0]["method"] == "plansight/restore"
    assert history(service)[0]["origin"] == "user"
    again = restore(service, 2)
    assert again["changed"] is False and again["version"] == 4
    # The id counter never goes back: a new task does not reuse x's id.
    appended = apply({"op": "append", "phase": "P", "items": ["c"]})
    assert appended["phases"][0]["tasks"][-1]["id"] == "t4"


@pytest.mark.parametrize("version", [0, 5, -1])
def test_a_version_not_listed_is_refused_on_the_path_version(
    apply: Request, service: PlanService, version: int
) -> None:
    apply({"op": "init", "list": [{"phase": "P", "items": ["a"]}]})
    with pytest.raises(RequestRefused) as refused:
        restore(service, version)
    assert [e.path for e in refused.value.errors] == ["version"]


def test_history_keeps_the_newest_versions_and_refuses_older_ones(
    apply: Request, service: PlanService
) -> None:
    apply({"op": "init", "list": [{"phase": "P", "items": ["a"]}]})
    for n in range(HISTORY_DEPTH + 5):
        apply(
            {"op": "note", "task": "a", "text": f"n{n % 50}"},
            {"op": "rm", "task": "a"},
            {"op": "append", "phase": "P", "items": ["a"]},
        )
    events = history(service)
    assert len(events) == HISTORY_DEPTH >= 100
    assert events[-1]["version"] == events[0]["version"] - HISTORY_DEPTH + 1
    with pytest.raises(RequestRefused):
        restore(service, 1)
    # The plan right before the oldest listed change is still stored (that change is told
    # against it), but history does not list it: the contract refuses it.
    with pytest.raises(RequestRefused) as refused:
        restore(service, events[-1]["version"] - 1)
    assert [e.path for e in refused.value.errors] == ["version"]
    restored = restore(service, events[-1]["version"])
    assert restored["changed"] is True


def _item(content: str, status: str = "pending", **extra: object) -> Json:
    return {"content": content, "activeForm": content, "status": status, "phase": "P", **extra}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda apply, write, service: write(
                [_item("a", "in_progress", activeForm="Making a"), _item("b")]
            ),
            ['changed the active form of "a" to "Making a"', 'removed phase "Q"'],
        ),
        (
            lambda apply, write, service: apply(
                {"op": "update", "task": "a", "addFiles": ["x.py"]}
            ),
            ['added the files "x.py" to "a"'],
        ),
        (
            # Back to the version before the note was added.
            lambda apply, write, service: (
                apply({"op": "note", "task": "a", "text": "second"}),
                restore(service, 2),
            ),
            ['deleted a note of "a": "second"'],
        ),
        (
            lambda apply, write, service: apply({"op": "append", "phase": "Later", "items": ["c"]}),
            ['added "c" to phase "Later"'],
        ),
        (
            # The phase "Q" was left empty by an rm: a full replacement drops it.
            lambda apply, write, service: write([_item("a", "in_progress"), _item("b")]),
            ['removed phase "Q"'],
        ),
        (
            # Two owners each with a task in progress: starting the older one again makes
            # it the current task, nothing else.
            lambda apply, write, service: (
                apply({"op": "update", "task": "b", "owner": "sub", "status": "in_progress"}),
                apply({"op": "start", "task": "a"}),
            ),
            ['started "a" again'],
        ),
        (
            # (v4) One task's new place is said as the `move` op says it.
            lambda apply, write, service: write([_item("b"), _item("a", "in_progress")]),
            ['moved "a" after "b"', 'removed phase "Q"'],
        ),
        (
            lambda apply, write, service: apply(
                {"op": "append", "phase": "P", "items": ["c"]},
                {"op": "move", "task": "c", "before": "a"},
            ),
            ['added "c" to phase "P"'],
        ),
    ],
)
def test_every_committed_change_says_what_changed(
    apply: Request, write: Request, service: PlanService, change: Any, words: list[str]
) -> None:
    apply(
        {
            "op": "init",
            "list": [
                {"phase": "P", "items": [{"content": "a", "notes": ["first"]}, "b"]},
                {"phase": "Q", "items": ["q"]},
            ],
        }
    )
    apply({"op": "rm", "phase": "Q"})
    version = history(service)[0]["version"]
    change(apply, write, service)
    events = history(service)
    assert events[0]["version"] > version
    assert all(event["changes"] for event in events), events
    assert events[0]["changes"] == words


@pytest.mark.parametrize(
    ("order", "words"),
    [
        (["b", "a", "c"], ['moved "a" after "b"']),  # a swap: the first one went down
        (["c", "a", "b"], ['moved "c" before "a"']),  # went up
        (["a", "c", "b"], ['moved "b" after "c"']),
        (["c", "b", "a"], ['reordered the tasks of phase "P"']),  # beyond one move
    ],
)
def test_a_reorder_is_said_as_a_move_when_one_task_moved(
    apply: Request, write: Request, service: PlanService, order: list[str], words: list[str]
) -> None:
    """(v4) History reads a move off the two versions, whatever request made it."""
    apply({"op": "init", "list": [{"phase": "P", "items": ["a", "b", "c"]}]})
    write([_item(content, "in_progress" if content == "a" else "pending") for content in order])
    assert history(service)[0]["changes"] == words


def test_every_field_a_reader_sees_has_its_words() -> None:
    """A new Task field is said in history (and to the agent) once it is worded here."""
    assert set(FIELD_WORDS) | WORDED_ELSEWHERE == set(SEEN_FIELDS)


# ---------------------------------------------------------------- context: the net change


def told(service: PlanService) -> str:
    text: str = service.context(ContextParams())["text"]
    if "<system-reminder>" not in text:
        return ""
    return text[text.index("<system-reminder>") : text.index("</system-reminder>")]


def test_context_tells_the_net_change_not_each_step(apply: Request, service: PlanService) -> None:
    apply({"op": "init", "list": [{"phase": "P", "items": ["a", "b", "c"]}]})
    told(service)
    apply({"op": "append", "phase": "P", "items": ["temp"]}, origin="user")
    apply({"op": "start", "task": "c"}, origin="user")
    apply({"op": "start", "task": "a"}, origin="user")
    apply({"op": "rm", "task": "temp"}, origin="user")
    apply({"op": "done", "task": "b"}, origin="user")
    reminder = told(service)
    assert "temp" not in reminder
    assert '"c"' not in reminder  # started, then back to pending: no net change
    assert 'completed "b"' in reminder


def test_the_servers_auto_start_is_not_the_persons_doing(
    apply: Request, service: PlanService
) -> None:
    apply({"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]})
    told(service)
    apply({"op": "done", "task": "a"}, origin="user")
    reminder = told(service)
    assert 'completed "a"' in reminder
    assert '"b"' not in reminder
