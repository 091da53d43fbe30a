"""stdio framing for the server: LSP base protocol (`Content-Length` headers) read by an
asyncio pipe reader.

pygls's stock `start_io` reads stdin line by line through a thread pool, which costs
more than the rest of a request together; this reader also enforces the message size
limit before anything is parsed, answers garbage with JSON-RPC errors instead of dying,
and gives requests that omit `params` the empty object the contract implies.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from typing import Any, BinaryIO

from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
MAX_HEADER_BYTES = 8 * 1024
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


class FramingError(Exception):
    """The byte stream cannot be read as messages any more."""


class _StdoutWriter:
    """pygls writes whole framed messages through this."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def write(self, data: bytes) -> None:
        self._stream.write(data)
        self._stream.flush()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._stream.close()


async def _open_stdin(stream: BinaryIO) -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_HEADER_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stream)
    return reader


async def read_message(reader: asyncio.StreamReader) -> bytes | None:
    """One message body; None at the end of the stream. Oversized bodies are skipped
    unread and reported as FramingError only when the stream cannot be resynchronised."""
    length: int | None = None
    header_bytes = 0
    while True:
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            if exc.partial.strip():
                log.warning("the client closed the stream mid-message")
            return None
        except asyncio.LimitOverrunError as exc:
            raise FramingError("header line too long") from exc
        header_bytes += len(line)
        if header_bytes > MAX_HEADER_BYTES:
            raise FramingError("headers too long")
        stripped = line.strip()
        if not stripped:
            if length is None:
                continue  # stray blank line between messages
            break
        # Found anywhere in the line, so a message right after stray bytes is not lost.
        at = stripped.lower().find(b"content-length:")
        if at >= 0:
            value = stripped[at + len(b"content-length:") :].strip()
            if not value.isdigit():
                raise FramingError("bad Content-Length")
            length = int(value)
    if length > MAX_MESSAGE_BYTES:
        await _discard(reader, length)
        raise OversizedMessage(length)
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        log.warning("the client closed the stream mid-message")
        return None


class OversizedMessage(Exception):
    def __init__(self, length: int) -> None:
        super().__init__(f"message of {length} bytes is over the {MAX_MESSAGE_BYTES} byte limit")


async def _discard(reader: asyncio.StreamReader, length: int) -> None:
    remaining = length
    while remaining > 0:
        chunk = await reader.read(min(remaining, 1 << 16))
        if not chunk:
            return
        remaining -= len(chunk)


def _error_response(code: int, message: str, msg_id: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def _send_raw(protocol: JsonRPCProtocol, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    assert protocol.writer is not None
    protocol.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def _dispatch(protocol: JsonRPCProtocol, body: bytes, plansight_methods: frozenset[str]) -> None:
    try:
        raw = json.loads(body)
    except (ValueError, RecursionError):
        _send_raw(
            protocol, _error_response(PARSE_ERROR, "Parse error: the message is not valid JSON")
        )
        return
    if (
        not isinstance(raw, dict)
        or raw.get("jsonrpc") != "2.0"
        or not (isinstance(raw.get("method"), str) or "result" in raw or "error" in raw)
    ):
        msg_id = raw.get("id") if isinstance(raw, dict) else None
        if not isinstance(msg_id, (str, int)):
            msg_id = None
        _send_raw(
            protocol,
            _error_response(INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message", msg_id),
        )
        return
    if "method" in raw and raw.get("params") is None:
        # pygls would never answer a request without params; ours take an empty object
        # (as a null `params` does: many clients send one for "no arguments").
        raw["params"] = {} if raw["method"] in plansight_methods else None
    if (
        raw.get("method") in plansight_methods
        and "id" in raw
        and not isinstance(raw["params"], dict)
    ):
        _send_raw(
            protocol,
            {
                "jsonrpc": "2.0",
                "id": raw["id"],
                "error": {
                    "code": -32602,
                    "message": "params must be an object",
                    "data": {"errors": [{"path": "", "message": "params must be an object"}]},
                },
            },
        )
        return
    try:
        message = protocol.structure_message(raw)
        protocol.handle_message(message)
    except SystemExit:
        raise
    except Exception:
        log.exception("could not handle a message")
        msg_id = raw.get("id")
        if "method" in raw and isinstance(msg_id, (str, int)):
            _send_raw(protocol, _error_response(INVALID_REQUEST, "Invalid request", msg_id))


async def serve(
    protocol: JsonRPCProtocol,
    plansight_methods: frozenset[str],
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
) -> None:
    """Read and dispatch messages until the client closes stdin or sends `exit`."""
    out = stdout or sys.stdout.buffer
    protocol.set_writer(_StdoutWriter(out))
    reader = await _open_stdin(stdin or sys.stdin.buffer)
    while True:
        try:
            body = await read_message(reader)
        except OversizedMessage as exc:
            _send_raw(protocol, _error_response(INVALID_REQUEST, f"Invalid request: {exc}"))
            continue
        except FramingError as exc:
            log.error("closing: %s", exc)
            _send_raw(protocol, _error_response(PARSE_ERROR, f"Parse error: {exc}; closing"))
            return
        if body is None:
            return
        _dispatch(protocol, body, plansight_methods)


def detach_stdout() -> BinaryIO:
    """Keep the real stdout for the wire and point fd 1 at stderr, so a stray print in a
    dependency cannot corrupt the protocol stream."""
    wire = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return wire
