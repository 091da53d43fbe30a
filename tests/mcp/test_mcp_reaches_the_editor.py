"""A terminal agent's plan shows up, live, in the editor watching the same store."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio
from lsprotocol.converters import get_converter
from lsprotocol.types import ClientCapabilities, InitializeParams
from mcp_harness import mcp_client, session_of, todo
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import register_lsp_features

DID_CHANGE = "plansight/didChange"


def editor_client() -> LanguageClient:
    # lsprotocol's converter keeps the custom notifications plain dicts.
    client = LanguageClient(converter_factory=get_converter)
    register_lsp_features(client)
    return client


@pytest_asyncio.fixture
async def editor(store_location: str) -> AsyncIterator[LanguageClient]:
    """`plansight serve` on the store (a file, or a team store on another machine for all
    it knows), as the VS Code or Neovim shim starts it."""
    command = [sys.executable, "-m", "plansight", "serve", "--db", store_location]
    config = ClientServerConfig(server_command=command, client_factory=editor_client)
    client = await config.start()
    await client.initialize_session(InitializeParams(capabilities=ClientCapabilities()))
    yield client
    await client.shutdown_session()
    await client.stop()


async def test_todo_write_reaches_the_editor_as_did_change(
    editor: LanguageClient, store_location: str, tmp_path: Path
) -> None:
    # The MCP server's session locks live in the state folder: a temporary one here.
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state-home")}
    async with mcp_client("--db", store_location, env=env) as agent:
        session = await session_of(agent)

        pushed = editor.protocol.wait_for_notification_async(DID_CHANGE)
        await agent.call_tool(
            "todo_write",
            {
                "todos": [
                    todo("Run the build", "Running the build", "in_progress"),
                    todo("Fix the test", "Fixing the test"),
                ]
            },
        )
        change: dict[str, Any] = await asyncio.wait_for(pushed, 60)
        assert change["session"] == session
        assert change["origin"] == "agent" and change["version"] == 1
        assert change["current"]["activeForm"] == "Running the build"
        assert [t["content"] for t in change["phases"][0]["tasks"]] == [
            "Run the build",
            "Fix the test",
        ]

        pushed = editor.protocol.wait_for_notification_async(DID_CHANGE)
        await agent.call_tool("todo", {"ops": [{"op": "done", "task": "Run the build"}]})
        change = await asyncio.wait_for(pushed, 60)
        assert change["version"] == 2
        assert change["completedTasks"] == [
            {"id": "t1", "content": "Run the build", "phase": "Todos"}
        ]
        assert change["current"]["content"] == "Fix the test"  # started on its own

    # The editor reads the agent's list like any other session.
    state = await editor.protocol.send_request_async("plansight/get", {"session": session})
    assert state["version"] == 2 and state["progress"]["completed"] == 1
