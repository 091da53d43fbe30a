"""Which session a client follows when the person picked none: one rule for `plansight
watch`, the VS Code extension and the Neovim plugin.

The candidates are the sessions with tasks (and any a client keeps in sight, such as one the
person just cleared), else every session. The session followed so far stays followed while
it is the newest or was updated within `FOLLOW_IDLE_SECONDS`; otherwise the newest one
(updated last, then by name) is followed. So a client follows the agent as soon as it
writes, and two agents writing by turns never flip it between them.

The editors implement the same function (`planState.ts`, `follow.lua`); the cases of
`tests/fixtures/follow_cases.json` run against all three.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from plansight.protocol.vocabulary import FOLLOW_IDLE_SECONDS

FOLLOW_IDLE = timedelta(seconds=FOLLOW_IDLE_SECONDS)


def updated_at(info: Mapping[str, Any]) -> datetime | None:
    """A session's `updatedAt` (the wire's ISO 8601 text); None when missing or unreadable."""
    stamp = info.get("updatedAt")
    if not isinstance(stamp, str) or not stamp:
        return None
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))  # 3.10 reads no "Z"
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _newest_first(info: Mapping[str, Any]) -> tuple[float, str]:
    when = updated_at(info)
    return (-when.timestamp() if when else float("inf"), str(info["session"]))


def _has_tasks(info: Mapping[str, Any]) -> bool:
    progress = info.get("progress")
    return isinstance(progress, Mapping) and bool(progress.get("total"))


def followed_session(
    sessions: Sequence[Mapping[str, Any]],
    previous: str | None,
    now: datetime,
    kept: Collection[str] = (),
    idle: timedelta = FOLLOW_IDLE,
) -> str | None:
    """The session to follow among `sessions` (wire summaries: `session`, `updatedAt`,
    `progress`), given the one followed so far; None when there is no session at all."""
    shown = [s for s in sessions if _has_tasks(s) or s["session"] in kept]
    pool = sorted(shown or sessions, key=_newest_first)
    if not pool:
        return None
    newest = pool[0]
    held = next((s for s in pool if s["session"] == previous), None)
    if held is not None:
        when = updated_at(held)
        if held is newest or (when is not None and now - when <= idle):
            return str(held["session"])
    return str(newest["session"])
