"""The Plansight language server: the contract's requests over pygls 2."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidRequest,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import lsp_method
from pygls.uris import to_fs_path

from plansight import __version__
from plansight.lsp.deltas import DeltaPushes
from plansight.lsp.encoded import Encoded, StateEncoder, encode_tree, extend
from plansight.lsp.pygls_private import FencedProtocol
from plansight.lsp.rpc_errors import request_failed, to_rpc_error
from plansight.lsp.watch import watch_store
from plansight.paths import workspace_root
from plansight.protocol.methods import DID_CHANGE, DID_PRUNE, FORMATS, METHODS, PROTOCOL_VERSION
from plansight.store import ChangeNotice, StoreError, TodoStore, open_store
from plansight.store.location import store_location

if TYPE_CHECKING:
    from plansight.bindings import Bound
    from plansight.core.settings import Settings
    from plansight.service import Outcome, PlanService
    from plansight.wire import Json

log = logging.getLogger(__name__)


class PlansightProtocol(FencedProtocol):
    def answer_request(self, msg_id: Any, method_name: str, params: Any) -> bool:
        """Plansight's own requests run their (synchronous) handler, from the registry's
        table (`request_handlers`), and answer at once.

        That is what pygls does for a synchronous handler, minus the per-request Future,
        lock and checks it needs for other kinds of handlers: a third of a `get`. The
        errors are answered and reported as pygls answers and reports them."""
        if not method_name.startswith("plansight/"):
            return False  # `initialize` above all: answered before the table loads
        handler = request_handlers().get(method_name)
        if handler is None:
            return False
        server = cast("PlansightServer", self.owner)
        server.answering = True
        error: JsonRpcException | None = None
        try:
            result = handler(server, params if isinstance(params, dict) else {})
        except JsonRpcException as exc:
            error = exc
        except Exception as exc:  # handlers map their own failures; this is a last guard
            error = to_rpc_error(exc, method_name)
        finally:
            server.answering = False
        if error is None:
            self.send_result(msg_id, result)
        else:
            self.send_error(msg_id, error)
        server.send_pushes()  # right behind the response
        return True

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Any:
        if isinstance(self.owner, PlansightServer) and self.owner.store is not None:
            # A second store and watcher would push every change twice.
            raise JsonRpcInvalidRequest(message="The server is already initialized")
        try:
            result = yield from super().lsp_initialize(params)
        except JsonRpcException:
            raise
        except Exception as exc:
            # pygls would answer with the traceback (and so the paths) in `data`.
            log.exception("initialize failed")
            raise JsonRpcInternalError(message=f"Cannot initialize: {_kind(exc)}") from None
        plansight: dict[str, Any] = {
            "protocolVersion": PROTOCOL_VERSION,
            "methods": list(METHODS),
            "formats": list(FORMATS),
        }
        if _asks_for(params, "changeDeltas") and isinstance(self.owner, PlansightServer):
            # Answers as deltas extend pushes as deltas: asked alone, it is not done.
            answers = _asks_for(params, "changeDeltaAnswers")
            self.owner.deltas = DeltaPushes(answers=answers)
            plansight["changeDeltas"] = True
            if answers:
                plansight["changeDeltaAnswers"] = True
        result.capabilities.experimental = {"plansight": plansight}
        return result


class PlansightServer(LanguageServer):
    """Owns the store, the settings and the watcher of one client's connection."""

    def __init__(self, db_path: str | None = None, workspace: str | None = None) -> None:
        super().__init__(
            "plansight",
            __version__,
            protocol_cls=PlansightProtocol,
            converter_factory=get_converter,
        )
        self.fenced = cast("PlansightProtocol", self.protocol)  # the protocol, as its own class
        self.db_path = db_path
        self.workspace_key = workspace  # a team store's workspace key (default: from the root)
        self.settings: Settings | None = None  # the defaults until a client sends some
        self.store: TodoStore | None = None
        self.service: PlanService | None = None
        self.watcher: asyncio.Task[None] | None = None
        self.states = StateEncoder()
        self.pushes: list[Encoded] = []  # didChange of changes being answered
        # What a client that asked for change deltas was pushed (None: whole states).
        self.deltas: DeltaPushes | None = None
        self.answering = False  # a request is running in PlansightProtocol.answer_request
        # Work that waits until the answer being sent has left, and runs before the next
        # message is read (the transport runs it): see `initialize`.
        self.after_answer: list[Callable[[], None]] = []

    # ------------------------------------------------------------ life cycle

    def open_store(self, root: str | None) -> None:
        """Open the store and watch it from now: every change committed after the
        `initialize` answer is pushed."""
        folder = root or workspace_root()
        try:
            store = open_store(store_location(self.db_path, folder), folder, self.workspace_key)
            store.watch_from_now()
        except StoreError as exc:
            raise request_failed(exc) from None
        log.info("plan store: %s", store.path)  # a URL's password never reaches the log
        self.store = store

    def start_service(self) -> None:
        """The service over the opened store, its watcher, and the request handlers (the
        core, the request models, pydantic): loaded once `initialize` is answered, while
        the client reads the answer, so the answer does not wait for them."""
        from plansight.core.settings import Settings
        from plansight.service import PlanService

        assert self.store is not None
        self.service = PlanService(self.store, self.settings or Settings())
        with contextlib.suppress(StoreError):  # the watcher tries again and says why
            self.store.watch_handle()  # set up now rather than in the first request's way
        self.watcher = asyncio.get_running_loop().create_task(
            watch_store(self.store, self.push_notice, self.push_prune)
        )
        request_handlers()
        from pydantic import TypeAdapter  # noqa: F401 (what a request's validation builds on)

        # The garbage of start-up (the collector was off while the server loaded, see
        # `plansight serve`) goes now, in one pass; what is left lives as long as the
        # process and is kept out of later passes (see `run_stdio`).
        gc.unfreeze()
        gc.collect()
        gc.freeze()

    def apply_settings(self, raw: Any) -> None:
        from plansight.core.settings import Settings, merge_settings

        self.settings, problems = merge_settings(self.settings or Settings(), raw)
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

    # ------------------------------------------------------------ answers and pushes

    def encoded_state(self, session: str) -> tuple[int, bytes]:
        """The session's TodoState (what `get` answers) and its version, encoded once per
        version."""
        plan = self.require_service().load(session)
        data = self.states.cached(plan)
        if data is None:
            # An unknown session's empty state is not kept: reading names grows nothing.
            data = self.states.state(plan, keep=plan.version > 0)
        return plan.version, data

    def push_notice(self, notice: ChangeNotice) -> None:
        """Push a change another process committed, unless the session has moved on since
        (then a later push carries it, and this origin would not belong to that state)."""
        current, state = self.encoded_state(notice.session)
        if current != notice.version:
            return
        members = {
            "origin": notice.origin,
            "completedTasks": notice.completed,
            "removedTasks": notice.removed,
        }
        self.protocol.notify(DID_CHANGE, self.push_params(notice.session, current, state, members))

    def push_params(self, session: str, version: int, state: bytes, members: Json) -> Encoded:
        """A didChange's params: the whole state `state` (the session's at `version`,
        encoded last) with `members`, or to a client that asked, the change delta."""
        if self.deltas is None:
            return Encoded(extend(state, members))
        layout = self.states.layout(session, version)
        if layout is None:  # encoded since at another version: encode this one again
            self.states.state(self.require_service().load(session), keep=True)
            layout = self.states.layout(session, version)
        if layout is None:  # moved on meanwhile: this version's whole state, as to anyone
            return Encoded(extend(state, members))
        return self.deltas.params(session, layout, state, members)

    def push_prune(self, sessions: list[str]) -> None:
        if self.deltas is not None:
            self.deltas.forget(sessions)
        self.protocol.notify(DID_PRUNE, {"sessions": sessions})

    def answer_change(self, outcome: Outcome) -> Encoded:
        """The result of a changing request; its push follows the response. The state is
        encoded once for both; to a client that asked for deltas in answers too, the
        change's delta is, and no whole state is encoded unless one is sent."""
        plan = outcome.plan
        # didChange params: TodoState & {origin, completedTasks, removedTasks}.
        members = {
            "origin": outcome.origin,
            "completedTasks": outcome.completed,
            "removedTasks": outcome.removed,
        }
        if self.deltas is not None and self.deltas.answers:
            # The plan as the change left it, made of the task bytes kept from earlier
            # requests; its delta from what this client was sent last is the answer's
            # and the push's.
            layout = self.states.layout_of(plan)
            delta = self.deltas.change(plan.session, layout)
            if delta is not None:
                if outcome.changed:
                    self.push(delta.with_members(members))
                return delta.with_members(outcome.members())
            encoded = encode_tree(layout.tree)  # a state it does not hold: whole
            if outcome.changed:
                self.push(Encoded(extend(encoded, members)))
            return Encoded(extend(encoded, outcome.members()))
        encoded = self.states.state(plan)
        if outcome.changed:
            self.push(self.push_params(plan.session, plan.version, encoded, members))
        return Encoded(extend(encoded, outcome.members()))

    def push(self, params: Encoded) -> None:
        """A change's push, sent right behind the response being answered."""
        self.pushes.append(params)
        if not self.answering:  # not run by our request path: push once it is done
            asyncio.get_running_loop().call_soon(self.send_pushes)

    def send_pushes(self) -> None:
        """Push the changes answered so far; they go once the response is out, so a
        client sees its answer first."""
        pushes, self.pushes = self.pushes, []
        for push in pushes:
            self.protocol.notify(DID_CHANGE, push)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # Never a popup with internals; the log has them. An error the server chose to answer
        # with (a store it cannot use at `initialize`) is said in its own words, which carry
        # no path: an editor shows that line as the cause, never "JsonRpcException".
        if isinstance(error, JsonRpcException):
            log.error("%s", error.message)
        else:
            log.error("server error: %s", error.__class__.__name__)


def _asks_for(params: types.InitializeParams, extension: str) -> bool:
    """Whether the client asked for one of Plansight's extensions: `capabilities
    .experimental.plansight.<extension>: true` (docs/protocol.md, "Change deltas")."""
    experimental = params.capabilities.experimental if params.capabilities else None
    if not isinstance(experimental, dict):
        return False
    plansight = experimental.get("plansight")
    return isinstance(plansight, dict) and plansight.get(extension) is True


def _kind(exc: Exception) -> str:
    """What went wrong, in words that carry no path: the exception's class."""
    return exc.__class__.__name__


def _root_of(params: types.InitializeParams) -> str | None:
    if params.workspace_folders:
        return to_fs_path(params.workspace_folders[0].uri)
    if params.root_uri:
        return to_fs_path(params.root_uri)
    return params.root_path


Handler = Callable[[PlansightServer, dict[str, Any]], Any]


def _request(method: str) -> Callable[[PlansightServer, Any], Any]:
    """The handler of `method` as registered with pygls: every failure leaves as a contract
    error."""
    handle: Handler | None = None

    def handler(ls: PlansightServer, params: Any) -> Any:
        nonlocal handle
        try:
            if handle is None:
                handle = request_handlers()[method]
            result = handle(ls, params if isinstance(params, dict) else {})
        except Exception as exc:
            raise to_rpc_error(exc, method) from None
        return ls.fenced.wire_value(result)

    handler.__name__ = method.replace("/", "_")
    return handler


def build_server(db_path: str | None = None, workspace: str | None = None) -> PlansightServer:
    server = PlansightServer(db_path, workspace)

    @server.feature(types.INITIALIZE)
    def initialize(ls: PlansightServer, params: types.InitializeParams) -> None:
        # Only the store is opened before the answer; the settings (validated by pydantic)
        # and the service follow it, before any other message is read (cold start).
        try:
            options = params.initialization_options
            if isinstance(options, dict):
                raw = options.get("plansight")
                ls.after_answer.append(lambda: ls.apply_settings(raw))
            ls.open_store(_root_of(params))
            ls.after_answer.append(ls.start_service)
        except JsonRpcException:
            raise
        except Exception as exc:  # a root path the OS refuses, say: never a traceback
            log.exception("initialize failed")
            raise JsonRpcInternalError(message=f"Cannot initialize: {_kind(exc)}") from None

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
        ls.fenced.shut_down = True  # later requests are refused, not left unanswered
        if ls.watcher is not None:
            ls.watcher.cancel()

    for method in METHODS:
        server.feature(method)(_request(method))
    return server


@cache
def request_handlers() -> dict[str, Handler]:
    """Each request's handler, from the registry (`protocol/registry.py`) and each
    request's binding to its service method (`bindings.py`): its params validated, its
    service method called, a change answered with its push. Loaded on first use, with
    the request shapes and the service, so that `initialize` is answered without them."""
    from plansight.bindings import CHANGES, READS
    from plansight.protocol.registry import REQUESTS
    from plansight.protocol.requests import GetParams

    def change(binding: Bound[Outcome]) -> Handler:
        def handle(ls: PlansightServer, raw: dict[str, Any]) -> Any:
            return ls.answer_change(binding.answer(ls.require_service(), raw))

        return handle

    def read(binding: Bound[Json]) -> Handler:
        def handle(ls: PlansightServer, raw: dict[str, Any]) -> Any:
            return binding.answer(ls.require_service(), raw)

        return handle

    def get(ls: PlansightServer, raw: dict[str, Any]) -> Any:
        # `get` answers the state encoded once per version (`encoded_state`), pushes too.
        return Encoded(ls.encoded_state(GetParams.validate(raw).session)[1])

    handlers = {
        r.method: change(CHANGES[r.method]) if r.changes else read(READS[r.method])
        for r in REQUESTS
    }
    handlers["plansight/get"] = get
    return handlers


def run_stdio(db_path: str | None = None, workspace: str | None = None) -> int:
    from plansight.lsp.transport import detach_stdout, serve
    from plansight.store.location import is_url

    wire = detach_stdout()
    if db_path is not None and not is_url(db_path):  # a URL is never made a path
        db_path = str(Path(db_path).expanduser().resolve())
    server = build_server(db_path, workspace)
    # Everything imported so far lives as long as the process: keep it out of the
    # garbage collector's full passes, which would otherwise walk lsprotocol's classes.
    gc.freeze()
    gc.enable()  # `plansight serve` turned it off while the server loaded
    try:
        asyncio.run(
            serve(server.protocol, frozenset(METHODS), stdout=wire, after=server.after_answer)
        )
    except (SystemExit, KeyboardInterrupt):
        pass
    finally:
        if server.watcher is not None:
            server.watcher.cancel()
        if server.store is not None:
            server.store.close()
    return 0
