"""The MCP `todo` tool's flat op schema against the op shapes of the protocol: a field an op
takes (protocol 3 added `update`'s `notes`) is offered to the model too."""

from __future__ import annotations

import dataclasses

from plansight.mcp.tools import TODO_SCHEMA
from plansight.protocol.requests import OP_SHAPES
from plansight.protocol.shape import camel


def test_every_field_of_every_op_is_in_the_todo_tools_schema() -> None:
    offered = set(TODO_SCHEMA["properties"]["ops"]["items"]["properties"])
    for shape in OP_SHAPES:
        for field in dataclasses.fields(shape):
            name = shape.wire_names.get(field.name, camel(field.name))
            assert name in offered, f"{shape.__name__}.{name} is not in the todo tool's schema"
    assert TODO_SCHEMA["properties"]["ops"]["items"]["properties"]["notes"]["items"] == {
        "type": "string"
    }
