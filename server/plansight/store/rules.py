"""What every store does the same way, whatever it keeps its rows in: a commit's version,
the context rounds an agent's change resets, and the history kept. Written once, for
SQLite and PostgreSQL alike; the stores only say it in their SQL."""

from __future__ import annotations

from plansight.core.model import Origin, Plan

# Plans kept per session for `history` and `restore` (the contract: at least the last 100).
HISTORY_KEPT = 200


def stamp_commit(plan: Plan, now: str) -> None:
    """A committed change: the next version (gap-free), at `now`."""
    plan.version += 1
    plan.updated_at = now


def resets_context_rounds(origin: Origin) -> bool:
    """An agent's own change of a session starts its `context` count again."""
    return origin == "agent"


def seen_by_its_agent(origin: Origin) -> bool:
    """An agent's own change is no news to it: committed while nothing of a person's
    waits to be told, it counts as seen, so the agent's next look is a read (no write
    transaction to mark it). With a person's change waiting, nothing is marked."""
    return origin == "agent"


def plan_let_go(version: int) -> int | None:
    """The version whose kept plan goes once `version` is committed. One more plan than
    listed is kept: the oldest listed change is told against it."""
    return version - HISTORY_KEPT - 1 if version > HISTORY_KEPT + 1 else None


def history_lists(version: int, head: int) -> bool:
    """Whether `history` lists `version` of a session at version `head` (the newest
    HISTORY_KEPT changes): what `restore` may bring back. The plan of the change before
    the oldest listed one is kept too, but only to tell that change in words."""
    return max(1, head - HISTORY_KEPT + 1) <= version <= head


def history_limit(limit: int) -> int:
    """How many changes `history` may list."""
    return min(limit, HISTORY_KEPT)


def agent_base_after(origin: Origin, committed: bool, told: bool, base: int, version: int) -> int:
    """The version the session's agent has seen once an edit leaves the session at
    `version` (steering, v3): its own committed change, or an answer that told it what a
    person changed, brings its view up to date; a person's change, or an agent's request
    that changed nothing and told nothing, does not."""
    return version if told or (committed and origin == "agent") else base
