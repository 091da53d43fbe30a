"""`plansight/undo` (v3): one step back per undo, as an editor's undo, on every backend; the
undo point read from the history (`core.undo`), any other change ending the run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from plansight.core.changes import LoggedChange
from plansight.core.undo import NOTHING_TO_UNDO, UNDO_METHOD, undo_target
from plansight.protocol.requests import HistoryParams, UndoParams
from plansight.service import PlanService
from plansight.store import open_store
from plansight.store.rules import HISTORY_DEPTH

from .conftest import Json, Request


@pytest.fixture
def service(store_location: str) -> Iterator[PlanService]:
    """The undo point lives in the store's log: these run on every backend."""
    store = open_store(store_location, workspace="undo")
    yield PlanService(store)
    store.close()


def undo(service: PlanService, **params: object) -> Json:
    request = dict(params)
    return service.undo(UndoParams.validate(request), request).result


def contents(result: Json) -> list[tuple[str, str]]:
    return [(t["content"], t["status"]) for p in result["phases"] for t in p["tasks"]]


def newest(service: PlanService) -> Json:
    event: Json = service.history(HistoryParams(limit=1))["events"][0]
    return event


def three_changes(apply: Request) -> list[Json]:
    return [
        apply({"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}),
        apply({"op": "done", "task": "a"}),
        apply({"op": "append", "phase": "Q", "items": ["c"]}),
    ]


def test_undo_twice_steps_back_twice_then_to_the_empty_list(
    apply: Request, service: PlanService
) -> None:
    first, second, _ = three_changes(apply)
    once = undo(service, origin="user")
    assert once["version"] == 4 and once["changed"] and not once["isError"]
    assert contents(once) == contents(second)
    assert once["removedTasks"] == [{"id": "t3", "content": "c", "phase": "Q"}]
    twice = undo(service, origin="user")
    assert twice["version"] == 5 and contents(twice) == contents(first)
    thrice = undo(service, origin="user")
    assert thrice["version"] == 6 and thrice["phases"] == []  # version 0: the empty list
    assert thrice["summary"].startswith("Todo list cleared.")
    nothing = undo(service, origin="user")
    assert nothing["isError"] and nothing["errors"] == [NOTHING_TO_UNDO]
    assert nothing["version"] == 6 and not nothing["changed"]
    events = service.history(HistoryParams())["events"]
    assert [(e["version"], e["method"], e["origin"]) for e in events[:3]] == [
        (6, UNDO_METHOD, "user"),
        (5, UNDO_METHOD, "user"),
        (4, UNDO_METHOD, "user"),
    ]
    assert events[2]["changes"] == ['removed "c"', 'removed phase "Q"']


def test_any_other_change_ends_the_run(apply: Request, service: PlanService) -> None:
    three_changes(apply)
    undo(service, origin="user")  # c is gone again (version 4)
    changed = apply({"op": "note", "task": "b", "text": "mind the cache"})  # version 5
    # The undo point is the note's version now: undo takes the note back, no more.
    back = undo(service, origin="user")
    assert back["version"] == 6
    assert contents(back) == [("a", "completed"), ("b", "in_progress")]
    assert [t["notes"] for p in back["phases"] for t in p["tasks"]] == [[], []]
    assert changed["version"] == 5
    # And then the change before it: the undo that removed c, which brings c back.
    again = undo(service, origin="user")
    assert ("c", "pending") in contents(again)


def test_an_empty_session_has_nothing_to_undo(service: PlanService) -> None:
    result = undo(service, session="new")
    assert result["isError"] and result["errors"] == [NOTHING_TO_UNDO]
    assert result["version"] == 0 and result["summary"].startswith("Errors: Nothing to undo")
    assert service.store.load("new").version == 0


def test_origin_is_respected_and_a_persons_undo_starts_nothing(
    write: Request, apply: Request, service: PlanService
) -> None:
    # A write never auto-starts: version 1 has nothing in progress.
    write(
        [
            {"content": "a", "activeForm": "Doing a", "status": "pending"},
            {"content": "b", "activeForm": "Doing b", "status": "pending"},
        ]
    )
    apply({"op": "start", "task": "b"})
    back = undo(service, origin="user")
    assert contents(back) == [("a", "pending"), ("b", "pending")]
    assert back["current"] is None  # the person's undo did not start "a"
    assert newest(service)["origin"] == "user"
    apply({"op": "start", "task": "a"})
    by_agent = undo(service)  # origin defaults to agent
    assert newest(service)["origin"] == "agent" and by_agent["current"] is None


def test_undo_steps_over_changes_of_every_origin(apply: Request, service: PlanService) -> None:
    apply({"op": "init", "list": [{"phase": "P", "items": ["a"]}]})
    apply({"op": "append", "phase": "P", "items": ["person's"]}, origin="user")
    apply({"op": "append", "phase": "P", "items": ["agent's"]})
    assert [c for c, _ in contents(undo(service, origin="user"))] == ["a", "person's"]
    assert [c for c, _ in contents(undo(service, origin="user"))] == ["a"]


def test_a_run_past_the_history_kept_has_nothing_to_undo(
    apply: Request, service: PlanService
) -> None:
    apply({"op": "init", "list": [{"phase": "P", "items": ["a"]}]})
    for n in range(HISTORY_DEPTH // 2 + 10):
        apply({"op": "update", "task": "a", "description": f"d{n}"})
    last = service.store.load("default").version
    steps = 0
    while not (result := undo(service, origin="user"))["isError"]:
        steps += 1
    # Each undo's own change fills the history too: the run stops where the version it
    # would go back to is no longer listed, with the list as the last undo left it.
    assert result["errors"] == [NOTHING_TO_UNDO] and not result["changed"]
    listed = {e["version"] for e in service.history(HistoryParams())["events"]}
    point = last - steps
    assert point - 1 not in listed and point - 1 > 0
    # The plan of version `point`: the init and `point - 1` updates.
    assert result["phases"][0]["tasks"][0]["description"] == f"d{point - 2}"


# ---------------------------------------------------------------- the undo point, pure


def change(version: int, method: str = "plansight/apply") -> LoggedChange:
    return LoggedChange(version, "agent", method, "", [], [])


def test_the_undo_point_is_the_newest_change_less_the_undos_after_it() -> None:
    assert undo_target([]) is None
    assert undo_target([change(1)]) == 0
    assert undo_target([change(3), change(2), change(1)]) == 2
    assert undo_target([change(5, UNDO_METHOD), change(4, UNDO_METHOD), change(3)]) == 0
    assert undo_target([change(4, UNDO_METHOD), change(3), change(2), change(1)]) == 1
    # Undone down to 0: nothing more.
    assert undo_target([change(2, UNDO_METHOD), change(1)]) is None


def test_a_version_no_longer_listed_cannot_be_gone_back_to() -> None:
    listed = [change(300)] + [change(v) for v in range(299, 101, -1)]
    assert undo_target(listed) == 299
    only_undos = [change(v, UNDO_METHOD) for v in range(300, 100, -1)]
    assert undo_target(only_undos) is None
    # Newest change 250, 50 undos after it: back to 199, which is listed only down to 101.
    run = [change(v, UNDO_METHOD) for v in range(300, 250, -1)] + [
        change(v) for v in range(250, 100, -1)
    ]
    assert undo_target(run) == 199
    longer = [change(v, UNDO_METHOD) for v in range(300, 200, -1)] + [
        change(v) for v in range(200, 100, -1)
    ]
    assert undo_target(longer) is None  # point 100: version 99 is not listed
