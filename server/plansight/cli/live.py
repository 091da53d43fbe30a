"""`plansight watch`: the panel, redrawn whenever the store changes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any, cast

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.text import Text

from plansight.cli.panel import ICONS, checkout_label, progress_bar, render_state
from plansight.protocol.follow import followed_session, updated_at
from plansight.protocol.requests import GetParams
from plansight.protocol.text import terminal_safe_tree
from plansight.service import PlanService

POLL_SECONDS = 0.1
# A session written to this recently is an agent at work: it shows under the followed one.
ACTIVE_FOR = timedelta(minutes=10)


def pick_session(service: PlanService, wanted: str | None) -> str | None:
    """The named session, else the one updated last (None while the store is empty)."""
    if wanted:
        return wanted
    sessions = service.summaries()
    return sessions[0].session if sessions else None


def _recent(info: dict[str, Any], now: datetime, within: timedelta) -> bool:
    when = updated_at(info)
    return when is not None and now - when <= within


def summary_line(info: dict[str, Any]) -> Text:
    """One line for a session that is not followed: name, progress, what it is doing."""
    info = cast("dict[str, Any]", terminal_safe_tree(info))  # whatever the store holds
    progress = info["progress"]
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(f"{ICONS['in_progress'] if info['current'] else ICONS['pending']} ", style="dim")
    line.append(info["session"], style="bold")
    line.append(f"  {progress_bar(progress['completed'], progress['total'], 5)}", style="dim")
    where = checkout_label(info.get("checkout"))
    if where:
        line.append(f"  {where}", style="dim")
    if info["current"]:
        line.append(f"  {info['current']['activeForm']}", style="yellow")
    return line


class Watcher:
    """What `watch` shows: one session followed in full, the other active ones a line each.

    The followed session is the pinned one (`--session`), else the one updated last when
    the watch began (one with tasks first); it stays followed while it is in use, so a
    second agent writing in turn with the first never flips the panel: it shows as a line
    underneath (`protocol/follow.py`, the editors' rule too)."""

    def __init__(
        self,
        service: PlanService,
        pinned: str | None,
        warnings: Callable[[], tuple[str, ...]] = tuple,
    ) -> None:
        self.service = service
        self.pinned = pinned
        self.followed: str | None = pinned
        # The workspace's warnings (`cli/workspace_warnings.py`), a line each under the panel.
        self.warnings = warnings

    def _follow(self, sessions: list[dict[str, Any]], now: datetime) -> str | None:
        if self.pinned:
            return self.pinned
        # The editors' rule too: the followed one stays until idle while another is newer.
        return followed_session(sessions, self.followed, now)

    def frame(self, size: tuple[int, int]) -> tuple[tuple[Any, ...], RenderableType]:
        """A key that changes whenever the picture would, and the picture for `size`."""
        warnings = self.warnings()
        shown = [Text(line, style="yellow", no_wrap=True, overflow="ellipsis") for line in warnings]
        height = size[1] - len(shown)
        now = datetime.now(timezone.utc)
        sessions: list[dict[str, Any]] = self.service.sessions()["sessions"]
        self.followed = self._follow(sessions, now)
        if self.followed is None:
            waiting = Text("Waiting for an agent to write a plan…", style="dim")
            return ("waiting", size, warnings), Group(waiting, *shown)
        others = [
            s for s in sessions if s["session"] != self.followed and _recent(s, now, ACTIVE_FOR)
        ]
        # The followed plan keeps most of the room; the others share at most a third.
        room = max(0, min(len(others), height // 3))
        lines = [summary_line(s) for s in others[:room]]
        if len(others) > room and room > 0:
            hidden = len(others) - room + 1
            lines[-1] = Text(f"+ {hidden} more active sessions (plansight sessions)", style="dim")
        state = self.service.get(GetParams(session=self.followed))
        checkout = next((s["checkout"] for s in sessions if s["session"] == self.followed), None)
        key = (
            size,
            self.followed,
            state["version"],
            str(checkout),
            tuple((s["session"], s["version"]) for s in others[:room]),
            len(others),
            warnings,
        )
        # One row is left free: the terminal's cursor sits below the last line drawn.
        panel = render_state(state, height=max(3, height - len(lines) - 1), checkout=checkout)
        return key, Group(panel, *lines, *shown)


def watch(
    service: PlanService,
    wanted: str | None,
    console: Console,
    stop: threading.Event | None = None,
    warnings: Callable[[], tuple[str, ...]] = tuple,
) -> None:
    """Redraw on every change until interrupted (or until `stop` is set).

    The screen is written only when what it shows changes (or the terminal is resized):
    no periodic refresh, so nothing flickers while the agents are quiet."""
    stop = stop or threading.Event()
    watcher = Watcher(service, wanted, warnings)
    key, renderable = watcher.frame(console.size)
    # Entering Live draws the first frame; drawing it again here would be a second write.
    with Live(renderable, console=console, auto_refresh=False, transient=False) as live:
        while not stop.is_set():
            time.sleep(POLL_SECONDS)
            new_key, renderable = watcher.frame(console.size)
            if new_key != key:
                key = new_key
                live.update(renderable, refresh=True)
        live.update(watcher.frame(console.size)[1], refresh=True)
