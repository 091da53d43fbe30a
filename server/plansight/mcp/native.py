"""Agents' own plan tools, offered under their own names and schemas.

An agent whose hooks do not see its plan tool calls (Codex's `update_plan`) can still show
its plan when Plansight offers a tool exactly like its own: the model calls what it was
trained on, and the arguments go through `plansight/ingest` in that agent's format.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class NativeTool:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    format: str  # the `plansight/ingest` format its arguments are in


# openai/codex `codex-rs/tools/src/plan_tool.rs` (create_update_plan_tool): the same
# description and parameters, so a Codex model's `update_plan` call is the one it knows.
CODEX_UPDATE_PLAN = NativeTool(
    name="update_plan",
    title="Update the plan",
    description=(
        "Updates the task plan.\n"
        "Provide an optional explanation and a list of plan items, each with a step and "
        "status.\n"
        "At most one step can be in_progress at a time.\n"
    ),
    input_schema={
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
    },
    format="codex-plan",
)

# Per agent (`plansight mcp --agent NAME`), the native tools it gets.
AGENT_TOOLS: dict[str, tuple[NativeTool, ...]] = {"codex": (CODEX_UPDATE_PLAN,)}
# The name each agent's MCP client gives itself in `clientInfo`.
CLIENT_AGENTS: dict[str, str] = {"codex-mcp-client": "codex"}
NATIVE_TOOLS: dict[str, NativeTool] = {
    tool.name: tool for tools in AGENT_TOOLS.values() for tool in tools
}


def agent_of(client_name: str | None) -> str | None:
    """The agent an MCP client is, when Plansight has native tools for it."""
    return CLIENT_AGENTS.get(client_name or "")
