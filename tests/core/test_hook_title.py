"""A hook names a session by its conversation's first prompt only while the session has no
title, decided in the change's own transaction: a title a person (or a parallel hook of
the same conversation) set meanwhile is never overwritten by a later plan tool call."""

from __future__ import annotations

from typing import Any

from plansight.protocol.requests import IngestParams
from plansight.service import PlanService

TODOS = {"todos": [{"content": "Reproduce", "status": "in_progress", "activeForm": "Reproducing"}]}


def _ingest(service: PlanService, title: str) -> None:
    request: dict[str, Any] = {
        "session": "claude-code:1",
        "format": "claude-todowrite",
        "payload": TODOS,
        "title": title,
    }
    service.ingest(IngestParams.validate(request), request, title_if_untitled=True)


def test_the_first_plan_names_an_untitled_session(service: PlanService) -> None:
    _ingest(service, "Fix the login bug")
    assert service.load("claude-code:1").title == "Fix the login bug"


def test_a_title_set_meanwhile_stays(service: PlanService) -> None:
    _ingest(service, "Fix the login bug")
    rename: dict[str, Any] = {
        "session": "claude-code:1",
        "origin": "user",
        "format": "markdown",
        "payload": {"text": "# Login: the real cause\n## Todos\n- [/] Reproduce\n"},
    }
    service.ingest(IngestParams.validate(rename), rename)
    _ingest(service, "Fix the login bug please")  # a hook that read no title before
    assert service.load("claude-code:1").title == "Login: the real cause"
