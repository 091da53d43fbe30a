"""The plan as an MCP resource: `plansight://plan/{session}`, in markdown."""

from __future__ import annotations

from urllib.parse import quote, unquote

PLAN_PREFIX = "plansight://plan/"
PLAN_TEMPLATE = PLAN_PREFIX + "{session}"
MARKDOWN = "text/markdown"
EMPTY_MARKDOWN = "_The todo list is empty._\n"


def plan_uri(session: str) -> str:
    # Session names hold spaces and colons (`claude-code 2026-11-21 14:03`).
    return PLAN_PREFIX + quote(session, safe="")


def session_of(uri: str) -> str | None:
    """The session a plan URI names, or None when it names none."""
    if not uri.startswith(PLAN_PREFIX):
        return None
    session = unquote(uri[len(PLAN_PREFIX) :])
    return session or None
