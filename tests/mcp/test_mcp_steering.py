"""Steering (v3) over MCP: a terminal agent's `todo_write` from its stale copy keeps what
the person changed in the editor, and the tool's answer says so, once."""

from __future__ import annotations

from pathlib import Path

from mcp_harness import mcp_client, session_of, text_of, todo

from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore

KEPT = "Kept the user's changes your list does not have: "


async def test_a_stale_todo_write_keeps_the_persons_changes_and_says_so(store_path: Path) -> None:
    agents_copy = [todo("A", "Doing A", "in_progress"), todo("B", "Doing B")]
    async with mcp_client("--db", str(store_path)) as client:
        session = await session_of(client)
        await client.call_tool("todo_write", {"todos": agents_copy})
        store = SqliteStore(store_path)  # the editor, another process
        request = {
            "session": session,
            "origin": "user",
            "ops": [
                {"op": "append", "phase": "Todos", "items": ["C"]},
                {"op": "done", "task": "B"},
            ],
        }
        PlanService(store).apply(ApplyParams.validate(request), request)

        answer = text_of(await client.call_tool("todo_write", {"todos": agents_copy}))

        assert KEPT + 'completed "B"; added "C" to phase "Todos"' in answer
        # Told once: not again as a reminder of the same changes.
        assert "<system-reminder>" not in answer
        plan = store.load(session)
        assert [(t.content, t.status, t.created_by) for t in plan.tasks()] == [
            ("A", "in_progress", "agent"),
            ("B", "completed", "agent"),
            ("C", "pending", "user"),
        ]
        store.close()
        assert "<system-reminder>" not in text_of(await client.call_tool("todo_read", {}))
