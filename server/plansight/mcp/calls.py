"""The plan tools run against the service: what each call answers, refusals included."""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

from pydantic import ValidationError

from plansight.bindings import CHANGES, READS
from plansight.core.context import person_change_reminder
from plansight.core.errors import FieldError, RequestRefused
from plansight.core.fences import unfenced
from plansight.core.model import Plan
from plansight.core.summary import summarize
from plansight.mcp.native import NATIVE_TOOLS
from plansight.mcp.replies import NEWS_FIELD, ToolReply, store_fault_text
from plansight.mcp.tools import input_schemas
from plansight.protocol.registry import BY_TOOL, Request
from plansight.protocol.requests import IngestParams
from plansight.service import Outcome, PlanService
from plansight.store import StoreError
from plansight.validation import validation_errors

log = logging.getLogger(__name__)

EMPTY = "The todo list is empty."


def read_text(plan: Plan) -> str:
    return EMPTY if plan.is_empty() else summarize(plan, [], "Todo list")


class PlanTools:
    """todo_write, todo, todo_read, todo_ingest and the agents' native plan tools, for one
    session at a time, origin "agent"."""

    def __init__(self, service: PlanService) -> None:
        self.service = service

    def call(self, name: str, arguments: dict[str, Any], session: str) -> ToolReply:
        try:
            request = BY_TOOL.get(name)
            if request is not None:
                return self._send(request, arguments, session)
            if name in NATIVE_TOOLS:
                return self._native(NATIVE_TOOLS[name].format, arguments, session)
            raise ValueError(f"unknown tool {name!r}")
        except ValidationError as exc:
            lines = [_line(e["path"], e["message"]) for e in validation_errors(exc)]
            return self._refused(lines, session)
        except RequestRefused as exc:
            return self._refused([_line(e.path, e.message) for e in exc.errors], session)
        except StoreError as exc:
            return ToolReply(store_fault_text(exc), is_error=True)

    def _send(self, request: Request, arguments: dict[str, Any], session: str) -> ToolReply:
        """The tool's request, as the registry declares it, from the model's arguments,
        answered by the service method it is bound to (`bindings.py`)."""
        raw = _params(request, arguments, session)
        if request.changes:
            return self._changed(CHANGES[request.method].answer(self.service, raw), session)
        # The one read tool, todo_read: the list in words, its state as structured content.
        state = READS[request.method].answer(self.service, raw)
        text = unfenced(read_text(self.service.load(session)))
        news = self._news(session)
        if news is None:
            return ToolReply(text, state=state)
        # Claude Code and Codex hand their model the structured content, not the text, when
        # there is some: the news is in both, first in the state so that it is read first.
        assert isinstance(state, dict)
        return ToolReply(f"{text}\n\n{news}", state={NEWS_FIELD: news, **state})

    def _changed(self, outcome: Outcome, session: str) -> ToolReply:
        text = outcome.summary
        if outcome.is_error:
            # "Task not found" in an empty list is a puzzle unless it says which list.
            text += f"\n\n{_where(session)}"
        # A whole list's Kept line is in its summary; ops get theirs here (`person_news`).
        kept, changes = self.service.person_news(session, outcome)
        if kept is not None and kept != outcome.kept_line:
            text = _with_kept_line(text, kept)
        text = unfenced(text)
        return ToolReply(
            f"{text}\n\n{person_change_reminder(changes)}" if changes else text, outcome.is_error
        )

    def _native(self, format_name: str, arguments: dict[str, Any], session: str) -> ToolReply:
        """The agent's own tool: its arguments are the payload of its format."""
        request = {
            "format": format_name,
            "payload": arguments,
            "session": session,
            "origin": "agent",
        }
        try:
            outcome = self.service.ingest(IngestParams.validate(request), request)
        except RequestRefused as exc:
            # The model sent these arguments itself: name them as it knows them.
            errors = [FieldError(_unwrapped(e.path), e.message) for e in exc.errors]
            raise RequestRefused(errors) from None
        return self._changed(outcome, session)

    def _news(self, session: str) -> str | None:
        """A terminal agent never calls `plansight/context`: its tool results tell it what
        the person changed in the editor since its last call, once."""
        changes = self.service.person_changes(session)
        return person_change_reminder(changes) if changes else None

    def _refused(self, lines: list[str], session: str) -> ToolReply:
        """The whole call was refused: say why, then show the list it left as it was."""
        text = "Refused, nothing changed:\n" + "\n".join(f"- {line}" for line in lines)
        try:
            text += "\n\n" + read_text(self.service.load(session))
        except StoreError:
            log.warning("cannot read session %r after a refusal", session)
        return ToolReply(unfenced(f"{text}\n\n{_where(session)}"), is_error=True)


def _params(request: Request, arguments: dict[str, Any], session: str) -> dict[str, Any]:
    """The service's params from the tool's arguments (the registry's `Tool.arguments`):
    a missing key stays missing, so the refusal says `Field required`."""
    assert request.tool is not None
    offered = input_schemas()[request.tool.name]["properties"]
    params: dict[str, Any] = {}
    for key in request.tool.arguments:
        if key not in arguments:
            continue
        value = arguments[key]
        if isinstance(value, str) and offered[key].get("type") in ("array", "object"):
            # Some models send a nested array as its JSON text; what it holds is still checked.
            with contextlib.suppress(ValueError):
                value = json.loads(value)
        params[key] = value
    params["session"] = session
    if "origin" in request.params.__dataclass_fields__:  # type: ignore[attr-defined]
        params["origin"] = "agent"
    return params


def _with_kept_line(summary: str, kept: str) -> str:
    """The Kept line where a whole list's summary has it: under the progress line."""
    lines = summary.split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith("Todo list")), 0)
    return "\n".join([*lines[: at + 1], kept, *lines[at + 1 :]])


def _where(session: str) -> str:
    return f'(Session "{session}", the list these tools read and change.)'


def _unwrapped(path: str) -> str:
    """`payload.plan.0.status` as the tool's own argument path, `plan.0.status`."""
    return path.removeprefix("payload").removeprefix(".")


def _line(path: str, message: str) -> str:
    return f"{path}: {message}" if path else message
