"""`plansight demo`: a scripted agent plans and works through a realistic task while the
panel follows it live, as `plansight watch` would, from a temporary store."""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from plansight.cli.live import watch
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import open_store

SESSION = "demo: add rate limiting"


def _item(content: str, active_form: str) -> dict[str, str]:
    return {"content": content, "activeForm": active_form}


# What a coding agent sends while adding rate limiting to a web API: a plan, progress,
# notes on what it found, a subtask it discovers, and a task it decides to drop.
SCRIPT: list[list[dict[str, Any]]] = [
    [
        {
            "op": "init",
            "list": [
                {
                    "phase": "Explore",
                    "items": [
                        _item("Read the request handlers", "Reading the request handlers"),
                        _item(
                            "Find where auth middleware runs", "Finding where auth middleware runs"
                        ),
                    ],
                },
                {
                    "phase": "Implement",
                    "items": [
                        _item("Add a token-bucket limiter", "Adding a token-bucket limiter"),
                        _item(
                            "Wire the limiter into the middleware",
                            "Wiring the limiter into the middleware",
                        ),
                        _item(
                            "Make the limits configurable per route",
                            "Making the limits configurable per route",
                        ),
                    ],
                },
                {
                    "phase": "Verify",
                    "items": [
                        _item(
                            "Write unit tests for the limiter", "Writing unit tests for the limiter"
                        ),
                        _item("Run the full test suite", "Running the full test suite"),
                        _item("Update the README", "Updating the README"),
                    ],
                },
            ],
        }
    ],
    [{"op": "note", "text": "Handlers live in api/routes/*.py; 14 endpoints"}],
    [{"op": "done", "task": "Read the request handlers"}],
    [{"op": "note", "text": "Auth runs in api/middleware.py before routing"}],
    [{"op": "done", "task": "Find where auth middleware runs"}],
    [{"op": "note", "text": "One bucket per API key, refilled lazily on each request"}],
    [{"op": "done", "task": "Add a token-bucket limiter"}],
    [
        {
            "op": "append",
            "phase": "Implement",
            "items": [
                _item("Send a Retry-After header on 429", "Sending a Retry-After header on 429"),
            ],
        }
    ],
    [{"op": "done", "task": "Wire the limiter into the middleware"}],
    [
        {
            "op": "note",
            "task": "Make the limits configurable per route",
            "text": "Dropped: the issue asks for one global limit",
        },
        {"op": "drop", "task": "Make the limits configurable per route"},
    ],
    [{"op": "done", "task": "Send a Retry-After header on 429"}],
    [{"op": "note", "text": "12 tests: refill, burst, per-key isolation, 429 path"}],
    [{"op": "done", "task": "Write unit tests for the limiter"}],
    [{"op": "note", "text": "412 passed in 38.2s"}],
    [{"op": "done", "task": "Run the full test suite"}],
    [{"op": "done", "task": "Update the README"}],
]
STEP_SECONDS = 0.95


def play(db_path: Path, step_seconds: float, done: threading.Event) -> None:
    """The agent: its own connection to the store, as a separate process would have."""
    service = PlanService(open_store(db_path))
    try:
        for ops in SCRIPT:
            time.sleep(step_seconds)
            service.apply(ApplyParams.validate({"session": SESSION, "ops": ops}), {"ops": ops})
        time.sleep(max(step_seconds, 0.3))  # let the last frame be seen
    finally:
        service.close()
        done.set()


def run_demo(console: Console, fast: bool = False) -> int:
    with tempfile.TemporaryDirectory(prefix="plansight-demo-") as folder:
        db_path = Path(folder) / "demo.sqlite3"
        viewer = PlanService(open_store(db_path))
        done = threading.Event()
        agent = threading.Thread(
            target=play, args=(db_path, 0.0 if fast else STEP_SECONDS, done), daemon=True
        )
        console.print(
            "[bold]Plansight demo[/]: an agent plans and works; the panel follows the store live."
        )
        agent.start()
        try:
            watch(viewer, SESSION, console, stop=done)
        finally:
            agent.join(timeout=5)
            viewer.close()
        console.print()
        console.print("[dim]Run `plansight watch` in a project to follow your own agent's plan.[/]")
    return 0
