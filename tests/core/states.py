"""Reading TodoState dicts the way a test wants to compare them."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]


def rows(state: Json) -> list[tuple[str, str, str]]:
    """Every task of a TodoState as (phase, content, status), in list order."""
    return [
        (phase["name"], task["content"], task["status"])
        for phase in state["phases"]
        for task in phase["tasks"]
    ]


def task(state: Json, content: str) -> Json:
    """The first task of a TodoState with this content."""
    return next(t for phase in state["phases"] for t in phase["tasks"] if t["content"] == content)
