"""The contract's words: what a task's status, priority and a change's origin may be, which
statuses are finished, and the names used when a client gives none."""

from __future__ import annotations

from typing import Literal

TaskStatus = Literal["pending", "in_progress", "completed", "abandoned", "blocked"]
Priority = Literal["high", "medium", "low"]
Origin = Literal["agent", "user"]

STATUSES: tuple[TaskStatus, ...] = ("pending", "in_progress", "completed", "abandoned", "blocked")
PRIORITIES: tuple[Priority, ...] = ("high", "medium", "low")
# The statuses a task ends in: it counts as finished (never waited for, never current). The
# editors read this table from `plansight schema` (its `rules`), never a copy of their own.
FINISHED_STATUSES: tuple[TaskStatus, ...] = ("completed", "abandoned")
# A followed session gives way to a newer one only after being idle this long (seconds), so
# two agents writing by turns never flip what a client follows (`protocol/follow.py`).
FOLLOW_IDLE_SECONDS = 120
DEFAULT_PHASE = "Todos"
DEFAULT_SESSION = "default"
