"""`maxDepth` (protocol 4) where a whole plan or an agent's payload arrives: `import`
changes nothing and says so in `errors`; an `ingest` is refused whole (InvalidParams) at
`payload.text` for markdown and at the item's path for an agent's own format."""

from __future__ import annotations

from typing import Any

import pytest
from plansight_client import start_client, stop_client
from pygls.exceptions import JsonRpcException

TOO_DEEP = """## P
- [ ] A
  - [ ] B
    - [ ] C
"""


def outline(state: dict[str, Any]) -> list[str]:
    return [task["content"] for phase in state["phases"] for task in phase["tasks"]]


async def test_an_import_past_max_depth_changes_nothing_and_says_so(db: Any) -> None:
    client = await start_client(db, options={"maxDepth": 2})
    try:
        await client.call(
            "plansight/apply",
            {"ops": [{"op": "init", "list": [{"phase": "P", "items": ["Keep"]}]}]},
        )
        result = await client.call("plansight/import", {"markdown": TOO_DEEP, "origin": "user"})
        assert result["errors"] == ['Too deep: "C" would be at depth 3, the limit is 2']
        assert result["changed"] is False
        assert outline(result) == ["Keep"]
        shallow = "## P\n- [ ] A\n  - [ ] B\n"
        result = await client.call("plansight/import", {"markdown": shallow, "origin": "user"})
        assert result["errors"] == []
        assert outline(result) == ["A", "B"]
    finally:
        await stop_client(client)


async def test_a_markdown_ingest_past_max_depth_is_refused_at_its_text(db: Any) -> None:
    client = await start_client(db, options={"maxDepth": 2})
    try:
        with pytest.raises(JsonRpcException) as refused:
            await client.call(
                "plansight/ingest", {"format": "markdown", "payload": {"text": TOO_DEEP}}
            )
        assert refused.value.code == -32602
        assert refused.value.data["errors"] == [
            {"path": "payload.text", "message": 'Too deep: "C" would be at depth 3, the limit is 2'}
        ]
        state = await client.call("plansight/get", {})
        assert state["version"] == 0
    finally:
        await stop_client(client)


async def test_a_gemini_tracker_task_past_max_depth_is_refused_at_its_parent_id(db: Any) -> None:
    def created(task_id: str, title: str, **tool_input: Any) -> dict[str, Any]:
        return {
            "tool_name": "tracker_create_task",
            "tool_input": {"title": title, "description": title, "type": "task", **tool_input},
            "tool_response": {"llmContent": f"Created task {task_id}: {title}"},
        }

    client = await start_client(db, options={"maxDepth": 2})
    try:
        for call in (created("a1", "Epic"), created("b2", "Story", parentId="a1")):
            await client.call(
                "plansight/ingest", {"session": "gt", "format": "gemini-tracker", "payload": call}
            )
        with pytest.raises(JsonRpcException) as refused:
            await client.call(
                "plansight/ingest",
                {
                    "session": "gt",
                    "format": "gemini-tracker",
                    "payload": created("c3", "Step", parentId="b2"),
                },
            )
        assert refused.value.code == -32602
        assert refused.value.data["errors"] == [
            {
                "path": "payload.tool_input.parentId",
                "message": 'Too deep: "Step" would be at depth 3, the limit is 2',
            }
        ]
        state = await client.call("plansight/get", {"session": "gt"})
        assert outline(state) == ["Epic", "Story"]
    finally:
        await stop_client(client)
