"""A hook's change reaches an editor's `plansight serve` watching the same store as
`plansight/didChange`, titled by the agent's first prompt."""

from __future__ import annotations

import asyncio
from pathlib import Path

from plansight_client import start_client, stop_client
from replay import Replay

SESSION = "claude-code:5f0c2a9e-1b7d-4c3e-9a61-0d8e2f4b7c11"


async def test_claude_tasks_are_pushed_to_the_editor(machine: Replay, tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite3"
    machine.extra_env["PLANSIGHT_DB"] = str(db)
    client = await start_client(db)
    try:
        for name in ("UserPromptSubmit", "PostToolUse-TaskCreate-1", "PostToolUse-TaskCreate-2"):
            await asyncio.to_thread(machine.replay, "claude-code", name)
        change = await client.change_where(
            lambda c: c["session"] == SESSION and c["progress"]["total"] == 2
        )
        assert change["title"] == "Fix the login bug please"
        assert change["origin"] == "agent"
        assert [t["content"] for p in change["phases"] for t in p["tasks"]] == [
            "Reproduce the login bug",
            "Fix the session check",
        ]

        await asyncio.to_thread(machine.replay, "claude-code", "PostToolUse-TaskUpdate-in_progress")
        await asyncio.to_thread(machine.replay, "claude-code", "PostToolUse-Edit")
        edited = await client.change_where(
            lambda c: c["session"] == SESSION and c["current"] is not None and c["current"]["files"]
        )
        assert edited["current"]["content"] == "Reproduce the login bug"
        assert edited["current"]["files"] == ["app.py"]

        # The person completes a task in the editor; the agent's next prompt is told.
        await client.call(
            "plansight/apply",
            {
                "session": SESSION,
                "origin": "user",
                "ops": [{"op": "done", "task": "Fix the session check"}],
            },
        )
        told = await asyncio.to_thread(machine.replay, "claude-code", "UserPromptSubmit")
        context = told["hookSpecificOutput"]["additionalContext"]
        assert 'completed "Fix the session check"' in context
    finally:
        await stop_client(client)
