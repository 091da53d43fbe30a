"""The Plansight language server: the contract's requests over pygls 2."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter
from pydantic import BaseModel
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path

from plansight import PROTOCOL_VERSION, __version__
from plansight.core.settings import Settings, merge_settings
from plansight.lsp.errors import to_rpc_error
from plansight.lsp.watch import watch_store
from plansight.paths import resolve_store_path, workspace_root
from plansight.protocol import (
    DID_CHANGE,
    METHODS,
    ApplyParams,
    ClearParams,
    ContextParams,
    ExportParams,
    GetParams,
    ImportParams,
    WriteParams,
)
from plansight.service import Outcome, PlanService, did_change_params
from plansight.store.sqlite import SqliteStore, StoreError

log = logging.getLogger(__name__)


class PlansightProtocol(LanguageServerProtocol):
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Any:
        result = yield from super().lsp_initialize(params)
        result.capabilities.experimental = {
            "plansight": {"protocolVersion": PROTOCOL_VERSION, "methods": list(METHODS)}
        }
        return result


class PlansightServer(LanguageServer):
    """Owns the store, the settings and the watcher of one client's connection."""

    def __init__(self, db_path: str | None = None) -> None:
        super().__init__(
            "plansight",
            __version__,
            protocol_cls=PlansightProtocol,
            converter_factory=get_converter,
        )
        self.db_path = db_path
        self.settings = Settings()
        self.service: PlanService | None = None
        self.watcher: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ life cycle

    def open_store(self, root: str | None) -> None:
        path = resolve_store_path(self.db_path, root or workspace_root())
        log.info("plan store: %s", path)
        try:
            store = SqliteStore(path)
        except (StoreError, RuntimeError) as exc:
            raise JsonRpcInternalError(message=str(exc)) from None
        self.service = PlanService(store, self.settings)
        store.watch_from_now()
        self.watcher = asyncio.get_running_loop().create_task(watch_store(self))

    def apply_settings(self, raw: Any) -> None:
        self.settings, problems = merge_settings(self.settings, raw)
        if self.service is not None:
            self.service.settings = self.settings
        for problem in problems:
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=problem)
            )

    def require_service(self) -> PlanService:
        if self.service is None:
            raise JsonRpcException(code=-32002, message="The server is not initialized")
        return self.service

    # ------------------------------------------------------------ pushes

    def push(
        self, session: str, version: int, origin: Any, completed: list[dict[str, str]]
    ) -> None:
        """Push a change another process committed, unless the session has moved on since
        (then a later push carries it, and this origin would not belong to that state)."""
        state = self.require_service().get(GetParams(session=session))
        if state["version"] != version:
            return
        self.protocol.notify(DID_CHANGE, did_change_params(state, origin, completed))

    def push_after_response(self, outcome: Outcome) -> None:
        if not outcome.changed:
            return
        params = did_change_params(outcome.result, outcome.origin, outcome.completed)
        # Sent once the response is out, so a client sees its answer first.
        asyncio.get_running_loop().call_soon(self.protocol.notify, DID_CHANGE, params)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # Never a popup with internals; the log has them.
        log.error("server error: %s", error.__class__.__name__)


def _root_of(params: types.InitializeParams) -> str | None:
    if params.workspace_folders:
        return to_fs_path(params.workspace_folders[0].uri)
    if params.root_uri:
        return to_fs_path(params.root_uri)
    return params.root_path


Handler = Callable[[PlansightServer, dict[str, Any]], Any]


def _request(method: str, handle: Callable[[PlansightServer, dict[str, Any]], Any]) -> Handler:
    """Wrap a handler so every failure leaves as a contract error."""

    def handler(ls: PlansightServer, params: Any) -> Any:
        try:
            return handle(ls, params if isinstance(params, dict) else {})
        except Exception as exc:
            raise to_rpc_error(exc, method) from None

    handler.__name__ = method.replace("/", "_")
    return handler


def _validated(model: type[BaseModel]) -> Callable[[dict[str, Any]], Any]:
    return model.model_validate


def build_server(db_path: str | None = None) -> PlansightServer:
    server = PlansightServer(db_path)

    @server.feature(types.INITIALIZE)
    def initialize(ls: PlansightServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict):
            ls.apply_settings(options.get("plansight"))
        ls.open_store(_root_of(params))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(
        ls: PlansightServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and "plansight" in settings:
            settings = settings["plansight"]
        ls.apply_settings(settings)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: PlansightServer, *args: Any) -> None:
        if ls.watcher is not None:
            ls.watcher.cancel()

    def change(
        model: type[Any], run: Callable[[PlanService, Any, dict[str, Any]], Outcome]
    ) -> Callable[[PlansightServer, dict[str, Any]], Any]:
        def handle(ls: PlansightServer, raw: dict[str, Any]) -> Any:
            params = model.model_validate(raw)
            outcome = run(ls.require_service(), params, raw)
            ls.push_after_response(outcome)
            return outcome.result

        return handle

    handlers: dict[str, Callable[[PlansightServer, dict[str, Any]], Any]] = {
        "plansight/apply": change(ApplyParams, PlanService.apply),
        "plansight/write": change(WriteParams, PlanService.write),
        "plansight/clear": change(ClearParams, PlanService.clear),
        "plansight/import": change(ImportParams, PlanService.import_markdown),
        "plansight/get": lambda ls, raw: ls.require_service().get(GetParams.model_validate(raw)),
        "plansight/sessions": lambda ls, raw: ls.require_service().sessions(),
        "plansight/export": lambda ls, raw: ls.require_service().export(
            ExportParams.model_validate(raw)
        ),
        "plansight/context": lambda ls, raw: ls.require_service().context(
            ContextParams.model_validate(raw)
        ),
    }
    for method in METHODS:
        server.feature(method)(_request(method, handlers[method]))
    return server


def run_stdio(db_path: str | None = None) -> int:
    from plansight.lsp.transport import detach_stdout, serve

    wire = detach_stdout()
    if db_path is not None:
        db_path = str(Path(db_path).expanduser().resolve())
    server = build_server(db_path)
    try:
        asyncio.run(serve(server.protocol, frozenset(METHODS), stdout=wire))
    except (SystemExit, KeyboardInterrupt):
        pass
    finally:
        if server.watcher is not None:
            server.watcher.cancel()
        if server.service is not None:
            server.service.store.close()
    return 0
