"""The Agent Client Protocol: a `session/update` plan.

Shapes: npm `@agentclientprotocol/sdk`, `schema/v1/schema.json` (`{sessionUpdate: "plan",
entries}`) and `schema/v2/schema.json` (`{sessionUpdate: "plan_update", plan: {type:
"items", planId, entries}}`). Entries are `{content, priority, status, _meta?}`.
"""

from __future__ import annotations

from typing import Any

from plansight.agents.reading import PayloadReader, priority_of
from plansight.core.incoming import Incoming, IncomingTask, Replacement
from plansight.core.model import TaskStatus

V1_STATUSES: dict[str, TaskStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
}
STATUSES: dict[str, TaskStatus] = {**V1_STATUSES, "cancelled": "abandoned"}  # v2


def plan_update(payload: dict[str, Any]) -> Incoming:
    """Either version's plan update: the whole plan, priorities kept."""
    reader = PayloadReader()
    kind = payload.get("sessionUpdate")
    entries: list[Any] | None = None
    path = "payload"
    carried = STATUSES
    if kind == "plan":
        carried = V1_STATUSES  # v1 has no `cancelled`: a dropped task can only be pending
        entries = reader.items(payload, "entries", path)
    elif kind == "plan_update":
        plan = reader.object(payload.get("plan"), "payload.plan")
        path = "payload.plan"
        if plan is not None:
            content_type = plan.get("type", "items")
            if content_type != "items":
                # Markdown or file plans (v2 unstable) carry no entries to show as tasks.
                reader.fail("payload.plan.type", 'Only "items" plans can be ingested')
            else:
                entries = reader.items(plan, "entries", path)
    else:
        reader.fail("payload.sessionUpdate", 'Expected "plan" or "plan_update"')
    tasks: list[IncomingTask] = []
    for index, item in enumerate(entries or []):
        item_path = f"{path}.entries.{index}"
        entry = reader.object(item, item_path)
        if entry is not None and (read := reader.task(entry, item_path, "content", STATUSES)):
            priority = priority_of(entry.get("priority"))
            tasks.append(IncomingTask(*read, item_path, priority=priority))
    reader.done()
    return Replacement(tasks, f"{path}.entries", statuses=frozenset(carried.values()))
