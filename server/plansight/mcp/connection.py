"""One MCP connection on the SDK's low-level server: the tool list, the tool calls and the
plan resources, for the session this process writes to.

The handshake and the tool list are answered before the store is opened or the service's
code imported: the first call that needs them does both (`PlanConnection.tools`).
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError

from plansight import __version__
from plansight.conversation_link import Link, link_folder, linked_conversation, mark_planned
from plansight.core.fences import unfenced
from plansight.mcp.hook_trust import with_trust_line
from plansight.mcp.native import AGENT_TOOLS, NATIVE_TOOLS, agent_of
from plansight.mcp.replies import (
    NEWS_FIELD,
    NEWS_SCHEMA,
    NOTICE_FIELD,
    NOTICE_SCHEMA,
    ToolReply,
    store_fault_text,
)
from plansight.mcp.resources import (
    EMPTY_MARKDOWN,
    MARKDOWN,
    PLAN_TEMPLATE,
    plan_uri,
    session_of,
)
from plansight.mcp.session import (
    MAX_SESSION_LENGTH,
    SessionClaim,
    connection_session,
    lock_dir_for,
    recent_sessions_of,
)
from plansight.mcp.tools import INSTRUCTIONS, TOOL_TEXT, input_schemas
from plansight.paths import state_home
from plansight.protocol.models import REQUESTS
from plansight.protocol.registry import BY_TOOL
from plansight.protocol.requests import ExportParams
from plansight.store.store_error import StoreError

if TYPE_CHECKING:
    from plansight.mcp.calls import PlanTools
    from plansight.service import PlanService

log = logging.getLogger(__name__)

Context = ServerRequestContext[Any, Any]


def _state() -> Path:
    """Where the hooks link their conversations (read at each call, as the hook does)."""
    return state_home() / "plansight"


def tool_list(agent: str | None = None) -> list[types.Tool]:
    """Plansight's own tools, then those of `agent`'s own plan tools Plansight offers."""
    native = [
        types.Tool(
            name=tool.name,
            title=tool.title,
            description=tool.description,
            input_schema=tool.input_schema,
            annotations=types.ToolAnnotations(
                read_only_hint=False, destructive_hint=True, open_world_hint=False
            ),
        )
        for tool in AGENT_TOOLS.get(agent or "", ())
    ]
    schemas = input_schemas()
    own = []
    for name, (title, description) in TOOL_TEXT.items():
        request = BY_TOOL[name]
        own.append(
            types.Tool(
                name=name,
                title=title,
                description=description,
                input_schema=schemas[name],
                # A read answers its result as structured content too.
                output_schema=None if request.changes else _result_schema(request.method),
                annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
                if not request.changes
                else types.ToolAnnotations(
                    read_only_hint=False, destructive_hint=True, open_world_hint=False
                ),
            )
        )
    return [*own, *native]


@cache
def _result_schema(method: str) -> dict[str, Any]:
    """The read's result, and the person's news beside it (`replies.NEWS_FIELD`)."""
    schema = REQUESTS[method][1].model_json_schema(by_alias=True, mode="serialization")
    schema["properties"] = {
        NOTICE_FIELD: NOTICE_SCHEMA,
        NEWS_FIELD: NEWS_SCHEMA,
        **schema["properties"],
    }
    return schema


class PlanConnection:
    """The server's state: the store (opened on first use), and the session this process
    writes to."""

    def __init__(
        self,
        location: str,
        workspace: str | None,
        session: str | None,
        started: datetime,
        agent: str | None = None,
    ) -> None:
        self.location = location
        self.workspace = workspace
        self.agent = agent  # whose native plan tools to offer; else known from the client
        self.started = started
        self._session = session
        self._told = session is not None  # `--session` / PLANSIGHT_SESSION: never linked
        self._tools: PlanTools | None = None
        self._claim: SessionClaim | None = None

    @property
    def tools(self) -> PlanTools:
        """The plan tools on the store, opened by the first call that needs them; until
        the store can be opened, each such call raises its StoreError again."""
        if self._tools is None:
            # Here, not at the top: the service, the core and the store are most of what
            # Plansight adds to the SDK's start, and the handshake needs none of them.
            from plansight.mcp.calls import PlanTools
            from plansight.paths import workspace_root
            from plansight.service import PlanService
            from plansight.store import open_store

            # The agent's folder: its git checkout is recorded with its changes.
            store = open_store(self.location, workspace_root(), self.workspace)
            self._tools = PlanTools(PlanService(store))
        return self._tools

    @property
    def service(self) -> PlanService:
        return self.tools.service

    @property
    def claim(self) -> SessionClaim:
        if self._claim is None:
            self._claim = SessionClaim(lock_dir_for(self.service.location))
        return self._claim

    def release_session(self) -> None:
        """Free the session's name, if one was claimed."""
        if self._claim is not None:
            self._claim.release()

    def close(self) -> None:
        """Free the session's name and close the store, if they were taken."""
        self.release_session()
        if self._tools is not None:
            self._tools.service.close()

    def linked(self, ctx: Context) -> Link | None:
        """The conversation the agent's hooks say this server serves, looked up at every
        call: the first hook may come after the server's start, and a `/clear` or a resume
        moves the agent to another conversation (`conversation_link.py`)."""
        if self._told:
            return None
        try:
            return linked_conversation(link_folder(_state()), self.agent_of_client(ctx))
        except OSError:
            return None

    def session(self, ctx: Context) -> str:
        """The linked conversation's, else one of its own, named on first use from the
        client's name as it introduced itself."""
        link = self.linked(ctx)
        if link is not None:
            return link.session
        if self._session is None:
            params = ctx.session.client_params
            client = params.client_info.name if params is not None else None
            recent = recent_sessions_of(
                client,
                ((s.session, s.updated_at) for s in self.service.summaries()),
                datetime.now(timezone.utc),
            )
            self._session = self.claim.take_over(recent)
            if self._session is None:
                base = connection_session(client, self.started)
                self._session = self.claim.claim(base, self._in_store)
            log.info("writing to session %r", self._session)
        return self._session

    def _titled(self, link: Link) -> None:
        """A conversation's plan first written here gets the title its hooks would give it
        (its first prompt): set on the empty session before the model's list is written."""
        if self.service.load(link.session).version > 0:
            return
        request = {
            "session": link.session,
            "format": "markdown",
            "payload": {"text": ""},
            "title": link.title,
            "origin": "agent",
        }
        from plansight.protocol.requests import IngestParams

        self.service.ingest(IngestParams.validate(request), request)

    def _in_store(self, session: str) -> bool:
        return self.service.load(session).version > 0

    # ------------------------------------------------------------ handlers

    def agent_of_client(self, ctx: Context) -> str | None:
        if self.agent is not None:
            return self.agent
        params = ctx.session.client_params
        return agent_of(params.client_info.name if params is not None else None)

    async def list_tools(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list(self.agent_of_client(ctx)))

    async def call_tool(
        self, ctx: Context, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in BY_TOOL and params.name not in NATIVE_TOOLS:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        try:
            link = self.linked(ctx)
            session = link.session if link is not None else self.session(ctx)
            changes = params.name in NATIVE_TOOLS or BY_TOOL[params.name].changes
            if link is not None and changes:
                self._titled(link)
            reply = self.tools.call(params.name, params.arguments or {}, session)
            if link is not None and changes and not reply.is_error:
                mark_planned(_state(), link)
        except StoreError as exc:
            reply = ToolReply(store_fault_text(exc), is_error=True)
        except Exception:
            # A bug: the model gets a plain sentence, the log gets the traceback.
            log.exception("internal error in tool %s", params.name)
            reply = ToolReply("Internal error in the Plansight MCP server; see its log.", True)
        text = with_trust_line(reply.text, self.agent_of_client(ctx))
        state = reply.state
        if text != reply.text and isinstance(state, dict):
            # Codex gives its model a read's structured content, not its text.
            state = {NOTICE_FIELD: text[len(reply.text) :].strip(), **state}
        return types.CallToolResult(
            content=[types.TextContent(text=text)],
            structured_content=state,
            is_error=reply.is_error,
        )

    async def list_resources(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        try:
            own = self.session(ctx)
            summaries = self.service.summaries()
        except StoreError as exc:
            raise MCPError(types.INTERNAL_ERROR, store_fault_text(exc)) from None
        names = [own] + [s.session for s in summaries if s.session != own]
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=plan_uri(name),
                    name=name,
                    title=f"Plan: {name}" + (" (this agent)" if name == own else ""),
                    description="The todo list as a markdown checklist",
                    mime_type=MARKDOWN,
                )
                for name in names
            ]
        )

    async def list_resource_templates(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=PLAN_TEMPLATE,
                    name="plan",
                    title="A session's plan",
                    description="The todo list of a session as a markdown checklist",
                    mime_type=MARKDOWN,
                )
            ]
        )

    async def read_resource(
        self, ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        session = session_of(params.uri)
        if session is None or len(session) > MAX_SESSION_LENGTH:
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource: {params.uri}")
        try:
            text = self.service.export(ExportParams(session=session))["text"]
        except StoreError as exc:
            message = store_fault_text(exc)
            raise MCPError(types.INTERNAL_ERROR, message) from None
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(
                    # An agent reads it: its plan text cannot open or close a fence.
                    uri=params.uri,
                    mime_type=MARKDOWN,
                    text=unfenced(text) or EMPTY_MARKDOWN,
                )
            ]
        )


def build_server(connection: PlanConnection) -> Server[Any]:
    return Server(
        "plansight",
        version=__version__,
        title="Plansight",
        instructions=INSTRUCTIONS,
        on_list_tools=connection.list_tools,
        on_call_tool=connection.call_tool,
        on_list_resources=connection.list_resources,
        on_list_resource_templates=connection.list_resource_templates,
        on_read_resource=connection.read_resource,
    )
