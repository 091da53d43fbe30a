"""What a tool call answers the model, store faults included: light enough to import
before the store and the service are (see `PlanConnection.tools`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from plansight.store.store_error import StoreError

if TYPE_CHECKING:
    from plansight.wire import Json

# todo_read's structured content names what the person changed since the agent's last call
# here, as its text does: Claude Code 2.1 and Codex 0.171 hand their model the structured
# content (as JSON), not the text, whenever a result has some (both checked with the real
# CLIs in tests/agent_clis).
NEWS_FIELD = "userChanges"
# ... and so is the line asking an untrusting Codex's model to have its hooks trusted
# (`hook_trust.py`).
NOTICE_FIELD = "notice"
NOTICE_SCHEMA = {
    "type": "string",
    "description": "Something the user must do for this plan to work: tell them. Absent "
    "when there is nothing.",
}
NEWS_SCHEMA = {
    "type": "string",
    "description": "What the user changed in the todo list since your last call, said once: "
    "take it into account and do not undo it. Absent when nothing changed.",
}


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
