"""`plansight sessions` and `watch` show each session's checkout (v4): the branch, and the
linked worktree an agent works in, beside the session."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from rich.console import Console

from git_checkouts import linked_worktree, repository
from plansight.cli.live import watch
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import open_store


def plansight(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "160"},  # a wide terminal: no cell wraps
    )


def todos(*contents: str) -> str:
    return json.dumps([{"content": c, "activeForm": c, "status": "in_progress"} for c in contents])


def test_sessions_written_from_two_worktrees_list_their_checkouts(tmp_path: Path) -> None:
    main = repository(tmp_path / "repo")
    tree = linked_worktree(main, main / "trees" / "feature", "feature")
    for folder, session in ((main, "on-main"), (tree, "on-feature")):
        done = plansight("write", "--session", session, "--todos", todos("Work"), cwd=folder)
        assert done.returncode == 0, done.stderr
    listed = plansight("sessions", "--json", cwd=tree)
    assert listed.returncode == 0, listed.stderr
    assert {s["session"]: s["checkout"] for s in json.loads(listed.stdout)["sessions"]} == {
        "on-main": {"worktree": None, "branch": "main"},
        "on-feature": {"worktree": "trees/feature", "branch": "feature"},
    }
    table = plansight("sessions", cwd=main)
    assert table.returncode == 0, table.stderr
    rows = {line.split()[0]: line for line in table.stdout.splitlines()[1:]}
    assert "⎇ feature (trees/feature)" in rows["on-feature"]
    assert "⎇ main" in rows["on-main"] and "(" not in rows["on-main"]


def test_watch_shows_the_checkout_of_the_followed_session_and_of_the_others(
    tmp_path: Path,
) -> None:
    main = repository(tmp_path / "repo")
    tree = linked_worktree(main, main / "wt", "fix/login")
    db = str(tmp_path / "plans.sqlite3")
    stores = [open_store(db, root) for root in (main, tree)]
    try:
        for store, session in zip(stores, ("first", "second"), strict=True):
            request = {"session": session, "ops": [{"op": "append", "items": ["Work"]}]}
            PlanService(store).apply(ApplyParams.validate(request), request)
        out = io.StringIO()
        console = Console(file=out, width=80, height=20, color_system=None, record=True)
        stop = threading.Event()
        stop.set()
        watch(PlanService(stores[0]), None, console, stop)
        drawn = console.export_text()
    finally:
        for store in stores:
            store.close()
    assert "⎇ fix/login (wt) · v1" in drawn  # the followed session's box
    other = next(line for line in drawn.splitlines() if "first" in line)
    assert "⎇ main" in other  # the other active session's line
