"""The one line the hook gives an agent when a session starts, once setup has registered
Plansight's MCP server for it: which tool keeps its plan when it has no plan tool of its
own (a model offered none: Gemini CLI's default model, Claude's newest ones without the
switch). Setup's record (`setup/record.py`) says for which agents; the hook reads it
with the standard library only."""

from __future__ import annotations

import json
from pathlib import Path

from plansight.paths import state_home

# What each agent's own plan tool is called, as its model sees it.
NATIVE_PLAN_TOOLS = {
    "claude-code": "TaskCreate/TaskUpdate (or TodoWrite)",
    "codex": "update_plan",
    "gemini": "write_todos",
    "copilot": "the todos table of your sql tool (or manage_todo_list)",
}


def setup_record_path() -> Path:
    """What `plansight setup` added to the person's files, and for which agents."""
    return state_home() / "plansight" / "setup.json"


def plan_tool_note(agent: str) -> str | None:
    """The line, or None when setup did not register the MCP server for `agent`."""
    try:
        with open(setup_record_path(), encoding="utf-8") as file:
            agents = json.load(file).get("agents", {})
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(agents, dict) or not agents.get(agent) or agent not in NATIVE_PLAN_TOOLS:
        return None
    return (
        f"Plansight shows your plan to the user: keep it with {NATIVE_PLAN_TOOLS[agent]}; "
        "if you have no such tool, use todo_write of the plansight MCP server instead."
    )
