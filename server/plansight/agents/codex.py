"""OpenAI Codex: its `update_plan` tool input.

Shape: openai/codex `codex-rs/protocol/src/plan_tool.rs` (UpdatePlanArgs, PlanItemArg,
StepStatus) and `codex-rs/tools/src/plan_tool.rs` (the tool's JSON schema, which
`plansight.mcp.native` offers unchanged).
"""

from __future__ import annotations

from typing import Any

from plansight.agents.reading import PayloadReader
from plansight.core.incoming import Incoming, IncomingTask, Replacement
from plansight.core.model import TaskStatus

STEP_STATUSES: dict[str, TaskStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
}


def update_plan(payload: dict[str, Any]) -> Incoming:
    """`{explanation?, plan: [{step, status}]}`: the whole plan; the explanation becomes a
    note of the step in progress."""
    reader = PayloadReader()
    tasks: list[IncomingTask] = []
    for path, step in reader.entries(payload, "plan", "payload"):
        if read := reader.task(step, path, "step", STEP_STATUSES):
            tasks.append(IncomingTask(*read, path, content_key="step"))
    explanation = reader.optional_text(payload, "explanation", "payload")
    reader.done()
    return Replacement(
        tasks,
        "payload.plan",
        note=explanation,
        note_path="payload.explanation",
        statuses=frozenset(STEP_STATUSES.values()),
    )
