"""Every request of the contract, declared once: its method, its params shape, its result
model, whether it changes a plan, and the faces that offer it. The language server's
handlers, the CLI's changing commands, the MCP tools (their list, input schemas and
dispatch) and the JSON Schema (`plansight schema`, and from it the TypeScript types)
derive from here; which commands the warm process relays is declared beside each command
(`Command.relayed`).

Plain data, no pydantic: the result model is named, not imported (`protocol/models.py`
resolves it). The service method that answers each request is not named here at all:
`protocol` sits below the service, so the binding of each request to its `PlanService`
method is the service's (`plansight/bindings.py`), typed, and what the faces call.
"""

from __future__ import annotations

from dataclasses import dataclass

from plansight.protocol.methods import METHODS
from plansight.protocol.requests import (
    ApplyParams,
    ClearParams,
    ContextParams,
    ExportParams,
    GetParams,
    HistoryParams,
    ImportParams,
    IngestParams,
    RestoreParams,
    SessionsParams,
    UndoParams,
    WriteParams,
)
from plansight.protocol.shape import WireShape


@dataclass(frozen=True, slots=True)
class Tool:
    """An MCP tool over a request. The model sends `arguments` (the params' wire names);
    the MCP server adds the session and `origin: "agent"`. Its title and description are
    prose for models: `mcp/tools.py` keeps them, by `name`."""

    name: str
    arguments: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    params: type[WireShape]
    result: str  # its result model's name in `protocol/models.py`
    changes: bool  # it changes a plan: the service returns an Outcome, a didChange follows
    command: str | None = None  # the CLI command that sends it (`cli/changing.py`)
    tool: Tool | None = None  # the MCP tool that sends it


def _change(
    method: str,
    params: type[WireShape],
    command: str | None = None,
    tool: Tool | None = None,
) -> Request:
    """A request that changes a plan: it answers an ApplyResult."""
    return Request(method, params, "ApplyResult", True, command=command, tool=tool)


REQUESTS: tuple[Request, ...] = (
    _change("plansight/apply", ApplyParams, command="apply", tool=Tool("todo", ("ops",))),
    _change(
        "plansight/write",
        WriteParams,
        command="write",
        tool=Tool("todo_write", ("todos",)),
    ),
    Request("plansight/get", GetParams, "TodoState", False, tool=Tool("todo_read", ())),
    Request(
        "plansight/sessions",
        SessionsParams,
        "SessionsResult",
        False,
        command="sessions",
    ),
    _change("plansight/clear", ClearParams, command="clear"),
    Request(
        "plansight/export",
        ExportParams,
        "TextResult",
        False,
        command="export",
    ),
    _change("plansight/import", ImportParams, command="import"),
    Request(
        "plansight/context",
        ContextParams,
        "ContextResult",
        False,
        command="context",
    ),
    Request(
        "plansight/history",
        HistoryParams,
        "HistoryResult",
        False,
        command="history",
    ),
    _change("plansight/restore", RestoreParams, command="restore"),
    _change(
        "plansight/ingest",
        IngestParams,
        command="ingest",
        tool=Tool("todo_ingest", ("format", "payload", "title")),
    ),
    _change("plansight/undo", UndoParams, command="undo"),
)

BY_METHOD: dict[str, Request] = {request.method: request for request in REQUESTS}
BY_TOOL: dict[str, Request] = {
    request.tool.name: request for request in REQUESTS if request.tool is not None
}
if tuple(BY_METHOD) != METHODS:  # what the server announces before it loads this module
    raise ImportError("plansight.protocol.methods.METHODS differs from the registry")
