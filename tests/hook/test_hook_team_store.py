"""`plansight hook` with a team store (issue 20 item 15): `PLANSIGHT_DB=postgresql://...`
is honoured in the hook's own process and through the warm process: the plan reaches
the team's database (never a file named after the URL), and a person's edit made on the
team store is told to the agent on its next prompt."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from replay import Replay

from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import open_store
from plansight.warm.relay import running_pid
from postgres_cluster import STORE_ROLE, Cluster

CLAUDE = "claude-code:5f0c2a9e-1b7d-4c3e-9a61-0d8e2f4b7c11"
WORKSPACE = "github.com/team/app"


def team_service(url: str) -> PlanService:
    return PlanService(open_store(url, workspace=WORKSPACE))


def warm_process_listens(machine: Replay) -> bool:
    address = machine.warm_address()
    deadline = time.monotonic() + 30  # a guard against a hang, not a speed check
    while time.monotonic() < deadline:
        if running_pid(f"{address}.lock") is not None and not Path(f"{address}.starting").exists():
            return True
        time.sleep(0.05)
    return False


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if ".git" not in p.parts)


@pytest.mark.parametrize("warm", [False, True], ids=["own process", "warm process"])
def test_the_hook_writes_to_the_team_store_and_tells_the_persons_edit(
    machine: Replay, postgres_url: str, warm: bool
) -> None:
    machine.extra_env.update(PLANSIGHT_DB=postgres_url, PLANSIGHT_WORKSPACE=WORKSPACE)
    if not warm:
        machine.extra_env["PLANSIGHT_HOOK_DAEMON"] = "0"
    before = files_under(machine.project)
    assert machine.replay("claude-code", "UserPromptSubmit") == {}
    if warm:
        assert warm_process_listens(machine)
    for name in ("PostToolUse-TaskCreate-1", "PostToolUse-TaskCreate-2"):
        assert machine.replay("claude-code", name) == {}

    team = team_service(postgres_url)
    try:
        plan = team.load(CLAUDE)
        assert [t.content for t in plan.tasks()] == [
            "Reproduce the login bug",
            "Fix the session check",
        ]
        # A person edits the plan on the team store (an editor elsewhere, say).
        request = {"session": CLAUDE, "ops": [{"op": "done", "task": "Fix the session check"}]}
        request["origin"] = "user"
        team.apply(ApplyParams.validate(request), request)
    finally:
        team.close()

    told = machine.replay("claude-code", "UserPromptSubmit")
    context = told["hookSpecificOutput"]["additionalContext"]
    assert "The user changed the todo list" in context and "Fix the session check" in context

    # Nothing was written as a path: no file named after the URL, no local store.
    assert files_under(machine.project) == before
    assert not any("postgresql" in name for name in files_under(machine.home))
    assert not list((machine.state / "plansight").glob("*.sqlite3"))
    log = machine.log()
    assert "gave up" not in log and "failed" not in log, log
    if warm:
        assert " by=warm " in log, log


def test_an_unreachable_team_store_is_logged_without_its_password(
    machine: Replay, tmp_path: Path
) -> None:
    url = f"postgresql://alice:pa?ss@/plans?host={tmp_path / 'no-server-here'}"
    machine.extra_env.update(PLANSIGHT_DB=url, PLANSIGHT_HOOK_DAEMON="0")
    machine.replay("claude-code", "UserPromptSubmit")
    assert machine.replay("claude-code", "PostToolUse-TaskCreate-1") == {}
    log = machine.log()
    assert "spooled for the next event (the store is unavailable" in log, log
    assert "postgresql://alice:****@/plans" in log
    assert "pa?ss" not in log and "ss@" not in log
    assert files_under(machine.project) == ["app.py"]
    spooled = (machine.state / "plansight" / "hooks" / "spool").rglob("*.json")
    assert not any("pa?ss" in path.read_text() for path in spooled)


def test_a_plan_written_while_the_team_store_is_out_of_reach_is_stored_once_it_is_back(
    machine: Replay, postgres: Cluster, short_folder: Path
) -> None:
    """A laptop off its VPN: the team store does not answer the plan tool's hook (the
    socket folder is not there), so the plan is spooled; once the store answers again
    (the folder becomes the real cluster's), the agent's next event stores it."""
    database = postgres.create_database()
    away = short_folder / "pg"
    url = f"postgresql://{STORE_ROLE}@/{database}?host={quote(str(away))}"
    machine.extra_env.update(PLANSIGHT_DB=url, PLANSIGHT_WORKSPACE=WORKSPACE)
    machine.replay("claude-code", "UserPromptSubmit")
    assert machine.replay("claude-code", "PostToolUse-TaskCreate-1") == {}
    assert "spooled for the next event (the store is unavailable" in machine.log()

    away.symlink_to(postgres.folder)  # back on the network
    machine.replay("claude-code", "UserPromptSubmit")
    team = team_service(postgres.url(database))
    try:
        assert [t.content for t in team.load(CLAUDE).tasks()] == ["Reproduce the login bug"]
    finally:
        team.close()
    assert " by=spool " in machine.log()


def test_a_plan_the_team_store_kept_locked_is_spooled_and_applied_next(
    machine: Replay, postgres_url: str
) -> None:
    """Another program holds the session's row past the hook's wait (PostgreSQL's
    `lock_timeout`, 0.5 s for a hook): the plan is spooled, not lost, and the agent's next
    event writes it to the team store."""
    machine.extra_env.update(PLANSIGHT_DB=postgres_url, PLANSIGHT_WORKSPACE=WORKSPACE)
    machine.replay("claude-code", "UserPromptSubmit")
    machine.replay("claude-code", "PostToolUse-TaskCreate-1")
    with psycopg.connect(postgres_url) as holder:
        holder.execute(
            "SELECT version FROM plansight_sessions WHERE workspace = %s AND name = %s FOR UPDATE",
            (WORKSPACE, CLAUDE),
        )
        assert machine.replay("claude-code", "PostToolUse-TaskCreate-2") == {}
        holder.rollback()
    assert "spooled for the next event (the store is busy" in machine.log()

    machine.replay("claude-code", "UserPromptSubmit")
    team = team_service(postgres_url)
    try:
        assert [t.content for t in team.load(CLAUDE).tasks()] == [
            "Reproduce the login bug",
            "Fix the session check",
        ]
    finally:
        team.close()
    assert " by=spool " in machine.log()
