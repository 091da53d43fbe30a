"""A markdown checklist (Plansight's own, oh-my-pi's, Cline's): imported as
`plansight/import` imports it."""

from __future__ import annotations

from typing import Any

from plansight.agents.reading import PayloadReader
from plansight.core.incoming import Incoming, MarkdownPlan


def checklist(payload: dict[str, Any]) -> Incoming:
    """`{text}`."""
    reader = PayloadReader()
    text = reader.text(payload, "text", "payload")
    reader.done()
    return MarkdownPlan(text or "")
