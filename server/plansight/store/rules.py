"""What every store does the same way, whatever it keeps its rows in: a commit's version
and the history kept. Written once, for SQLite and PostgreSQL alike; the stores only say
it in their SQL. When the agent's base and seen cursor move is the service's decision
(`agent_view.py`); the store writes them as an edit says (`SessionEdit.moves_base`)."""

from __future__ import annotations

from plansight.core.model import Origin, Plan
from plansight.store.snapshots import FULL_PLAN_EVERY

# Plans kept per session for `history` and `restore` (the contract: at least the last 100).
HISTORY_DEPTH = 200


def stamp_commit(plan: Plan, now: str) -> None:
    """A committed change: the next version (gap-free), at `now`."""
    plan.version += 1
    plan.updated_at = now


def agents_own_change(origin: Origin) -> bool:
    """A change the session's agent made itself, not a person's (what follows for its view
    of the session, the service decides: `agent_view.py`)."""
    return origin == "agent"


def stores_whole_plan(version: int, last_plan_stored: bool) -> bool:
    """Whether `version` keeps its whole plan for history (see `store.snapshots`) rather
    than its change against the version before: every FULL_PLAN_EVERY-th version, and
    whenever the version before kept no plan (a session's first, or the first after a
    migration)."""
    return version % FULL_PLAN_EVERY == 0 or not last_plan_stored


def plans_let_go(version: int) -> tuple[int, int] | None:
    """The versions whose kept plans go once `version` is committed, first and last, a
    whole plan's stretch at a time. The kept ones (HISTORY_DEPTH of them and one more:
    the oldest listed change is told against it) are read from the last whole plan at or
    before the oldest; every version below that one goes (the stretches before it went
    earlier)."""
    if version % FULL_PLAN_EVERY:
        return None
    oldest_whole = (version - HISTORY_DEPTH) // FULL_PLAN_EVERY * FULL_PLAN_EVERY
    if oldest_whole <= 0:
        return None
    return oldest_whole - FULL_PLAN_EVERY, oldest_whole - 1


def restorable(version: int, head: int) -> bool:
    """Whether the plan of `version` is kept in a session at version `head`: the newest
    HISTORY_DEPTH and one more (older ones may still be stored, as the base a kept one is
    read from, but cannot be restored)."""
    return version > 0 and head - HISTORY_DEPTH <= version <= head


def history_lists(version: int, head: int) -> bool:
    """Whether `history` lists `version` of a session at version `head` (the newest
    HISTORY_DEPTH changes): what `restore` may bring back. The plan of the change before
    the oldest listed one is kept too, but only to tell that change in words."""
    return max(1, head - HISTORY_DEPTH + 1) <= version <= head


def history_limit(limit: int) -> int:
    """How many changes `history` may list."""
    return min(limit, HISTORY_DEPTH)
