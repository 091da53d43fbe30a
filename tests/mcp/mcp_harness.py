"""The MCP SDK's own client, spawning a real `plansight mcp` over stdio."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, Implementation, TextContent

# A terminal agent's name as Claude Code sends it in `clientInfo`.
AGENT = "claude-code"


@asynccontextmanager
async def mcp_client(
    *args: str,
    name: str = AGENT,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    mode: str = "legacy",
) -> AsyncIterator[Client]:
    """`plansight mcp ARGS`; `legacy` is the initialize handshake today's agents use."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "plansight", "mcp", *args], env=env, cwd=cwd
    )
    async with Client(
        params, client_info=Implementation(name=name, version="1.0"), mode=mode
    ) as client:
        yield client


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def session_of(client: Client) -> str:
    """The session this MCP server writes to, as todo_read reports it."""
    result = await client.call_tool("todo_read", {})
    state: dict[str, Any] = result.structured_content
    return str(state["session"])


def todo(content: str, active: str, status: str = "pending") -> dict[str, str]:
    return {"content": content, "activeForm": active, "status": status}


class Rendezvous:
    """Agents running side by side wait here until all `count` of them have arrived."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.arrived = 0
        self.everyone = asyncio.Event()

    async def arrive(self) -> None:
        self.arrived += 1
        if self.arrived == self.count:
            self.everyone.set()
        await asyncio.wait_for(self.everyone.wait(), 30)
