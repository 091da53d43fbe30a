"""What a tool call answers the model, store faults included: light enough to import
before the store and the service are (see `PlanConnection.tools`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from plansight.store.store_error import StoreError

if TYPE_CHECKING:
    from plansight.wire import Json


@dataclass(frozen=True, slots=True)
class ToolReply:
    """What the model reads (`text`), whether it is an error, and the plan for clients
    that take structured content (todo_read only)."""

    text: str
    is_error: bool = False
    state: Json | None = None


def store_fault_text(exc: StoreError) -> str:
    """A store fault as the model reads it: nothing changed, and what a person can do."""
    return f"Nothing was changed: the Plansight store cannot be used now. {exc}."
