"""GitHub's Copilot service, scripted on localhost: Copilot CLI 1.0.102 signed in with a
token (`COPILOT_GITHUB_TOKEN`), no model named, picks its default model from the service's
list and plans with it, with no network.

What the CLI asks, in order (recorded in tests/fixtures/model_requests/copilot-service.json):
`GET /copilot_internal/user` on the GitHub API (`COPILOT_DEBUG_GITHUB_API_URL`), whose
`endpoints.api` names the Copilot API (this same server); there
`GET /models`, then the turn: `POST /responses` (the Responses API, answered by
`copilot_model`). Everything else it asks (managed settings, team customizations, the GitHub
MCP server at `/mcp/readonly`, memory) is "404 Not Found", which it takes as "none".

The list's shape and flags are those the CLI's runtime reads (the field names in its
`prebuilds/linux-x64/runtime.node`: `model_picker_enabled`, `model_picker_category`,
`supported_endpoints`, `capabilities.limits.max_prompt_tokens`, `policy.state`, `billing`;
it reads no `is_chat_default`): two models a Copilot subscription lists, neither named.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from copilot_model import UNPACKED_ONCE, _answer
from scripted_models import Meanwhile, ToolCall, _Handler, _ScriptedServer, serving

TOKEN = "gho_scripted"
# What the CLI asked this service for, and the model it picked (README there): the tests
# that run signed in check their requests ask for that default model.
RECORDED = json.loads(
    (
        Path(__file__).resolve().parents[1] / "fixtures/model_requests/copilot-service.json"
    ).read_text(encoding="utf-8")
)
DEFAULT_MODEL: str = RECORDED["picked_model"]


def _model(model_id: str, name: str, vendor: str, endpoints: list[str]) -> dict[str, Any]:
    """One row of the Copilot API's `GET /models` (`{"data": [...]}`)."""
    return {
        "id": model_id,
        "name": name,
        "object": "model",
        "vendor": vendor,
        "version": model_id,
        "preview": False,
        "model_picker_enabled": True,
        "model_picker_category": "versatile",
        "capabilities": {
            "family": model_id,
            "type": "chat",
            "object": "model_capabilities",
            "limits": {
                "max_context_window_tokens": 200000,
                "max_output_tokens": 64000,
                "max_prompt_tokens": 128000,
            },
            "supports": {
                "streaming": True,
                "tool_calls": True,
                "parallel_tool_calls": True,
                "vision": True,
            },
        },
        "policy": {"state": "enabled", "terms": ""},
        "billing": {"multiplier": 1},
        "supported_endpoints": endpoints,
    }


MODELS = [
    _model("claude-sonnet-4.5", "Claude Sonnet 4.5", "Anthropic", ["/chat/completions"]),
    _model("gpt-5-mini", "GPT-5 mini", "Azure OpenAI", ["/chat/completions", "/responses"]),
]


def prompt_limit(model_id: str) -> int:
    """The prompt limit Copilot CLI counts against for `model_id` in this list (its
    `session.compaction_start` event's `tokenLimit`): `max_prompt_tokens`, or the window
    less the output where that leaves less (a row of 190,000 / 200,000 / 64,000 gave
    136,000). It compacts the history by itself once a request used most of it."""
    [row] = [row for row in MODELS if row["id"] == model_id]
    limits = row["capabilities"]["limits"]
    room = limits["max_context_window_tokens"] - limits["max_output_tokens"]
    return int(min(limits["max_prompt_tokens"], room))


class _ServiceHandler(_Handler):
    """The GitHub API and the Copilot API on one address."""

    server: _CopilotService

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        self.server.asked.append(("GET", path, self.headers.get("authorization", "")))
        if path == "/copilot_internal/user":
            self._reply(200, self.server.user())
        elif path == "/models":
            self._reply(200, {"data": MODELS})
        else:
            self._reply(404, {"message": "Not Found"})

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        self.server.asked.append(("POST", path, self.headers.get("authorization", "")))
        if path == "/responses":
            super().do_POST()
            return
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self._reply(404, {"message": "Not Found"})


class _CopilotService(_ScriptedServer):
    """The model answers as `copilot_model`'s Responses API does; `asked` lists every
    request (method, path, its authorization header)."""

    answer = _answer

    def __init__(self, script: list[ToolCall], meanwhile: Meanwhile) -> None:
        super().__init__("openai", script, meanwhile)
        self.RequestHandlerClass = _ServiceHandler
        self.asked: list[tuple[str, str, str]] = []

    def picked(self) -> set[str]:
        """The models the CLI asked for: signed in, no model named, its own default."""
        return {request["model"] for _, request in self.requests}

    def user(self) -> dict[str, Any]:
        """`/copilot_internal/user`: a signed-in person whose Copilot API is this server."""
        return {
            "login": "person",
            "copilot_plan": "individual",
            "chat_enabled": True,
            "is_mcp_enabled": True,
            "endpoints": {"api": self.url},
        }


@contextmanager
def copilot_service(
    script: list[ToolCall], meanwhile: Meanwhile | None = None
) -> Iterator[_CopilotService]:
    """The GitHub API and the Copilot API on localhost, the model answering from `script`."""
    with serving(_CopilotService(script, meanwhile or {})) as server:
        yield server


def signed_in(url: str) -> dict[str, str]:
    """The environment of a person signed in to GitHub whose GitHub and Copilot APIs are
    the scripted service: no model named, no `COPILOT_OFFLINE`, no provider of their own."""
    return {
        "COPILOT_GITHUB_TOKEN": TOKEN,
        "COPILOT_DEBUG_GITHUB_API_URL": url,
        **UNPACKED_ONCE,
    }
