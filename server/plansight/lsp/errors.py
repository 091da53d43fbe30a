"""Turning refusals into the JSON-RPC errors of the contract, and nothing more.

Whatever goes wrong, a client gets a code and a plain message: never a traceback or a
file path (pygls would attach one to any exception it does not know).
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError
from pygls.exceptions import (
    JsonRpcContentModified,
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
)

from plansight.core.errors import RequestRefused, VersionConflict
from plansight.protocol import METHODS

log = logging.getLogger(__name__)

_OP_TAGS = frozenset({"init", "start", "done", "drop", "rm", "append", "note"})
_UNION_LABELS = frozenset({"str", "ItemSpec"})


def field_path(loc: tuple[Any, ...]) -> str:
    """pydantic's location as the contract's dot-joined path (`ops.0.task`), without the
    union labels pydantic puts in it."""
    parts: list[str] = []
    for index, part in enumerate(loc):
        if isinstance(part, str) and (
            part in _UNION_LABELS or (part in _OP_TAGS and index == 2 and loc[0] == "ops")
        ):
            continue
        parts.append(str(part))
    return ".".join(parts)


def validation_errors(exc: ValidationError) -> list[dict[str, str]]:
    merged: dict[str, list[str]] = {}
    for error in exc.errors(include_url=False, include_input=False, include_context=False):
        message = error["msg"]
        if error["type"] == "union_tag_invalid":
            message = "Unknown op: expected one of " + ", ".join(sorted(_OP_TAGS))
        elif error["type"] == "union_tag_not_found":
            message = "Missing op: expected one of " + ", ".join(sorted(_OP_TAGS))
        path = field_path(tuple(error["loc"]))
        if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
            path = f"{path}.op"
        messages = merged.setdefault(path, [])
        if message not in messages:
            messages.append(message)
    return [{"path": path, "message": " or ".join(messages)} for path, messages in merged.items()]


def invalid_params(
    errors: list[dict[str, str]], message: str | None = None
) -> JsonRpcInvalidParams:
    if message is None:
        first = errors[0] if errors else {"path": "", "message": "Invalid params"}
        message = (
            f"Invalid params: {first['path']}: {first['message']}"
            if first["path"]
            else first["message"]
        )
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more)"
    return JsonRpcInvalidParams(message=message, data={"errors": errors})


def to_rpc_error(exc: Exception, method: str) -> JsonRpcException:
    if isinstance(exc, JsonRpcException):
        return exc
    if isinstance(exc, ValidationError):
        return invalid_params(validation_errors(exc))
    if isinstance(exc, RequestRefused):
        errors = [{"path": e.path, "message": e.message} for e in exc.errors]
        return invalid_params(errors, exc.message)
    if isinstance(exc, VersionConflict):
        return JsonRpcContentModified(
            message=str(exc), data={"currentVersion": exc.current_version}
        )
    # A bug: the details go to our log only.
    log.exception("internal error while handling %s", method if method in METHODS else "a request")
    return JsonRpcInternalError(message="Internal error in the Plansight server; see its log")
