"""The contract's words: what a task's status, priority and a change's origin may be, and
the names used when a client gives none."""

from __future__ import annotations

from typing import Literal

TaskStatus = Literal["pending", "in_progress", "completed", "abandoned", "blocked"]
Priority = Literal["high", "medium", "low"]
Origin = Literal["agent", "user"]

STATUSES: tuple[TaskStatus, ...] = ("pending", "in_progress", "completed", "abandoned", "blocked")
PRIORITIES: tuple[Priority, ...] = ("high", "medium", "low")
DEFAULT_PHASE = "Todos"
DEFAULT_SESSION = "default"
