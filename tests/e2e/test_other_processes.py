"""Changes committed by other processes reach every watching client."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from plansight_client import start_client, stop_client

OPS = [{"op": "init", "list": [{"phase": "Work", "items": ["Plan", "Build"]}]}]


async def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "plansight", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


@pytest.mark.both_backends
async def test_a_cli_change_reaches_the_client(db: Path | str) -> None:
    client = await start_client(db)
    try:
        done = await run_cli("apply", "--db", str(db), "--session", "cli", "--ops", json.dumps(OPS))
        assert done.returncode == 0, done.stderr
        change = await client.change_where(lambda c: c["session"] == "cli")
        assert change["version"] == 1 and change["origin"] == "agent"
        assert [t["content"] for t in change["phases"][0]["tasks"]] == ["Plan", "Build"]

        done = await run_cli(
            "apply",
            "--db",
            str(db),
            "--session",
            "cli",
            "--origin",
            "user",
            "--ops",
            json.dumps([{"op": "done", "task": "Plan"}]),
        )
        change = await client.change_where(lambda c: c["session"] == "cli" and c["version"] == 2)
        assert change["origin"] == "user"
        assert change["completedTasks"] == [{"id": "t1", "content": "Plan", "phase": "Work"}]
    finally:
        await stop_client(client)


@pytest.mark.both_backends
async def test_two_servers_on_one_store(db: Path | str) -> None:
    first, second = await start_client(db), await start_client(db)
    try:
        result = await first.call("plansight/apply", {"session": "shared", "ops": OPS})
        change = await second.change_where(lambda c: c["session"] == "shared")
        assert change["version"] == result["version"] == 1
        result = await second.call(
            "plansight/apply", {"session": "shared", "ops": [{"op": "done"}]}
        )
        change = await first.change_where(lambda c: c["version"] == 2)
        assert change["completedTasks"][0]["content"] == "Plan"
        # Each server pushed its own change once and the other's once.
        assert [c["version"] for c in first.changes] == [1, 2]
        assert [c["version"] for c in second.changes] == [1, 2]
    finally:
        await stop_client(first)
        await stop_client(second)


async def test_default_store_is_per_workspace_and_shared_with_the_shell(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    (workspace / ".git").mkdir(parents=True)
    (workspace / "src").mkdir()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "xdg")}
    env.pop("PLANSIGHT_DB", None)
    client = await start_client(None, root=workspace, cwd=tmp_path, env=env)
    try:
        # An agent in a terminal somewhere inside the project writes to the same store.
        done = await run_cli("apply", "--ops", json.dumps(OPS), cwd=workspace / "src", env=env)
        assert done.returncode == 0, done.stderr
        change = await client.change_where(lambda c: c["version"] == 1)
        assert change["session"] == "default"
        digest = hashlib.sha256(os.path.realpath(workspace).encode()).hexdigest()[:12]
        assert (tmp_path / "xdg" / "plansight" / f"{digest}.sqlite3").is_file()
    finally:
        await stop_client(client)
