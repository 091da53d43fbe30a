"""A client that starts a new `plansight mcp` per call (the MCP Inspector's CLI mode, an
agent restarting its servers) keeps writing to one list; two live agents still keep two.
Errors say which list they looked in; an item given as an object gets the one error that
applies to it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from mcp_harness import mcp_client, session_of, text_of, todo

# The name the MCP Inspector's CLI mode gives itself in `clientInfo` (seen running
# `npx @modelcontextprotocol/inspector --cli`); any client name works the same.
INSPECTOR = "inspector-cli"


async def test_short_lived_connections_of_one_agent_land_on_one_list(store_path: Path) -> None:
    async with mcp_client("--db", str(store_path), name=INSPECTOR) as client:
        written = await client.call_tool(
            "todo_write", {"todos": [todo("Read the issue", "Reading"), todo("Fix", "Fixing")]}
        )
        first = await session_of(client)
    assert not written.is_error
    # A new process for the next call, as the Inspector's CLI starts one per call.
    async with mcp_client("--db", str(store_path), name=INSPECTOR) as client:
        done = await client.call_tool("todo", {"ops": [{"op": "done", "task": "Read the issue"}]})
        second = await session_of(client)
    assert not done.is_error, text_of(done)
    assert text_of(done).startswith("Todo list updated: 1/2 completed")
    assert second == first


async def test_a_live_agents_list_is_not_taken_by_another(store_path: Path) -> None:
    async with mcp_client("--db", str(store_path)) as first:
        await first.call_tool("todo_write", {"todos": [todo("Parser", "Writing the parser")]})
        # A second agent of the same kind, started while the first is still running.
        async with mcp_client("--db", str(store_path)) as second:
            await second.call_tool("todo_write", {"todos": [todo("Docs", "Fixing the docs")]})
            second_session = await session_of(second)
            second_read = text_of(await second.call_tool("todo_read", {}))
        first_session = await session_of(first)
        first_read = text_of(await first.call_tool("todo_read", {}))
    assert first_session != second_session
    assert first_read.endswith("[ ] Parser")
    assert second_read.endswith("[ ] Docs")


async def test_another_clients_list_is_not_taken(store_path: Path) -> None:
    async with mcp_client("--db", str(store_path), name="gemini-cli") as client:
        await client.call_tool("todo_write", {"todos": [todo("Gemini's", "Doing it")]})
        gemini = await session_of(client)
    async with mcp_client("--db", str(store_path), name="claude-code") as client:
        claude = await session_of(client)
        read = text_of(await client.call_tool("todo_read", {}))
    assert gemini.startswith("gemini-cli ") and claude.startswith("claude-code ")
    assert read == "The todo list is empty."


def test_only_recent_lists_of_the_same_client_are_taken_over() -> None:
    from plansight.mcp.session import recent_sessions_of

    now = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)

    def ago(minutes: float) -> str:
        stamp = (now - timedelta(minutes=minutes)).isoformat(timespec="milliseconds")
        return stamp.replace("+00:00", "Z")

    sessions = [
        ("claude-code 2026-11-23 11:58 (2)", ago(1)),
        ("default", ago(1)),  # a name given with --session: never taken over this way
        ("claude-code review", ago(1)),
        ("gemini-cli 2026-11-23 11:57", ago(2)),
        ("claude-code 2026-11-23 11:56", ago(4)),
        ("claude-code 2026-11-23 11:40", ago(20)),  # left long ago: a new task, a new list
        ("claude-code 2026-11-23 11:30", None),
    ]
    assert recent_sessions_of("claude-code", sessions, now) == [
        "claude-code 2026-11-23 11:58 (2)",
        "claude-code 2026-11-23 11:56",
    ]
    assert recent_sessions_of("gemini-cli", sessions, now) == ["gemini-cli 2026-11-23 11:57"]
    assert recent_sessions_of(None, sessions, now) == []


async def test_errors_say_which_session_they_looked_in(store_path: Path) -> None:
    async with mcp_client("--db", str(store_path)) as client:
        missing = await client.call_tool("todo", {"ops": [{"op": "done", "task": "X"}]})
        refused = await client.call_tool("todo_write", {})
        session = await session_of(client)
    assert missing.is_error and refused.is_error
    for result in (missing, refused):
        assert f'Session "{session}"' in text_of(result)
    assert text_of(missing).startswith('Errors: Task "X" not found')


async def test_an_item_given_as_an_object_gets_the_error_that_applies(store_path: Path) -> None:
    async with mcp_client("--db", str(store_path)) as client:
        refused = await client.call_tool(
            "todo",
            {"ops": [{"op": "append", "phase": "Todos", "items": [{"text": "Ship it"}]}]},
        )
        wrong_kind = await client.call_tool(
            "todo", {"ops": [{"op": "append", "phase": "Todos", "items": [5]}]}
        )
    text = text_of(refused)
    assert refused.is_error
    assert "- ops.0.items.0.content: Field required" in text
    assert "valid string" not in text
    # Neither a string nor an object: both readings still show.
    assert "- ops.0.items.0: Input should be a valid string or" in text_of(wrong_kind)
