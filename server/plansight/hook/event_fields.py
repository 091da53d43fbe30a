"""What one hook event says, read as the agent sent it: the conversation's session name,
whether the tool call failed, and the plan a plan tool's call carries."""

from __future__ import annotations

from typing import Any

from plansight.hook import HookError
from plansight.hook.hooked_agents import Agent


def session_name(agent: Agent, session_id: str) -> str:
    """`<agent>:<session_id>`, checked and cleaned as the contract's session names are."""
    from plansight.protocol.text import MAX_NAME_LENGTH, clean_name

    raw = f"{agent.name}:{session_id.strip()}"
    if len(raw) > MAX_NAME_LENGTH:
        raise HookError(f"the session_id is longer than {MAX_NAME_LENGTH} characters")
    return clean_name(raw)  # never empty: the agent's name is in it


def failed(event: dict[str, Any]) -> bool:
    """Gemini CLI runs AfterTool for failed calls too, with an `error` in the response;
    Copilot CLI says `result_type` in its `tool_result`."""
    response = event.get("tool_response")
    if isinstance(response, dict) and response.get("error"):
        return True
    result = event.get("tool_result")
    return isinstance(result, dict) and result.get("result_type", "success") != "success"


def plan_payload(
    agent: Agent,
    tool: str,
    event: dict[str, Any],
    session_id: str,
    facts: dict[str, str],
    plan_file: str | None = None,
) -> Any:
    """What `plansight/ingest` takes for this tool (None: the call did not touch the plan):
    Claude's Task tools and Gemini's tracker need the response (the id given a new task),
    Copilot CLI's `sql` the todo table it wrote, every other plan tool its input alone."""
    if agent.plan_tools[tool] == "markdown":  # a plan mode's approved plan
        from plansight.hook.plan_mode import approved_plan

        return approved_plan(agent.name, event, session_id.strip(), plan_file)
    if agent.plan_tools[tool] in ("claude-tasks", "gemini-tracker"):
        return {key: event.get(key) for key in ("tool_name", "tool_input", "tool_response")}
    if agent.name == "copilot" and tool == "sql":
        from plansight.hook.copilot_todos import Unreadable, session_todos, touches_todos

        if not touches_todos(event.get("tool_input")):
            return None
        facts["stage"] = "reading Copilot's todos"
        try:
            todos = session_todos(session_id.strip())
        except Unreadable as exc:
            raise HookError(f"Copilot's session database: {exc}") from None
        facts.pop("stage", None)
        if todos is None:
            return None
        if todos.left_out:
            facts["left_out"] = "; ".join(todos.left_out)  # after the result
        return todos.payload
    return event.get("tool_input")
