"""The MCP server's stdin, checked line by line before the MCP SDK sees it.

The SDK's stdio transport answers nothing to a line it cannot read (not JSON, a lone
surrogate, deep nesting, an id like `1e999` or `1.5`): the agent waits for ever. Here each
line is bounded (the 4 MiB the language server takes), parsed, checked and answered with
the JSON-RPC error a client expects (-32700, -32600, -32602) when it is refused; what
passes is handed on as clean JSON text.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from plansight.protocol.message_limits import MAX_MESSAGE_BYTES, too_deep, valid_id

log = logging.getLogger(__name__)

MAX_LINE_BYTES = MAX_MESSAGE_BYTES
# Tool arguments are a few levels deep (ops, items, notes); far deeper is refused before
# any parser that recurses sees it.
MAX_DEPTH = 64


@dataclass(frozen=True, slots=True)
class Refusal:
    code: int
    message: str
    id: str | int | None = None


def check_line(line: bytes) -> str | Refusal | None:
    """The line as JSON text the SDK can take, a refusal to answer, or None (blank)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return Refusal(types.PARSE_ERROR, "Parse error: the line is not UTF-8")
    if not text.strip():
        return None
    try:
        message = json.loads(text, parse_constant=_not_json)
    except (ValueError, RecursionError):
        return Refusal(types.PARSE_ERROR, "Parse error: the line is not a JSON value")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return Refusal(types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message")
    msg_id = message.get("id")
    if "id" in message and not valid_id(msg_id):
        return Refusal(types.INVALID_REQUEST, "Invalid request: an id is a string or an integer")
    answer_id = msg_id if "method" in message else None
    # Each level of nesting opens with a bracket of its own: with no more brackets in all
    # than the limit, nothing can be deeper, and most messages need no walk.
    path = too_deep(message, MAX_DEPTH) if _brackets(text) > MAX_DEPTH else None
    if path is not None:
        code = types.INVALID_PARAMS if path.startswith("params") else types.INVALID_REQUEST
        return Refusal(code, f"Invalid params: nested deeper than {MAX_DEPTH} levels", answer_id)
    if _SURROGATE_ESCAPE.search(text):  # the only way one can be in valid UTF-8 JSON
        message = _without_lone_surrogates(message)
    try:
        types.jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValueError:
        return Refusal(types.INVALID_REQUEST, "Invalid request: not an MCP message", answer_id)
    return json.dumps(message)


# `\uD800` to `\uDFFF`, in either case (an escaped backslash before `u` matches too: a
# needless walk, never a missed surrogate).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _brackets(text: str) -> int:
    return text.count("{") + text.count("[")


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _without_lone_surrogates(value: Any) -> Any:
    """A lone surrogate (`"\\ud83d"`, half an emoji) cannot be written as UTF-8: it becomes
    U+FFFD, and the text around it is kept."""
    if isinstance(value, str):
        if value.isprintable() or not any("\ud800" <= c <= "\udfff" for c in value):
            return value
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in value)
    if isinstance(value, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_lone_surrogates(v) for v in value]
    return value


class CheckedLines:
    """stdin as the SDK reads it (an async iterator of lines), refusals answered aside."""

    def __init__(self, stdin: BinaryIO) -> None:
        self._stdin = stdin
        self._answers: MemoryObjectSendStream[SessionMessage] | None = None
        self._ready = anyio.Event()

    def answer_through(self, stream: MemoryObjectSendStream[SessionMessage]) -> None:
        self._answers = stream
        self._ready.set()

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self._readline(MAX_LINE_BYTES + 1)
            if not line:
                raise StopAsyncIteration
            if len(line) > MAX_LINE_BYTES:
                await self._skip_rest(line)
                await self._refuse(
                    Refusal(
                        types.INVALID_REQUEST,
                        f"Invalid request: the line is over the {MAX_LINE_BYTES} byte limit",
                    )
                )
                continue
            checked = check_line(line)
            if isinstance(checked, Refusal):
                await self._refuse(checked)
            elif checked is not None:
                return checked

    async def _readline(self, limit: int) -> bytes:
        """At most `limit` bytes of the next line (a blocking read, in a worker thread;
        abandoned, not waited for, when the server ends)."""
        return await anyio.to_thread.run_sync(self._stdin.readline, limit, abandon_on_cancel=True)

    async def _skip_rest(self, line: bytes) -> None:
        """Read past the rest of an oversized line without keeping it."""
        while not line.endswith(b"\n"):
            line = await self._readline(1 << 16)
            if not line:
                return

    async def _refuse(self, refusal: Refusal) -> None:
        log.warning("refused a message: %s", refusal.message)
        await self._ready.wait()
        assert self._answers is not None
        error = types.JSONRPCError(
            jsonrpc="2.0",
            id=refusal.id,
            error=types.ErrorData(code=refusal.code, message=refusal.message),
        )
        await self._answers.send(SessionMessage(error))


@asynccontextmanager
async def checked_stdio() -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[Any], MemoryObjectSendStream[SessionMessage]]
]:
    """The SDK's stdio transport, reading through `CheckedLines`."""
    lines = CheckedLines(sys.stdin.buffer)
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.answer_through(write_stream)
        yield read_stream, write_stream
