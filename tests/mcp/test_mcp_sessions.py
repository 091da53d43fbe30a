"""Which list an agent writes to: its own per connection, or the one it is told."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from datetime import datetime
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from mcp_harness import Rendezvous, mcp_client, session_of, text_of, todo

from plansight.mcp.mcp_server import run_mcp
from plansight.mcp.session import SessionClaim, connection_session
from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore

STARTED = datetime(2026, 11, 21, 14, 3, 59)
AGENT_INFO = {"name": "claude-code", "version": "1.0"}


async def test_two_agents_side_by_side_keep_two_lists(store_path: Path) -> None:
    connected, written = Rendezvous(2), Rendezvous(2)

    async def agent(task: str) -> tuple[str, str]:
        async with mcp_client("--db", str(store_path)) as client:
            await connected.arrive()
            await client.call_tool("todo_write", {"todos": [todo(task, task + "...")]})
            await written.arrive()
            return await session_of(client), text_of(await client.call_tool("todo_read", {}))

    # The same program, started at the same moment: the case its name alone cannot split.
    (first, first_read), (second, second_read) = await asyncio.gather(
        agent("Write the parser"), agent("Fix the docs")
    )

    assert first != second
    for session in (first, second):
        assert re.fullmatch(r"claude-code \d{4}-\d\d-\d\d \d\d:\d\d( \(2\))?", session)
    assert first_read.endswith("Todos:\n  [ ] Write the parser")
    assert second_read.endswith("Todos:\n  [ ] Fix the docs")
    store = SqliteStore(store_path)
    try:
        lists = {p.session: [t.content for t in p.tasks()] for p in store.sessions()}
    finally:
        store.close()
    assert lists == {first: ["Write the parser"], second: ["Fix the docs"]}
    # Each server removed its claim on the way out.
    assert list(Path(f"{store_path}-mcp").iterdir()) == []


async def test_session_from_the_flag_or_the_environment(store_path: Path) -> None:
    env = {"PLANSIGHT_SESSION": "from-env"}

    async def session_with(*args: str) -> str:
        async with mcp_client("--db", str(store_path), *args, env=env) as client:
            return await session_of(client)

    by_env, by_flag = await asyncio.gather(session_with(), session_with("--session", "from-flag"))
    assert by_env == "from-env"
    assert by_flag == "from-flag"  # the flag wins


async def test_the_store_is_the_workspace_one_and_modern_clients_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent started anywhere in a project writes where the editor of that project
    reads: the store of the nearest folder holding `.git`."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "src" / "deep").mkdir(parents=True)
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    monkeypatch.setenv("XDG_STATE_HOME", env["XDG_STATE_HOME"])
    async with mcp_client(
        name="gemini-cli", env=env, cwd=project / "src" / "deep", mode="auto"
    ) as client:
        assert client.protocol_version == "2026-07-28"  # no initialize: the name rides each call
        await client.call_tool("todo_write", {"todos": [todo("Plan", "Planning")]})

    store = SqliteStore(default_store_path(project))
    try:
        [plan] = store.sessions()
    finally:
        store.close()
    assert plan.session.startswith("gemini-cli ")
    assert [t.content for t in plan.tasks()] == ["Plan"]


def test_a_connection_is_named_after_its_client_and_start() -> None:
    assert connection_session("claude-code", STARTED) == "claude-code 2026-11-21 14:03"
    assert connection_session("bad\nname\t", STARTED) == "bad name 2026-11-21 14:03"
    assert connection_session(None, STARTED) == "mcp 2026-11-21 14:03"
    assert connection_session("x" * 500, STARTED) == "x" * 60 + " 2026-11-21 14:03"


def test_a_claimed_name_is_not_given_twice(tmp_path: Path) -> None:
    locks = tmp_path / "plans.sqlite3-mcp"
    first, second, third = SessionClaim(locks), SessionClaim(locks), SessionClaim(locks)
    assert first.claim("agent", lambda name: False) == "agent"
    assert second.claim("agent", lambda name: False) == "agent (2)"
    first.release()
    # Freed, the name can be taken again; a name the store holds never is.
    assert third.claim("agent", lambda name: name == "agent (3)") == "agent"
    fourth = SessionClaim(locks)
    assert fourth.claim("agent", lambda name: name == "agent (3)") == "agent (4)"
    for claim in (second, third, fourth):
        claim.release()
    assert list(locks.iterdir()) == []


def test_an_unusable_session_name_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_mcp(str(tmp_path / "plans.sqlite3"), "x" * 201) == 2
    assert capsys.readouterr().err == "plansight: the session name must be 1 to 200 characters\n"


async def test_an_unusable_store_is_told_to_the_model_until_it_is_usable(tmp_path: Path) -> None:
    """The store is opened by the first call that needs it (the handshake does not wait
    for it): each call says why it cannot be used, nothing is created, and once the
    person clears the way the same server writes."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    db = blocker / "plans.sqlite3"
    async with mcp_client("--db", str(db)) as client:
        assert {tool.name for tool in (await client.list_tools()).tools} >= {"todo_write"}
        for call in (("todo_read", {}), ("todo_write", {"todos": [todo("Ship it", "Shipping")]})):
            refused = await client.call_tool(*call)
            assert refused.is_error
            assert text_of(refused).startswith(
                "Nothing was changed: the Plansight store cannot be used now. "
                "The plan store's folder is a file: "
            )
            assert str(tmp_path) not in text_of(refused)
        with pytest.raises(MCPError, match=r"^Nothing was changed: .* folder is a file"):
            await client.list_resources()
        assert not os.path.exists(db) and blocker.read_text() == ""

        blocker.unlink()
        written = await client.call_tool("todo_write", {"todos": [todo("Ship it", "Shipping")]})
        assert not written.is_error and "Ship it" in text_of(written)
        session = await session_of(client)
    assert [task.content for task in SqliteStore(db).load(session).tasks()] == ["Ship it"]


async def test_a_server_ended_by_sigterm_frees_its_name(store_path: Path) -> None:
    """Agents may stop their servers with SIGTERM while stdin is still open."""
    server = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "plansight",
        "mcp",
        "--db",
        str(store_path),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert server.stdin is not None and server.stdout is not None

    async def ask(message: dict[str, object]) -> dict[str, object]:
        server.stdin.write(json.dumps(message).encode() + b"\n")
        answer: dict[str, object] = json.loads(await asyncio.wait_for(server.stdout.readline(), 30))
        return answer

    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": AGENT_INFO}
    await ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
    read = {"name": "todo_read", "arguments": {}}
    await ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": read})
    locks = Path(f"{store_path}-mcp")
    assert len(list(locks.iterdir())) == 1  # the name is held

    server.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(server.wait(), 30) == -signal.SIGTERM
    assert list(locks.iterdir()) == []
