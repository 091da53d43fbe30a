"""The transport's rules, the same for the language server and the MCP server: how big
one message may be, and which JSON-RPC ids are ids."""

from __future__ import annotations

from typing import Any

MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def valid_id(msg_id: Any) -> bool:
    """JSON-RPC ids are strings or integers: never a boolean, a fraction, an infinity
    (`1e999` would be echoed as `Infinity`, which is not JSON), an array or an object."""
    return type(msg_id) in (str, int)
