"""`plansight mcp`: agents' own plan formats (todo_ingest) and, for Codex, whose hooks
never see `update_plan`, a native `update_plan` tool with exactly Codex's schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp_harness import mcp_client, session_of, text_of

from plansight.mcp.native import CODEX_UPDATE_PLAN
from plansight.store.sqlite import SqliteStore

FIXTURES = Path(__file__).parent.parent / "fixtures" / "agents"
CODEX_CLIENT = "codex-mcp-client"  # the name Codex's MCP client gives itself


def recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def tasks(store_path: Path, session: str) -> list[tuple[str, str, list[str]]]:
    store = SqliteStore(store_path)
    try:
        return [(t.content, t.status, t.notes) for t in store.load(session).tasks()]
    finally:
        store.close()


async def test_codex_gets_update_plan_with_its_own_schema(store_path: Path) -> None:
    async with mcp_client("--db", str(store_path), name=CODEX_CLIENT) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        fixture = recorded("codex-plan")
        result = await client.call_tool("update_plan", fixture["payload"])
        session = await session_of(client)

    update_plan = tools["update_plan"]
    # The schema Codex gives its model (openai/codex codex-rs/tools/src/plan_tool.rs).
    assert update_plan.input_schema == {
        "type": "object",
        "properties": {
            "explanation": {"type": "string"},
            "plan": {
                "type": "array",
                "description": "The list of steps",
                "items": {
                    "type": "object",
                    "properties": {
                        "step": {"type": "string"},
                        "status": {
                            "type": "string",
                            "description": "One of: pending, in_progress, completed",
                        },
                    },
                    "required": ["step", "status"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["plan"],
        "additionalProperties": False,
    }
    assert update_plan.description == CODEX_UPDATE_PLAN.description
    assert update_plan.description is not None
    assert update_plan.description.startswith("Updates the task plan.\n")
    assert not result.is_error
    assert text_of(result).startswith("Todo list updated: 1/3 completed\n")
    assert tasks(store_path, session) == [
        ("Reproduce the failing parser test", "completed", []),
        ("Handle dates without a time zone", "in_progress", [fixture["payload"]["explanation"]]),
        ("Run the whole test suite", "pending", []),
    ]


async def test_other_agents_do_not_see_update_plan_unless_asked(store_path: Path) -> None:
    async with mcp_client("--db", str(store_path)) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert "update_plan" not in names and "todo_ingest" in names
    async with mcp_client("--db", str(store_path), "--agent", "codex") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert "update_plan" in names
    done = subprocess.run(
        [sys.executable, "-m", "plansight", "mcp", "--db", str(store_path), "--agent", "cursor"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == "plansight: no native tools for agent 'cursor' (known: codex)\n"


async def test_update_plan_refusals_name_the_arguments_as_codex_sent_them(
    store_path: Path,
) -> None:
    async with mcp_client("--db", str(store_path), name=CODEX_CLIENT) as client:
        result = await client.call_tool("update_plan", {"plan": [{"step": "a", "status": "done"}]})
    assert result.is_error
    assert text_of(result).startswith(
        "Refused, nothing changed:\n"
        '- plan.0.status: Unknown status "done": expected one of pending, in_progress, completed'
    )


async def test_todo_ingest_takes_any_format(store_path: Path) -> None:
    async with mcp_client("--db", str(store_path)) as client:
        fixture = recorded("opencode-todos")
        result = await client.call_tool(
            "todo_ingest", {"format": fixture["format"], "payload": fixture["payload"]}
        )
        refused = await client.call_tool("todo_ingest", {"format": "cursor", "payload": {}})
        session = await session_of(client)
    assert not result.is_error
    assert text_of(result).startswith("Todo list updated: 1/4 completed, 1 abandoned\n")
    assert [row[:2] for row in tasks(store_path, session)][1] == (
        "Refresh the token before it expires",
        "in_progress",
    )
    assert refused.is_error and "- format: Input should be" in text_of(refused)
