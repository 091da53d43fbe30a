"""The scripted models pick the plan tool a recorded request offers, as a real model would
(tests/fixtures/model_requests: where each request came from is in its README)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scripted_models import PLAN_TOOL, TOOL_SEARCH, _anthropic_step, _openai_step

REQUESTS = Path(__file__).resolve().parents[1] / "fixtures" / "model_requests"
TODOS = {"todos": [{"content": "Fix it", "activeForm": "Fixing it", "status": "pending"}]}


def _recorded(name: str) -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads((REQUESTS / name).read_text(encoding="utf-8"))
    return recorded


def test_claude_codes_deferred_task_tool_is_searched_for_then_called() -> None:
    recorded = _recorded("claude-code-deferred-tools.json")
    task = {"subject": "Fix it", "description": "Fix it"}
    step = (PLAN_TOOL, {"TaskCreate": task, "todo_write": TODOS})
    assert _anthropic_step(step, recorded["first_request"]) == (
        TOOL_SEARCH,
        {"query": "select:TaskCreate"},
    )
    assert _anthropic_step(step, recorded["after_the_search"]) == ("TaskCreate", task)


def test_codex_code_modes_update_plan_is_called_from_exec() -> None:
    plan = {"plan": [{"step": "Fix it", "status": "pending"}]}
    step = (PLAN_TOOL, {"update_plan": plan, "todo_write": TODOS})
    name, arguments = _openai_step(step, _recorded("codex-code-mode.json"))
    assert name == "exec"
    assert arguments["code"] == f"await tools.update_plan({json.dumps(plan)});\n"


def test_plansights_tool_when_no_native_one_is_offered() -> None:
    mcp_only = {"tools": [{"type": "function", "name": "mcp__plansight__todo_write"}]}
    step = (PLAN_TOOL, {"update_plan": {}, "todo_write": TODOS})
    assert _openai_step(step, mcp_only) == ("mcp__plansight__todo_write", TODOS)


def test_claude_codes_connecting_mcp_server_is_searched_by_keyword() -> None:
    """Without its todo tools Claude Code lists no plan tool; Plansight's MCP server is
    still connecting, and its tool search waits for it."""
    recorded = _recorded("claude-code-deferred-tools.json")
    step = (PLAN_TOOL, {"todo_write": TODOS})
    assert _anthropic_step(step, recorded["first_request"]) == (
        TOOL_SEARCH,
        {"query": "todo_write"},
    )
