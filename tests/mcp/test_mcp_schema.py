"""The MCP tools' input schemas derive from the request shapes (`mcp/tool_schemas.py`):
every field an op takes is offered to the model, the derived schemas say what the
hand-written ones of protocol 3 said, and a change of a shape reaches its tool's schema."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from plansight.mcp.tool_schemas import input_schema
from plansight.mcp.tools import (
    HINTS,
    SCHEMAS_FILE,
    TOOL_TEXT,
    derived_schemas,
    generated_text,
    input_schemas,
)
from plansight.protocol.registry import BY_TOOL, Tool
from plansight.protocol.requests import OP_SHAPES, IngestParams
from plansight.protocol.shape import camel

BY_HAND = Path(__file__).resolve().parents[1] / "fixtures" / "mcp" / "tool_schemas_by_hand.json"


def test_every_field_of_every_op_is_in_the_todo_tools_schema() -> None:
    todo = derived_schemas()["todo"]
    offered = set(todo["properties"]["ops"]["items"]["properties"])
    for shape in OP_SHAPES:
        for field in dataclasses.fields(shape):
            name = shape.wire_names.get(field.name, camel(field.name))
            assert name in offered, f"{shape.__name__}.{name} is not in the todo tool's schema"
    assert todo["properties"]["ops"]["items"]["properties"]["notes"]["items"] == {"type": "string"}


def _comparable(schema: Any) -> Any:
    """Order of `required` aside, and an open object said two ways (`additionalProperties:
    true` is what a JSON object is anyway)."""
    if isinstance(schema, dict):
        return {
            key: sorted(value) if key == "required" else _comparable(value)
            for key, value in schema.items()
            if not (key == "additionalProperties" and value is True)
        }
    if isinstance(schema, list):
        return [_comparable(value) for value in schema]
    return schema


def _protocol_3(derived: dict[str, Any]) -> dict[str, Any]:
    """The derived schemas without what protocol 4 added: the `move` op and its fields,
    and the `gemini-tracker` ingest format."""
    ops = derived["todo"]["properties"]["ops"]["items"]
    for name in ("before", "after", "parent"):
        del ops["properties"][name]
    ops["properties"]["op"]["enum"].remove("move")
    derived["todo_ingest"]["properties"]["format"]["enum"].remove("gemini-tracker")
    return derived


def test_the_derived_schemas_say_what_the_hand_written_ones_said() -> None:
    by_hand = json.loads(BY_HAND.read_text(encoding="utf-8"))
    del by_hand["_source"]
    derived = _protocol_3(derived_schemas())
    assert set(derived) == set(by_hand) == set(BY_TOOL) == set(TOOL_TEXT)
    for name, schema in by_hand.items():
        assert _comparable(_protocol3(derived[name])) == _comparable(schema), name


# What protocol 4 added to the shapes since the schemas were written by hand (protocol 3).
V4_FIELDS = {"parent", "subtasks"}


def _protocol3(schema: Any) -> Any:
    """`schema` without the properties protocol 4 added."""
    if isinstance(schema, dict):
        return {
            key: (
                {n: _protocol3(v) for n, v in value.items() if n not in V4_FIELDS}
                if key == "properties"
                else _protocol3(value)
            )
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [_protocol3(value) for value in schema]
    return schema


def test_a_tools_schema_follows_its_shape() -> None:
    @dataclasses.dataclass(kw_only=True, eq=False)
    class Changed(IngestParams):
        title: int | None = None  # was `str | None`
        estimate: str | None = None  # new

    ingest = BY_TOOL["todo_ingest"]
    assert ingest.tool is not None
    changed = dataclasses.replace(
        ingest, params=Changed, tool=Tool(ingest.tool.name, (*ingest.tool.arguments, "estimate"))
    )
    schema = input_schema(changed, HINTS["todo_ingest"])
    assert schema["properties"]["title"] == {
        "type": "integer",
        "description": "A title for the plan",
    }
    assert schema["properties"]["estimate"] == {"type": "string"}
    assert schema["required"] == ["format", "payload"]


def test_hints_only_narrow_what_the_shapes_allow() -> None:
    """A hint makes a field nullable only where its shape allows a null, and sets no type."""
    write = BY_TOOL["todo_write"]
    with pytest.raises(ValueError, match="cannot be null"):
        input_schema(write, {"todos[].content": {"nullable": True}})
    with pytest.raises(ValueError, match="may not set 'type'"):
        input_schema(write, {"todos[].content": {"type": "integer"}})
    schema = input_schema(write, {"todos[].owner": {"nullable": True}})
    assert schema["properties"]["todos"]["items"]["properties"]["owner"] == {
        "type": ["string", "null"]
    }


def test_the_generated_schemas_are_the_derived_ones() -> None:
    """The MCP server reads them from the file: regenerate it with
    `python -m plansight.mcp.tools` after a shape changes."""
    assert SCHEMAS_FILE.read_text(encoding="utf-8") == generated_text()
    assert input_schemas() == derived_schemas()
