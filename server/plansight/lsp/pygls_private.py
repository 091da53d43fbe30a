"""Every private name of pygls (and of asyncio's StreamReader) the server uses, in one place.

The language server answers its own requests and sends its JSON through pygls's private
methods: pygls's public path turns each message into objects and back through its cattrs
converter, which cost more than the rest of a request together (docs/performance.md).
Private names can change in any release of pygls, so they are used only here, and only
once `check()` has found each of them with the parameters used (pygls 2.x). When one is
missing, the server takes pygls's public path instead, slower but with the same answers,
and says so in one log line. `tests/lsp/test_pygls_private.py` fails when a name used here
is gone from the installed pygls.

Worth proposing upstream: a way to send bytes already encoded as a result, and a hook to
run a synchronous handler without the per-request Future.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import logging
import os
from collections.abc import Callable
from functools import cache
from typing import Any

import pygls.feature_manager
from pygls.exceptions import FeatureRequestError, JsonRpcException
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCResponseMessage
from pygls.server import JsonRPCServer

from plansight.lsp.encoded import Encoded, encode_tree

log = logging.getLogger(__name__)

TESTED_MAJOR = "2"  # the pygls major version the fast paths were written against

# (class, private method, its parameters): what the fast paths call or replace.
PRIVATE_METHODS: tuple[tuple[type, str, tuple[str, ...]], ...] = (
    (JsonRPCProtocol, "_send_data", ("self", "data")),
    (JsonRPCProtocol, "_handle_request", ("self", "msg_id", "method_name", "params")),
    (JsonRPCProtocol, "_send_response", ("self", "msg_id", "result", "error")),
    (JsonRPCProtocol, "_serialize_message", ("self", "data")),
    (JsonRPCServer, "_report_server_error", ("self", "error", "source")),
)
# Attributes a protocol object has once made: the header switch `set_writer` keeps.
PRIVATE_ATTRIBUTES = ("_include_headers",)

_HEADER = b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"


def pygls_version() -> str | None:
    """The installed pygls's version, from its dist-info folder beside the package.

    importlib.metadata would find it too, but costs tens of milliseconds at start-up."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(pygls.feature_manager.__file__)))
    try:
        names = os.listdir(package)
    except OSError:
        return None
    for name in names:
        if name.startswith("pygls-") and name.endswith(".dist-info"):
            return name[len("pygls-") : -len(".dist-info")]
    return None


def problems() -> list[str]:
    """What the fast paths need and the installed pygls lacks (empty: all there)."""
    found: list[str] = []
    version = pygls_version()
    if version is not None and version.split(".")[0] != TESTED_MAJOR:
        found.append(f"pygls {version} is not {TESTED_MAJOR}.x")
    for owner, name, parameters in PRIVATE_METHODS:
        method = getattr(owner, name, None)
        if not callable(method):
            found.append(f"{owner.__name__}.{name} is gone")
            continue
        try:
            signature = tuple(inspect.signature(method).parameters)
        except (TypeError, ValueError):
            signature = ()
        if signature != parameters:
            found.append(f"{owner.__name__}.{name} takes {signature}, not {parameters}")
    return found


@cache
def fast_paths_usable() -> bool:
    """Whether the installed pygls has every private method used here; said once in the
    log when it does not."""
    found = problems()
    if found:
        log.warning(
            "pygls %s: %s; using pygls's public request and send paths (slower)",
            pygls_version() or "(version unknown)",
            "; ".join(found),
        )
    return not found


class FencedProtocol(LanguageServerProtocol):
    """pygls's protocol, with the fast request and send paths when the installed pygls
    allows them (`fast`). A subclass says which requests it answers itself
    (`answer_request`), and sends with `send_result` and `send_error`."""

    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.owner = server  # pygls keeps it only under a private name
        # Set by the server's `shutdown` handler: pygls keeps its own flag private.
        self.shut_down = False
        self.fast = fast_paths_usable() and all(hasattr(self, name) for name in PRIVATE_ATTRIBUTES)
        if not self.fast:
            if fast_paths_usable():
                log.warning("pygls's protocol lacks %s; using its public paths", PRIVATE_ATTRIBUTES)
            return
        # Instance attributes shadow pygls's methods, for every caller inside pygls too.
        self._send_data = self._send_data_fast  # type: ignore[method-assign]
        self._handle_request = self._handle_request_fast  # type: ignore[method-assign]

    # ------------------------------------------------------------ for subclasses

    def answer_request(self, msg_id: Any, method_name: str, params: Any) -> bool:
        """Answer a request without pygls's message objects; False to leave it to pygls."""
        return False

    def send_result(self, msg_id: Any, result: Any) -> None:
        """Answer `msg_id` with `result`; an `Encoded` result goes out as its bytes."""
        if type(result) is Encoded and self.writer is not None:
            # What `_send_response` and `_send_data` make of it, minus the message object.
            body = encode_tree({"id": msg_id, "jsonrpc": self.VERSION, "result": result})
            self.writer.write(self._header(len(body)) + body)
        else:
            self._send_response(msg_id, result=result)

    def send_error(self, msg_id: Any, error: JsonRpcException) -> None:
        """Answer `msg_id` with `error`, and report it as pygls reports a failed request."""
        self._send_response(msg_id, error=error.to_response_error())
        self.owner._report_server_error(error, FeatureRequestError)

    def wire_value(self, value: Any) -> Any:
        """`value` as what pygls's public path can send: an `Encoded` value is decoded
        there (its send path knows only plain JSON and attrs objects)."""
        if type(value) is Encoded and not self.fast:
            return json.loads(value.data)
        return value

    def notify(self, method: str, params: Any | None = None) -> None:
        super().notify(method, self.wire_value(params))

    # ------------------------------------------------------------ the fast paths

    def _handle_request_fast(self, msg_id: Any, method_name: str, params: Any) -> None:
        if not self.answer_request(msg_id, method_name, params):
            LanguageServerProtocol._handle_request(self, msg_id, method_name, params)

    def _send_data_fast(self, data: Any) -> None:
        """Encode responses and notifications in one pass.

        pygls hands the whole message to its cattrs converter through `json.dumps`'s
        `default` hook, which walks and copies every value of a plain-JSON result: for a
        plan that costs more than the rest of the request together. Values that are not
        plain JSON (the `initialize` result) still go through the same hook, so the bytes
        mean the same; `Encoded` values are spliced in as they are; other messages
        (errors) take the stock path."""
        kind = type(data)
        if kind is JsonRPCResponseMessage:
            head: dict[str, Any] = {"id": data.id, "jsonrpc": data.jsonrpc}
            key, value = "result", data.result
        elif kind is JsonRPCNotification:
            head = {"method": data.method, "jsonrpc": data.jsonrpc}
            key, value = "params", data.params
        else:
            LanguageServerProtocol._send_data(self, data)
            return
        if self.writer is None:
            LanguageServerProtocol._send_data(self, data)  # logs that there is no transport
            return
        try:
            head[key] = value
            if type(value) is Encoded:
                body = encode_tree(head)
            else:
                text = json.dumps(head, separators=(",", ":"), default=self._serialize_message)
                body = text.encode(self.CHARSET)
        except Exception:
            LanguageServerProtocol._send_data(self, data)  # reports the failure as pygls does
            return
        self.writer.write(self._header(len(body)) + body)

    def _header(self, length: int) -> bytes:
        return _HEADER % length if self._include_headers else b""


def request_runner(protocol: JsonRPCProtocol) -> Callable[[Any, str, Any], None] | None:
    """How the transport runs a request straight away, as pygls's `handle_message` would
    run it (in its own context) but without the message object; None when the fast
    paths are off (then every message goes pygls's public way)."""
    if not isinstance(protocol, FencedProtocol) or not protocol.fast:
        return None
    handle = protocol._handle_request

    def run(msg_id: Any, method: str, params: Any) -> None:
        contextvars.copy_context().run(handle, msg_id, method, params)

    return run


def more_buffered(reader: asyncio.StreamReader) -> bool:
    """Whether more of the client's bytes are already read and waiting (maybe not a whole
    message). StreamReader has no public way to ask; without its buffer every answer waits
    for the next turn of the event loop (correct, a little slower)."""
    return bool(getattr(reader, "_buffer", True))
