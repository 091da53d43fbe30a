"""The transport's rules, the same for the language server and the MCP server: how big
one message may be, how deep its values may nest, and which JSON-RPC ids are ids."""

from __future__ import annotations

from typing import Any

MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def valid_id(msg_id: Any) -> bool:
    """JSON-RPC ids are strings or integers: never a boolean, a fraction, an infinity
    (`1e999` would be echoed as `Infinity`, which is not JSON), an array or an object."""
    return type(msg_id) in (str, int)


# Deeper than any request of the contract needs (an op's item's notes are 5 levels):
# deeper values are refused before they are validated, logged or stored, so nesting
# cannot exhaust the stack anywhere.
MAX_DEPTH = 32


def too_deep(value: Any, limit: int = MAX_DEPTH) -> str | None:
    """The path of the first value nested deeper than `limit`, else None (no recursion)."""
    stack: list[tuple[Any, int, str]] = [(value, 0, "")]
    while stack:
        node, depth, path = stack.pop()
        if depth > limit:
            return path
        if isinstance(node, dict):
            stack.extend((v, depth + 1, f"{path}.{k}" if path else str(k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(
                (v, depth + 1, f"{path}.{i}" if path else str(i)) for i, v in enumerate(node)
            )
    return None
