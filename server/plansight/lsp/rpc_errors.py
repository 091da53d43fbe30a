"""Turning refusals into the JSON-RPC errors of the contract, and nothing more.

Whatever goes wrong, a client gets a code and a plain message: never a traceback or a
file path (pygls would attach one to any exception it does not know).
"""

from __future__ import annotations

import logging

from pygls.exceptions import (
    JsonRpcContentModified,
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
)

from plansight.core.errors import RequestRefused, VersionConflict
from plansight.protocol.methods import METHODS
from plansight.store.store_error import StoreError

log = logging.getLogger(__name__)

REQUEST_FAILED = -32803


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
    # Imported here: the server answers `initialize` before it loads pydantic, and only a
    # request's params can fail its validation (cold start).
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        from plansight.validation import validation_errors

        return invalid_params(validation_errors(exc))
    if isinstance(exc, RequestRefused):
        errors = [{"path": e.path, "message": e.message} for e in exc.errors]
        return invalid_params(errors, exc.message)
    if isinstance(exc, VersionConflict):
        return JsonRpcContentModified(message=str(exc), data=exc.data())
    if isinstance(exc, StoreError):
        log.warning("%s failed: the store cannot be used (%s)", _name(method), exc.reason)
        return request_failed(exc)
    # A bug: the details go to our log only.
    log.exception("internal error while handling %s", _name(method))
    return JsonRpcInternalError(message="Internal error in the Plansight server; see its log")


def request_failed(exc: StoreError) -> JsonRpcException:
    """-32803 RequestFailed: the store cannot be used now; nothing changed."""
    return JsonRpcException(code=REQUEST_FAILED, message=exc.message, data={"reason": exc.reason})


def _name(method: str) -> str:
    return method if method in METHODS else "a request"
