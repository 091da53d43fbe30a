"""The store contract, on every backend (SQLite and PostgreSQL, through one fixture): what
survives a restart, the event log, pruning, two processes on one store, watching, rollback.
A second backend proves the interface: a behaviour above the store that differs between
them fails here."""

from __future__ import annotations

import dataclasses
import json
import select
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from plansight.core.errors import RequestRefused
from plansight.core.model import Phase, utc_now
from plansight.protocol.requests import ApplyParams, GetParams, WriteParams
from plansight.service import PlanService
from plansight.store import TodoStore, open_store
from plansight.store.base import ChangeEvent, ChangeNotice, SeenCursor, summary_of
from plansight.store.session_cache import CACHED_SESSIONS

from .test_schema_v2 import distinct_values, sample_task

Json = dict[str, Any]
Opener = Callable[[], TodoStore]


@pytest.fixture
def reopen(store_location: str) -> Iterator[Opener]:
    """Opens another store on the same location, as another process would."""
    opened: list[TodoStore] = []

    def open_another() -> TodoStore:
        store = open_store(store_location, workspace="contract")
        opened.append(store)
        return store

    yield open_another
    for store in opened:
        store.close()


@pytest.fixture
def store(reopen: Opener) -> TodoStore:
    return reopen()


@pytest.fixture
def second_store(reopen: Opener, store: TodoStore) -> TodoStore:
    return reopen()


def apply(service: PlanService, *ops: Json, **params: Any) -> Json:
    request = {"ops": list(ops), **params}
    return service.apply(ApplyParams.validate(request), request).result


def write(service: PlanService, todos: list[Json], **params: Any) -> Json:
    request = {"todos": todos, **params}
    return service.write(WriteParams.validate(request), request).result


def next_millisecond() -> None:
    """Wait until the clock shows a later millisecond, so updatedAt orders sessions."""
    start = utc_now()
    while utc_now() == start:
        pass


def build(service: PlanService) -> Json:
    apply(
        service,
        {
            "op": "init",
            "list": [
                {
                    "phase": "Setup",
                    "items": [
                        {"content": "Clone", "status": "completed"},
                        {"content": "Pin tools", "status": "abandoned"},
                    ],
                },
                {
                    "phase": "Build",
                    "items": ["Compile", {"content": "Test", "activeForm": "Testing"}],
                },
                {"phase": "Empty", "items": ["gone"]},
            ],
        },
        {"op": "rm", "phase": "Empty"},
        {"op": "note", "task": "Compile", "text": "first\nsecond line"},
        {"op": "note", "task": "Compile", "text": "日本語 ✓"},
    )
    return apply(service, {"op": "rm", "task": "Pin tools"}, {"op": "start", "task": "Test"})


# ---------------------------------------------------------------- restart


def test_a_new_store_on_the_same_file_gives_back_everything(
    reopen: Opener, store: TodoStore, service: PlanService
) -> None:
    before = build(service)
    sessions_before = service.sessions()
    store.close()
    reopened = reopen()
    try:
        again = PlanService(reopened)
        state = again.get(GetParams())
        for key in ("session", "version", "phases", "progress", "current", "updatedAt"):
            assert state[key] == before[key]
        assert again.sessions() == sessions_before
        # Ids keep counting after a restart: t2 and t5 were removed, never reused.
        added = apply(again, {"op": "append", "phase": "Build", "items": ["Package"]})
        assert added["phases"][1]["tasks"][-1]["id"] == "t6"
    finally:
        reopened.close()


def test_the_event_log_survives_a_restart(
    reopen: Opener, store: TodoStore, service: PlanService
) -> None:
    build(service)
    apply(service, {"op": "rm", "task": "Compile"})
    events = store.events()
    assert events[-1].removed == [{"id": "t3", "content": "Compile", "phase": "Build"}]
    store.close()
    reopened = reopen()
    try:
        assert reopened.events() == events
    finally:
        reopened.close()


# ---------------------------------------------------------------- the event log


def test_one_event_per_committed_change_with_gap_free_versions(
    store: TodoStore, service: PlanService
) -> None:
    first = {"ops": [{"op": "append", "phase": "A", "items": ["a", "b"]}]}
    service.apply(ApplyParams.validate(first), first)
    apply(service, {"op": "done", "task": "nope"})  # changes nothing
    apply(service, {"op": "done", "task": "a"}, origin="user")
    write(service, [{"content": "a", "activeForm": "a", "status": "completed"}])
    write(service, [{"content": "a", "activeForm": "a", "status": "completed"}])  # the same
    apply(service, {"op": "append", "phase": "X", "items": ["x"]}, session="other")
    events = store.events("default")
    assert [e.version for e in events] == [1, 2, 3]
    assert [e.session for e in events] == ["default"] * 3
    assert [e.origin for e in events] == ["agent", "user", "agent"]
    assert [e.method for e in events] == [
        "plansight/apply",
        "plansight/apply",
        "plansight/write",
    ]
    assert events[0].request == first
    assert events[1].completed == [{"id": "t1", "content": "a", "phase": "A"}]
    assert [e.version for e in store.events("other")] == [1]
    assert len(store.events()) == 4


def test_a_refused_request_leaves_no_event(store: TodoStore, service: PlanService) -> None:
    apply(service, {"op": "append", "phase": "A", "items": ["a"]})
    with pytest.raises(RequestRefused):
        write(
            service,
            [
                {"content": "a", "activeForm": "a", "status": "in_progress"},
                {"content": "b", "activeForm": "b", "status": "in_progress"},
            ],
        )
    assert [e.version for e in store.events()] == [1]


# ---------------------------------------------------------------- pruning


def test_sessions_beyond_max_sessions_are_pruned_least_recently_updated_first(
    store: TodoStore, service: PlanService
) -> None:
    service.session_limit = 3
    for name in ("s1", "s2", "s3"):
        apply(service, {"op": "append", "phase": "A", "items": ["x"]}, session=name)
        next_millisecond()
    apply(service, {"op": "done", "task": "x"}, session="s1")  # s2 is now the oldest
    next_millisecond()
    apply(service, {"op": "append", "phase": "A", "items": ["x"]}, session="s4")
    assert [info["session"] for info in service.sessions()["sessions"]] == ["s4", "s1", "s3"]
    gone = service.get(GetParams(session="s2"))
    assert (gone["version"], gone["phases"]) == (0, [])
    assert store.events("s2") == []
    assert service.get(GetParams(session="s1"))["version"] == 2


def test_sessions_are_listed_most_recently_updated_first(service: PlanService) -> None:
    for name in ("b", "a", "c"):
        apply(service, {"op": "append", "phase": "A", "items": ["x"]}, session=name)
        next_millisecond()
    apply(service, {"op": "done", "task": "x"}, session="b")
    listed = service.sessions()["sessions"]
    assert [info["session"] for info in listed] == ["b", "c", "a"]
    assert listed[0]["version"] == 2
    assert listed[0]["progress"]["completed"] == 1


# ---------------------------------------------------------------- summaries and memory


def test_the_summaries_say_what_the_whole_plans_say(store: TodoStore, service: PlanService) -> None:
    apply(service, {"op": "init", "list": [{"phase": "P", "items": ["a"]}]}, session="empty")
    apply(service, {"op": "rm", "phase": "P"}, session="empty")
    apply(
        service,
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
        session="busy",
    )
    # Waiting on an unfinished task, then on nothing left unfinished.
    for session, done in (("waits", []), ("done", [{"op": "done", "id": "t1"}])):
        apply(
            service,
            {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]},
            {"op": "update", "id": "t2", "blockedBy": ["t1"]},
            *done,
            {"op": "start", "id": "t2"},
            session=session,
        )
    listed = service.sessions()["sessions"]
    # Newest first; sessions written in the same millisecond follow their names.
    assert sorted(info["session"] for info in listed) == ["busy", "done", "empty", "waits"]
    assert listed[0]["session"] == "done" or listed[0]["updatedAt"] == listed[1]["updatedAt"]
    assert store.summaries() == [summary_of(plan) for plan in store.sessions()]
    waiting = {info["session"]: info["current"]["waiting"] for info in listed if info["current"]}
    assert waiting == {"busy": False, "waits": True, "done": False}


def test_summaries_read_no_plan_whole(reopen: Opener, service: PlanService) -> None:
    for name in ("a", "b", "c"):
        apply(service, {"op": "init", "list": [{"phase": "P", "items": ["x", "y"]}]}, session=name)
    fresh: Any = reopen()
    assert [s.progress.total for s in fresh.summaries()] == [2, 2, 2]
    assert len(fresh._cache) == 0  # answered from the tables: no session copied in


def test_memory_keeps_only_the_sessions_used_last(store: TodoStore, service: PlanService) -> None:
    names = [f"s{i}" for i in range(CACHED_SESSIONS * 2)]
    for name in names:
        apply(service, {"op": "init", "list": [{"phase": "P", "items": [name]}]}, session=name)
    for name in names:
        assert [t.content for t in store.load(name).tasks()] == [name]
    for i in range(100):
        assert store.load(f"unknown {i}").version == 0
    assert len(store.sessions()) == len(names)
    kept: Any = store
    assert len(kept._cache) == CACHED_SESSIONS
    # A session read again after it left memory is changed as any other.
    apply(service, {"op": "done", "id": "t1"}, session=names[0])
    assert [t.status for t in store.load(names[0]).tasks()] == ["completed"]
    assert store.load(names[0]).version == 2


# ---------------------------------------------------------------- two processes


def test_two_stores_writing_one_session_alternately_lose_nothing(
    store: TodoStore, second_store: TodoStore
) -> None:
    services = [PlanService(store), PlanService(second_store)]
    for round_ in range(10):
        for which, service in enumerate(services):
            apply(service, {"op": "append", "phase": f"P{which}", "items": [f"{which}-{round_}"]})
        apply(services[round_ % 2], {"op": "done", "task": f"0-{round_}"})
    for service in services:
        state = service.get(GetParams())
        assert state["version"] == 30
        contents = [t["content"] for phase in state["phases"] for t in phase["tasks"]]
        assert sorted(contents) == sorted(f"{w}-{r}" for w in (0, 1) for r in range(10))
        assert state["progress"]["completed"] == 10
    assert [e.version for e in store.events()] == list(range(1, 31))
    assert len({task_id for task_id in _ids(services[0])}) == 20


def poll(store: TodoStore, count: int, timeout: float = 20.0) -> list[ChangeNotice]:
    """What `poll` reports once `count` notices came: a NOTIFY reaches a listener a moment
    after the COMMIT, so wait on what the store says to wait on, as the server does."""
    notices: list[ChangeNotice] = []
    deadline = time.monotonic() + timeout
    while len(notices) < count and time.monotonic() < deadline:
        fd, longest = store.watch_handle()
        wait = min(longest, max(0.0, deadline - time.monotonic()))
        if fd is None:
            time.sleep(wait)
        else:
            select.select([fd], [], [], wait)
        notices += store.poll()
    return notices


def _ids(service: PlanService) -> list[str]:
    state = service.get(GetParams())
    return [t["id"] for phase in state["phases"] for t in phase["tasks"]]


def test_poll_reports_the_other_stores_commits_and_not_its_own(
    store: TodoStore, second_store: TodoStore
) -> None:
    mine, theirs = PlanService(store), PlanService(second_store)
    apply(mine, {"op": "append", "phase": "A", "items": ["early"]})
    store.watch_from_now()
    second_store.watch_from_now()
    apply(theirs, {"op": "append", "phase": "A", "items": ["a", "b"]}, origin="user")
    apply(theirs, {"op": "done", "task": "early"}, session="default")
    apply(mine, {"op": "append", "phase": "A", "items": ["c"]})
    assert poll(store, 2) == [
        ChangeNotice("default", 2, "user", []),
        ChangeNotice("default", 3, "agent", [{"id": "t1", "content": "early", "phase": "A"}]),
    ]
    assert store.poll() == []
    assert poll(second_store, 1) == [ChangeNotice("default", 4, "agent", [])]
    assert mine.get(GetParams())["version"] == theirs.get(GetParams())["version"] == 4


def test_watch_from_now_forgets_earlier_commits(store: TodoStore, second_store: TodoStore) -> None:
    apply(PlanService(second_store), {"op": "append", "phase": "A", "items": ["a"]})
    store.watch_from_now()
    assert store.poll() == []


def test_a_read_sees_the_other_stores_latest_commit(
    store: TodoStore, second_store: TodoStore
) -> None:
    mine, theirs = PlanService(store), PlanService(second_store)
    apply(mine, {"op": "append", "phase": "A", "items": ["a"]})
    assert mine.get(GetParams())["version"] == 1  # cached now
    apply(theirs, {"op": "note", "task": "a", "text": "from elsewhere"})
    state = mine.get(GetParams())
    assert state["version"] == 2
    assert state["phases"][0]["tasks"][0]["notes"] == ["from elsewhere"]


# ---------------------------------------------------------------- rollback


def test_an_exception_inside_an_edit_leaves_nothing(
    store: TodoStore, second_store: TodoStore, service: PlanService
) -> None:
    before = apply(service, {"op": "append", "phase": "A", "items": ["a"]})
    with pytest.raises(RuntimeError, match="boom"), store.edit("default", "agent", 200) as edit:
        task = edit.plan.new_task("half-done", utc_now())
        edit.plan.phases[0].tasks.append(task)
        edit.plan.phases[0].tasks[0].add_note("half a note", utc_now())
        edit.commit(ChangeEvent("agent", "plansight/apply", {"ops": []}))
        raise RuntimeError("boom")
    for reader in (service, PlanService(second_store)):
        state = reader.get(GetParams())
        assert state["version"] == before["version"]
        assert state["phases"] == before["phases"]
    assert [e.version for e in store.events()] == [1]
    after = apply(service, {"op": "append", "phase": "A", "items": ["b"]})
    assert after["version"] == 2
    assert [t["id"] for t in after["phases"][0]["tasks"]] == ["t1", "t2"]


def test_an_exception_in_a_new_session_leaves_no_session(
    store: TodoStore, service: PlanService
) -> None:
    with pytest.raises(RuntimeError), store.edit("fresh", "agent", 200) as edit:
        edit.plan.phases.append(Phase("P", [edit.plan.new_task("x", utc_now())]))
        edit.commit(ChangeEvent("agent", "plansight/apply", {}))
        raise RuntimeError("boom")
    assert service.sessions() == {"sessions": []}


# ---------------------------------------------------------------- every field


def test_every_task_field_the_title_and_the_snapshot_survive_a_restart(
    reopen: Opener, store: TodoStore
) -> None:
    task = distinct_values(sample_task())
    with store.edit("s", "agent", 200) as edit:
        edit.plan.phases = [Phase("P", [task])]
        edit.plan.title = "Ship the release"
        edit.commit(ChangeEvent("agent", "plansight/apply", {}))
    store.close()
    again = reopen()
    plan = again.load("s")
    assert plan.phases[0].tasks[0] == task
    assert plan.title == "Ship the release"
    record = again.snapshot("s", 1)
    assert record is not None
    assert record["title"] == "Ship the release"
    assert record["phases"][0]["tasks"][0] == json.loads(json.dumps(dataclasses.asdict(task)))


def test_an_agents_own_change_is_seen_and_a_persons_is_told_once(service: PlanService) -> None:
    """The agent's change counts as seen when it is committed; a person's change made
    before it is still told, once, whatever the agent changed after it."""
    apply(service, {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}, session="s")
    assert service.person_changes("s") == []
    apply(service, {"op": "done", "task": "a"}, session="s", origin="user")
    apply(service, {"op": "note", "task": "b", "text": "later"}, session="s")
    told = service.person_changes("s")
    assert len(told) == 1 and '"a"' in told[0], told
    assert service.person_changes("s") == []
    apply(service, {"op": "done", "task": "b"}, session="s")
    assert service.person_changes("s") == []


def test_a_persons_change_before_the_agents_first_look_is_told(service: PlanService) -> None:
    apply(service, {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}, session="t")
    apply(service, {"op": "done", "task": "a"}, session="t", origin="user")
    apply(service, {"op": "start", "task": "b"}, session="t")
    told = service.person_changes("t")
    assert len(told) == 1 and '"a"' in told[0], told


# ---------------------------------------------------------------- steering (v3)


def agent_base(store: TodoStore, session: str) -> int:
    """The base an edit would merge from, as the store hands it out."""
    with store.edit(session, "agent", 200) as edit:
        return edit.agent_base


def test_created_by_is_kept_and_read_back_by_another_process(
    store: TodoStore, second_store: TodoStore
) -> None:
    service = PlanService(store)
    apply(service, {"op": "append", "phase": "P", "items": ["mine"]})
    apply(service, {"op": "append", "phase": "P", "items": ["theirs"]}, origin="user")

    plan = second_store.load("default")

    assert [(t.content, t.created_by) for t in plan.tasks()] == [
        ("mine", "agent"),
        ("theirs", "user"),
    ]


def test_the_agents_base_moves_with_its_own_change_and_with_context_not_with_a_persons(
    store: TodoStore, second_store: TodoStore
) -> None:
    service = PlanService(store)
    assert agent_base(second_store, "default") == 0
    apply(service, {"op": "append", "phase": "P", "items": ["a"]})  # version 1
    apply(service, {"op": "append", "phase": "P", "items": ["b"]}, origin="user")  # 2
    assert agent_base(second_store, "default") == 1

    second_store.context_round("default")

    assert agent_base(store, "default") == 2
    apply(service, {"op": "append", "phase": "P", "items": ["c"]}, origin="user")  # 3
    assert second_store.unseen_changes("default")  # an MCP answer tells it
    assert agent_base(store, "default") == 3


def test_an_edit_that_told_the_agent_moves_its_base_without_a_commit(
    store: TodoStore, second_store: TodoStore
) -> None:
    service = PlanService(store)
    apply(service, {"op": "append", "phase": "P", "items": ["a"]})
    apply(service, {"op": "append", "phase": "P", "items": ["b"]}, origin="user")

    with store.edit("default", "agent", 200) as edit:  # as the service says a Kept line
        edit.moves_base, edit.cursor = True, SeenCursor.TOLD

    assert agent_base(second_store, "default") == 2
    assert second_store.unseen_changes("default") == []  # told: not told again
