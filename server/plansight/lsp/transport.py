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
from collections.abc import Callable
from typing import Any, BinaryIO

from pygls.protocol import JsonRPCProtocol

from plansight.lsp.pygls_private import more_buffered, request_runner
from plansight.protocol.message_limits import MAX_MESSAGE_BYTES, valid_id

log = logging.getLogger(__name__)

MAX_HEADER_BYTES = 8 * 1024
# An announced body longer than this is not skipped: the stream is given up (and a
# length of more digits than this one has is not even read as a number).
MAX_SKIP_BYTES = 256 * 1024 * 1024
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


class FramingError(Exception):
    """The byte stream cannot be read as messages any more."""


class _StdoutWriter:
    """pygls writes whole framed messages through this.

    While the reader works through messages that arrived together, what is written
    waits and leaves in one system call once the last of them is handled: a response
    with the push that follows it, or the answers to a burst of requests. Anything
    written outside that (a push for another process's change) leaves at once."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._pending: list[bytes] | None = None
        self._flush_scheduled = False

    def write(self, data: bytes) -> None:
        if self._pending is not None:
            self._pending.append(data)
        else:
            self._send(data)

    def hold(self) -> None:
        """Keep what is written from now until `flush`."""
        if self._pending is None:
            self._pending = []

    def flush(self) -> None:
        pending, self._pending = self._pending, None
        if pending:
            self._send(b"".join(pending))

    def flush_soon(self) -> None:
        """Flush once the event loop is free: when the reader waits for the client."""
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._scheduled_flush)

    def _scheduled_flush(self) -> None:
        self._flush_scheduled = False
        self.flush()

    def _send(self, data: bytes) -> None:
        try:
            self._stream.write(data)
            self._stream.flush()
        except OSError as exc:  # the client is gone; reading stdin will end too
            log.warning("cannot write to the client: %s", exc.__class__.__name__)

    def close(self) -> None:
        self.flush()
        with contextlib.suppress(OSError):
            self._stream.close()


async def _open_stdin(stream: BinaryIO) -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_HEADER_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stream)
    return reader


async def read_message(reader: asyncio.StreamReader) -> bytes | None:
    """One message body; None at the end of the stream. A body over the size limit is
    refused as soon as its header is read (OversizedMessage, before the body arrives);
    FramingError when the stream cannot be resynchronised."""
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
            if len(value) > len(str(MAX_SKIP_BYTES)) or int(value) > MAX_SKIP_BYTES:
                raise FramingError("Content-Length too large to skip")
            length = int(value)
    if length > MAX_MESSAGE_BYTES:
        raise OversizedMessage(length)
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        log.warning("the client closed the stream mid-message")
        return None


class OversizedMessage(Exception):
    def __init__(self, length: int) -> None:
        super().__init__(f"message of {length} bytes is over the {MAX_MESSAGE_BYTES} byte limit")
        self.length = length


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


def _not_json(constant: str) -> Any:
    # Python's parser takes NaN and Infinity; JSON has no such values.
    raise ValueError(f"{constant} is not JSON")


RequestRunner = Callable[[Any, str, Any], None]


def _dispatch(
    protocol: JsonRPCProtocol,
    body: bytes,
    plansight_methods: frozenset[str],
    run_request: RequestRunner | None,
) -> None:
    try:
        raw = json.loads(body, parse_constant=_not_json)
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
    if "method" in raw and "id" in raw and raw["id"] is not None and not valid_id(raw["id"]):
        _send_raw(
            protocol,
            _error_response(INVALID_REQUEST, "Invalid request: an id is a string or an integer"),
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
        if (
            run_request is not None
            and raw.get("method") in plansight_methods
            and type(raw.get("id")) in (int, str)
            and not _shut_down(protocol)
        ):
            # What pygls's `handle_message` would do for this request, without turning
            # the dict into a message object and back (a third of a `get`).
            run_request(raw["id"], raw["method"], raw["params"])
            return
        message = protocol.structure_message(raw)
        refusal = _unanswerable(protocol, raw, message)
        if refusal is not None:
            _send_raw(protocol, _error_response(INVALID_REQUEST, refusal, raw["id"]))
            return
        protocol.handle_message(message)
    except SystemExit:
        raise
    except Exception:
        log.exception("could not handle a message")
        msg_id = raw.get("id")
        if "method" in raw and isinstance(msg_id, (str, int)):
            _send_raw(protocol, _error_response(INVALID_REQUEST, "Invalid request", msg_id))


def _unanswerable(protocol: JsonRPCProtocol, raw: dict[str, Any], message: Any) -> str | None:
    """Why pygls would drop this request without an answer (leaving its client waiting
    for ever), if it would."""
    if "method" not in raw or not isinstance(raw.get("id"), (str, int)):
        return None
    if not hasattr(message, "id"):
        return f"Invalid request: {raw['method']} is a notification and takes no id"
    if _shut_down(protocol):
        return "Invalid request: the server is shutting down"
    return None


def _shut_down(protocol: JsonRPCProtocol) -> bool:
    """Whether the client asked the server to shut down (`FencedProtocol.shut_down`)."""
    return bool(getattr(protocol, "shut_down", False))


async def serve(
    protocol: JsonRPCProtocol,
    plansight_methods: frozenset[str],
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    after: list[Callable[[], None]] | None = None,
) -> None:
    """Read and dispatch messages until the client closes stdin or sends `exit`. Work a
    message leaves in `after` runs once its answer has left, before the next message."""
    out = stdout or sys.stdout.buffer
    writer = _StdoutWriter(out)
    protocol.set_writer(writer)
    reader = await _open_stdin(stdin or sys.stdin.buffer)
    run_request = request_runner(protocol)
    try:
        while True:
            try:
                body = await read_message(reader)
            except OversizedMessage as exc:
                # Answered before the body is skipped, so the client need not send it all
                # to hear why; then the body is read past, never kept.
                _send_raw(protocol, _error_response(INVALID_REQUEST, f"Invalid request: {exc}"))
                writer.flush()
                await _discard(reader, exc.length)
                continue
            except FramingError as exc:
                log.error("closing: %s", exc)
                _send_raw(protocol, _error_response(PARSE_ERROR, f"Parse error: {exc}; closing"))
                return
            if body is None:
                return
            writer.hold()
            _dispatch(protocol, body, plansight_methods, run_request)
            if after:
                writer.flush()
                run_after(after)
            if more_buffered(reader):
                writer.flush_soon()  # more may be answered first, or the bytes wait there
            else:
                writer.flush()
    finally:
        writer.flush()


def run_after(work: list[Callable[[], None]]) -> None:
    """Run and forget each piece of `work`, in order; a failure is logged, never raised
    (the answer it followed is out already)."""
    while work:
        try:
            work.pop(0)()
        except Exception:
            log.exception("could not finish what a message started")


def detach_stdout() -> BinaryIO:
    """Keep the real stdout for the wire and point fd 1 at stderr, so a stray print in a
    dependency cannot corrupt the protocol stream."""
    wire = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return wire
