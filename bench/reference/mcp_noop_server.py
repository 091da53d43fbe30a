"""The MCP Python SDK's own server with one no-op tool, over stdio: the reference for
`plansight mcp` in `bench/mcp.py`. Not part of the package.

    python bench/reference/mcp_noop_server.py            # the low-level `Server`, as Plansight uses it
    python bench/reference/mcp_noop_server.py mcpserver  # the high-level `MCPServer` (1.x's FastMCP)

Written the way the SDK's documentation shows each: nothing is deferred or trimmed. It
lives in a folder of its own because a script's folder comes first on `sys.path`, and in
`bench/` the name `mcp` is `bench/mcp.py`, not the SDK.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp.server.stdio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

NOOP = types.Tool(
    name="noop",
    description="Does nothing.",
    input_schema={"type": "object", "properties": {}},
)


async def list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[NOOP])


async def call_tool(
    ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text="ok")])


async def low_level() -> None:
    server: Server[Any] = Server("noop", on_list_tools=list_tools, on_call_tool=call_tool)
    async with mcp.server.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def high_level() -> None:
    app = MCPServer("noop")

    @app.tool()
    def noop() -> str:
        """Does nothing."""
        return "ok"

    app.run("stdio")


if __name__ == "__main__":
    if sys.argv[1:] == ["mcpserver"]:
        high_level()
    else:
        anyio.run(low_level)
