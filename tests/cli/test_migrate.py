"""`plansight migrate`: a local store's sessions and history, copied into a team store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from plansight.protocol.requests import ApplyParams, GetParams
from plansight.service import PlanService
from plansight.store import open_store


def plansight(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def change(db: Path, session: str, ops: list[Any], origin: str = "agent") -> None:
    done = plansight(
        "apply", "--db", str(db), "--session", session, "--origin", origin,
        "--ops", json.dumps(ops), cwd=db.parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_migrate_copies_sessions_with_their_history_and_keeps_names_already_there(
    tmp_path: Path, postgres_url: str
) -> None:
    db = tmp_path / "plans.sqlite3"
    change(db, "auth", [{"op": "init", "list": [{"phase": "Fix", "items": ["Find", "Patch"]}]}])
    change(db, "auth", [{"op": "note", "task": "Find", "text": "in login.py"}])
    change(db, "auth", [{"op": "done", "task": "Find"}], origin="user")
    change(db, "docs", [{"op": "append", "phase": "Write", "items": ["Guide"]}])
    local = open_store(str(db))
    before = {name: PlanService(local).get(GetParams(session=name)) for name in ("auth", "docs")}
    history = local.events("auth")
    restorable = local.history("auth", 100)
    kept = local.snapshot("auth", 2)
    local.close()
    team = open_store(postgres_url, workspace="team")
    team_service = PlanService(team)
    req = {"session": "docs", "ops": [{"op": "append", "phase": "Theirs", "items": ["x"]}]}
    team_service.apply(ApplyParams.validate(req), req)

    done = plansight(
        "migrate", "--from", str(db), "--to", postgres_url, "--workspace", "team", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Copied 1 session(s), 3 change(s), into postgresql://plansight@/"
        + postgres_url.split("/")[3].split("?")[0]
        + ', workspace "team".',
        'Left alone, the workspace has them already: "docs".',
    ]
    try:
        assert team_service.get(GetParams(session="auth")) == before["auth"]
        assert team_service.get(GetParams(session="docs"))["phases"][0]["name"] == "Theirs"
        copied = team.events("auth")
        # Each change whole, as it was logged (what it removed and auto-started too).
        assert copied == history
        # What `history` lists and `restore` brings back came along.
        assert team.history("auth", 100) == restorable
        assert team.snapshot("auth", 2) == kept is not None
        # The copy goes on where the local one stopped: the next id and version.
        req = {"session": "auth", "ops": [{"op": "append", "phase": "Fix", "items": ["Test"]}]}
        after = team_service.apply(ApplyParams.validate(req), req).result
        assert after["version"] == 4 and after["phases"][0]["tasks"][-1]["id"] == "t3"
    finally:
        team.close()


def test_migrate_refuses_what_it_cannot_use_in_one_line(tmp_path: Path, postgres_url: str) -> None:
    for args, message in (
        (["--to", "/tmp/x.sqlite3"], "--to must be a postgresql:// URL"),
        (["--from", str(tmp_path / "none.sqlite3"), "--to", postgres_url], "no plan store at"),
    ):
        done = plansight("migrate", *args, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
