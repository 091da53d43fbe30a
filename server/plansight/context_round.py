"""One `plansight/context` round of a session, as the service answers it and as the
agents' hook tells it: counted, with what a person changed since the agent last looked.
Store and core only, no models: the hook reads it on every prompt of a planned session."""

from __future__ import annotations

from plansight.core.context import ContextText, context_text
from plansight.core.netchange import person_changes
from plansight.store.base import TodoStore


def context_round(
    store: TodoStore, session: str, reminder_after: int, full: bool = False
) -> tuple[ContextText, list[str]]:
    """The context text of `session` (`full`: with the whole list) and the lines of what
    a person changed, once."""
    # One more round counted: its consecutive count, and the person's changes since the
    # previous round (the net change), once.
    rounds, logged = store.context_round(session)
    changes = person_changes(logged, lambda version: store.snapshot(session, version))
    plan = store.load(session)
    return context_text(plan, rounds, changes, reminder_after, full), changes
