"""A team store: several `plansight serve` processes on one PostgreSQL database, as on
several machines. Workspaces keep projects apart; a database restart in the middle of a
stream of changes loses nothing acknowledged, and every client converges."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from plansight_client import PlansightClient, start_client, stop_client
from pygls.exceptions import JsonRpcException

from postgres_cluster import PASSWORD, PASSWORD_ROLE, Cluster

REQUEST_FAILED = -32803


def in_workspace(key: str) -> dict[str, str]:
    return {**os.environ, "PLANSIGHT_WORKSPACE": key}


async def test_servers_of_two_workspaces_see_only_their_own_sessions(postgres_url: str) -> None:
    app = await start_client(postgres_url, env=in_workspace("github.com/team/app"))
    app_elsewhere = await start_client(postgres_url, env=in_workspace("github.com/team/app"))
    docs = await start_client(postgres_url, env=in_workspace("github.com/team/docs"))
    try:
        ops = [{"op": "append", "phase": "Work", "items": ["Ship"]}]
        await app.call("plansight/apply", {"session": "a", "ops": ops})
        await docs.call("plansight/apply", {"session": "d", "ops": ops})
        await docs.call("plansight/apply", {"session": "a", "ops": ops * 1})
        pushed = await app_elsewhere.change_where(lambda c: c["session"] == "a")
        assert pushed["version"] == 1
        listed = {
            name: [s["session"] for s in (await client.call("plansight/sessions"))["sessions"]]
            for name, client in (("app", app), ("docs", docs))
        }
        assert listed == {"app": ["a"], "docs": ["a", "d"]}
        await app.call("plansight/apply", {"session": "a", "ops": [{"op": "done"}]})
        await app_elsewhere.change_where(lambda c: c["version"] == 2)
        # Nothing of the other workspace was ever pushed.
        assert {c["session"] for c in app_elsewhere.changes} == {"a"}
        assert all(c["version"] <= 2 for c in app_elsewhere.changes)
        assert [c["session"] for c in docs.changes] == ["d", "a"]  # its own answers only
        assert (await docs.call("plansight/get", {"session": "a"}))["version"] == 1
    finally:
        for client in (app, app_elsewhere, docs):
            await stop_client(client)


async def send_until_acknowledged(client: PlansightClient, params: dict[str, Any]) -> Any:
    """Send a change, again while the store says it is unavailable (as an agent would)."""
    while True:
        try:
            return await client.call("plansight/apply", params)
        except JsonRpcException as exc:
            assert exc.code == REQUEST_FAILED, exc
            assert exc.data == {"reason": "unavailable"} or exc.data["reason"] == "unavailable"
            await asyncio.sleep(0.05)


async def test_a_database_restart_during_a_stream_of_changes_loses_nothing_acknowledged(
    postgres: Cluster, postgres_url: str
) -> None:
    writer = await start_client(postgres_url, env=in_workspace("team"))
    watcher = await start_client(postgres_url, env=in_workspace("team"))
    try:
        acknowledged: list[tuple[str, int]] = []
        restart: asyncio.Task[None] | None = None
        for n in range(60):
            if n == 20:  # mid-stream: the database goes away and comes back
                restart = asyncio.create_task(asyncio.to_thread(postgres.restart))
            item = f"change {n}"
            ops = [{"op": "append", "phase": "Stream", "items": [item]}]
            result = await send_until_acknowledged(writer, {"session": "s", "ops": ops})
            if result["changed"]:
                acknowledged.append((item, result["version"]))
            else:  # its first try committed though the answer was lost: it is there
                assert result["errors"] == [f'Task "{item}" already exists']
            await asyncio.sleep(0.01)
        assert restart is not None
        await restart
        final = await writer.call("plansight/get", {"session": "s"})
        contents = [t["content"] for p in final["phases"] for t in p["tasks"]]
        assert contents == [f"change {n}" for n in range(60)]
        versions = [version for _, version in acknowledged]
        assert versions == sorted(set(versions)) and final["version"] >= versions[-1]
        # The watcher's pushes resumed after the restart and reached the final version.
        pushed = await watcher.change_where(
            lambda c: c["session"] == "s" and c["version"] == final["version"], timeout=30
        )
        assert [t["content"] for p in pushed["phases"] for t in p["tasks"]] == contents
        assert await watcher.call("plansight/get", {"session": "s"}) == final
    finally:
        for client in (writer, watcher):
            await stop_client(client)


def test_a_wrong_password_is_one_line_from_the_cli(postgres: Cluster, tmp_path: Path) -> None:
    url = postgres.url(postgres.create_database(), PASSWORD_ROLE, "wrong-" + PASSWORD)
    done = subprocess.run(
        [sys.executable, "-m", "plansight", "show", "--db", url],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("plansight: ")
    assert "refused the user name or password" in lines[0]
    assert f"{PASSWORD_ROLE}:****@" in lines[0]
    assert PASSWORD not in done.stderr and str(postgres.folder) not in done.stderr
    assert json.dumps(PASSWORD)[1:-1] not in done.stderr
