"""`plansight watch`: the panel, redrawn whenever the store changes."""

from __future__ import annotations

import threading
import time
from typing import Any

from rich.console import Console, RenderableType
from rich.live import Live
from rich.text import Text

from plansight.cli.panel import render_state
from plansight.protocol import GetParams
from plansight.service import PlanService

POLL_SECONDS = 0.1


def pick_session(service: PlanService, wanted: str | None) -> str | None:
    """The named session, else the one updated last (None while the store is empty)."""
    if wanted:
        return wanted
    sessions = service.store.sessions()
    return sessions[0].session if sessions else None


def frame(service: PlanService, wanted: str | None) -> tuple[tuple[Any, ...], RenderableType]:
    session = pick_session(service, wanted)
    if session is None:
        return ("waiting",), Text("Waiting for an agent to write a plan…", style="dim")
    state = service.get(GetParams(session=session))
    return (session, state["version"]), render_state(state)


def watch(
    service: PlanService, wanted: str | None, console: Console, stop: threading.Event | None = None
) -> None:
    """Redraw on every change until interrupted (or until `stop` is set)."""
    stop = stop or threading.Event()
    key, renderable = frame(service, wanted)
    with Live(renderable, console=console, refresh_per_second=10, transient=False) as live:
        while not stop.is_set():
            time.sleep(POLL_SECONDS)
            new_key, renderable = frame(service, wanted)
            if new_key != key:
                key = new_key
                live.update(renderable, refresh=True)
        live.update(frame(service, wanted)[1], refresh=True)
