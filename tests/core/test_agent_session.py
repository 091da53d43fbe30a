"""The session a person's terminal verbs steer (`PlanService.agent_session`): the one an
agent changed last, whatever a person changed since, on every backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from plansight.core.model import utc_now
from plansight.service import PlanService
from plansight.store import open_store

from .conftest import Request


@pytest.fixture
def service(store_location: str) -> Iterator[PlanService]:
    store = open_store(store_location, workspace="agent-session")
    yield PlanService(store)
    store.close()


def next_millisecond() -> None:
    """Changes are stamped to the millisecond: the next one must come later than the last."""
    now = utc_now()
    while utc_now() == now:
        pass


def test_none_until_an_agent_changes_a_session(service: PlanService, apply: Request) -> None:
    assert service.agent_session() is None
    apply({"op": "append", "phase": "Todos", "items": ["Mine"]}, session="p", origin="user")
    assert service.agent_session() is None


def test_the_session_an_agent_changed_last_though_a_person_changed_another_since(
    service: PlanService, apply: Request
) -> None:
    init = {"op": "init", "list": [{"phase": "Todos", "items": ["A"]}]}
    apply(init, session="claude-code:old")
    next_millisecond()
    apply(init, session="codex:new")
    next_millisecond()
    apply({"op": "done", "task": "A"}, session="claude-code:old", origin="user")
    next_millisecond()
    apply({"op": "append", "phase": "Todos", "items": ["Mine"]}, session="mine", origin="user")

    assert service.agent_session() == "codex:new"

    next_millisecond()
    apply({"op": "append", "phase": "Todos", "items": ["B"]}, session="claude-code:old")
    assert service.agent_session() == "claude-code:old"
