"""A tool's input schema, derived from its request's params shape (as `plansight schema`
derives the contract's), then flattened for the clients that cannot read `$ref` or
`oneOf` in a tool's schema, with the prose and hints for models of `mcp/tools.py` laid
over it.

The flattening: references are written in place; the ops' tagged union becomes one
object (every op's fields, `op` an enum of the op names); a field that may be left out
(its default is null) is offered without null, since leaving it out says the same, unless
a hint says `nullable` (where a null means something: `update` clears priority or owner);
titles and defaults go (noise for a model).
"""

from __future__ import annotations

import copy
from typing import Any

from plansight.protocol.registry import Request

Schema = dict[str, Any]
# What a hint may set: prose and narrowing only, never a type of its own.
HINT_KEYS = frozenset({"description", "minLength", "additionalProperties", "required", "nullable"})
_DROPPED = ("title", "default", "discriminator")
_NULLABLE = "x-nullable"  # marks, while laying hints, where the shape allows a null


def input_schema(request: Request, hints: dict[str, Schema]) -> Schema:
    """The tool's arguments (`request.tool.arguments`) as a flat JSON Schema."""
    assert request.tool is not None
    full = request.params.json_schema()
    defs = full.get("$defs", {})
    arguments = request.tool.arguments
    properties = {
        name: _flat(schema, defs)
        for name, schema in full["properties"].items()
        if name in arguments
    }
    schema: Schema = {"type": "object", "properties": properties}
    required = [name for name in full.get("required", ()) if name in arguments]
    if required:
        schema["required"] = required
    for path, hint in hints.items():
        _lay(schema, path, hint)
    _unmark(schema)
    return schema


def _flat(node: Schema, defs: dict[str, Schema], inside: frozenset[str] = frozenset()) -> Schema:
    """`inside`: the definitions being written out around `node`. A shape that holds
    itself (an item's `subtasks`, protocol 4) is written out once; within itself it is
    any object, which the server validates as the shape."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        if name in inside:
            return {"type": "object"}
        return _flat(defs[name], defs, inside | {name})
    if "oneOf" in node:
        return _merged([_flat(member, defs, inside) for member in node["oneOf"]])
    if "anyOf" in node:
        members = [member for member in node["anyOf"] if member != {"type": "null"}]
        if len(members) == 1:  # optional: left out means null
            return {**_flat(members[0], defs, inside), _NULLABLE: True}
        return {"anyOf": [_flat(member, defs, inside) for member in members]}
    flat = {key: value for key, value in node.items() if key not in _DROPPED}
    if "properties" in flat:
        flat["properties"] = {
            name: _flat(schema, defs, inside) for name, schema in flat["properties"].items()
        }
    if "items" in flat:
        flat["items"] = _flat(flat["items"], defs, inside)
    if "const" in flat:  # an op's tag, merged into an enum with the others'
        flat["enum"] = [flat.pop("const")]
    return flat


def _merged(members: list[Schema]) -> Schema:
    """A tagged union as one object: every member's fields, the tag's values one enum."""
    properties: Schema = {}
    required: list[str] | None = None
    for member in members:
        for name, schema in member.get("properties", {}).items():
            if name in properties and "enum" in schema and schema.get("type") == "string":
                enum = properties[name].setdefault("enum", [])
                enum.extend(value for value in schema["enum"] if value not in enum)
            else:
                properties.setdefault(name, copy.deepcopy(schema))
        names = member.get("required", [])
        required = names if required is None else [n for n in required if n in names]
    merged: Schema = {"type": "object", "properties": properties}
    if required:
        merged["required"] = required
    return merged


def _lay(schema: Schema, path: str, hint: Schema) -> None:
    """Lay `hint` on the node at `path` (`ops[].items[].1.content`: a property, `[]` an
    array's items, a number the member of an anyOf)."""
    node = schema
    for step in _steps(path):
        if step == "[]":
            node = node["items"]
        elif step.isdigit():
            node = node["anyOf"][int(step)]
        else:
            node = node["properties"][step]
    for key, value in hint.items():
        if key not in HINT_KEYS:
            raise ValueError(f"a hint may not set {key!r} ({path})")
        if key == "nullable":
            if value and not node.get(_NULLABLE):
                raise ValueError(f"{path} cannot be null in its shape")
            if value:
                node["type"] = [node["type"], "null"]
                if "enum" in node:
                    node["enum"] = [*node["enum"], None]
        else:
            node[key] = value


def _unmark(node: Any) -> None:
    if isinstance(node, dict):
        node.pop(_NULLABLE, None)
        for value in node.values():
            _unmark(value)
    elif isinstance(node, list):
        for value in node:
            _unmark(value)


def _steps(path: str) -> list[str]:
    steps: list[str] = []
    for part in path.split("."):
        name, arrays = part, 0
        while name.endswith("[]"):
            name, arrays = name[:-2], arrays + 1
        if name:
            steps.append(name)
        steps.extend(["[]"] * arrays)
    return steps
