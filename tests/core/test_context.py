"""`plansight/context`: progress, current task and remaining count; a `<system-reminder>`
after a user's change; the "update your todos" reminder from the Nth quiet call on."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from plansight.core.settings import Settings
from plansight.protocol.requests import ClearParams, ContextParams
from plansight.service import PlanService

from .conftest import Json, Request

REMINDER = "<reminder>Update your todos.</reminder>"


@pytest.fixture
def context(service: PlanService) -> Callable[..., Json]:
    def run(session: str = "default") -> Json:
        return service.context(ContextParams(session=session))

    return run


def plan(apply: Request, **params: str) -> Json:
    return apply(
        {
            "op": "init",
            "list": [
                {
                    "phase": "Build",
                    "items": [
                        {"content": "Write code", "status": "completed"},
                        {"content": "Run tests", "activeForm": "Running tests"},
                        "Ship",
                    ],
                }
            ],
        },
        **params,
    )


def test_an_empty_session_says_so(context: Callable[..., Json]) -> None:
    result = context()
    assert result == {"text": "The todo list is empty.", "reminder": False}


def test_the_text_holds_progress_current_task_and_remaining_count(
    apply: Request, context: Callable[..., Json]
) -> None:
    plan(apply)
    result = context()
    assert result["reminder"] is False
    assert "1/3 completed" in result["text"]
    assert "2 remaining" in result["text"]
    assert "Running tests" in result["text"]
    assert "<system-reminder>" not in result["text"]


def test_a_persons_change_is_told_once_in_a_system_reminder(
    apply: Request, context: Callable[..., Json]
) -> None:
    plan(apply)
    context()
    apply({"op": "done", "task": "Run tests"}, {"op": "rm", "task": "Ship"}, origin="user")
    text = context()["text"]
    start = text.index("<system-reminder>")
    told = text[start : text.index("</system-reminder>")]
    assert '"Run tests"' in told
    assert '"Ship"' in told
    assert "<system-reminder>" not in context()["text"]


def test_the_agents_own_changes_bring_no_system_reminder(
    apply: Request, context: Callable[..., Json]
) -> None:
    plan(apply)
    context()
    apply({"op": "done", "task": "Run tests"})
    assert "<system-reminder>" not in context()["text"]


def test_every_persons_change_since_the_last_call_is_told(
    apply: Request, context: Callable[..., Json]
) -> None:
    plan(apply)
    context()
    apply({"op": "append", "phase": "Build", "items": ["Write docs"]}, origin="user")
    apply({"op": "done", "task": "Run tests"})
    apply({"op": "note", "task": "Ship", "text": "wait for review"}, origin="user")
    text = context()["text"]
    assert '"Write docs"' in text
    assert "wait for review" in text


def test_the_reminder_comes_from_the_nth_quiet_call_and_stays(
    apply: Request, context: Callable[..., Json]
) -> None:
    plan(apply)
    calls = [context() for _ in range(5)]
    assert [call["reminder"] for call in calls] == [False, False, True, True, True]
    for call in calls[:2]:
        assert REMINDER not in call["text"]
    for call in calls[2:]:
        assert call["text"].endswith(REMINDER)


def test_reminder_after_rounds_sets_n(
    service: PlanService, apply: Request, context: Callable[..., Json]
) -> None:
    service.settings = Settings(reminder_after_rounds=1)
    plan(apply)
    assert context()["reminder"] is True
    service.settings = Settings(reminder_after_rounds=5)
    assert [context()["reminder"] for _ in range(4)] == [False, False, False, True]


@pytest.mark.parametrize("kind", ["apply", "write", "clear", "import"])
def test_an_agent_change_resets_the_count(
    service: PlanService,
    apply: Request,
    write: Request,
    import_markdown: Request,
    context: Callable[..., Json],
    kind: str,
) -> None:
    plan(apply)
    assert [context()["reminder"] for _ in range(3)] == [False, False, True]
    if kind == "apply":
        apply({"op": "done", "task": "Run tests"})
    elif kind == "write":
        write([{"content": "One", "activeForm": "Doing one", "status": "in_progress"}])
    elif kind == "clear":
        service.clear(ClearParams(), {})
    else:
        import_markdown("## Build\n- [/] Run tests\n")
    assert [context()["reminder"] for _ in range(3)] == [False, False, True]


def test_a_persons_change_does_not_reset_the_count(
    apply: Request, context: Callable[..., Json]
) -> None:
    plan(apply)
    context()
    context()
    apply({"op": "done", "task": "Run tests"}, origin="user")
    result = context()
    assert result["reminder"] is True
    assert "<system-reminder>" in result["text"]
    assert result["text"].endswith(REMINDER)


def test_sessions_count_their_rounds_apart(apply: Request, context: Callable[..., Json]) -> None:
    plan(apply)
    plan(apply, session="other")
    for _ in range(3):
        context()
    assert context("other")["reminder"] is False
    assert context()["reminder"] is True
