"""Scripted model APIs on localhost, so the agents' real CLIs run a whole turn offline.

Each server answers the agent's model requests from a script: the Nth request of the
main loop (counted by the tool results it carries) gets the Nth tool call, then a
closing text. `meanwhile` runs what a person does while the agent works: its callback for
step N runs once, before the model answers with the Nth tool call. Side requests (Claude's
and Codex's titles, Gemini's model router) get a short text. A PLAN_TOOL step calls the plan
tool the request offers, the way each API offers it (deferred behind a tool search, nested
in Codex's code mode, or Plansight's MCP tool): one script for every agent and model.
The wire formats are the three public APIs the CLIs speak: Anthropic Messages (SSE),
OpenAI Responses (SSE) and Gemini `generateContent` / `streamGenerateContent` (SSE).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

Arguments = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]
# (tool name, its input): the input, or made from the request (a Gemini step that names
# what an earlier tool answered, e.g. the id Gemini CLI's tracker gave a task).
ToolCall = tuple[str, Arguments]
Meanwhile = dict[int, Callable[[], None]]  # step -> what a person does before it


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _ScriptedServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_HEAD(self) -> None:
        self._send(b"", "text/plain")

    def do_GET(self) -> None:
        self._send(b"{}", "application/json")

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        self.server.requests.append((self.path, request))
        body, content_type = self.server.answer(self.path, request)
        self._send(body, content_type)


class _ScriptedServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, api: str, script: list[ToolCall], meanwhile: Meanwhile) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.api = api
        self.script = script
        self.meanwhile = dict(meanwhile)
        # Tokens the next answer reports used (once; then 2): a full context window makes
        # the agent compact its history, as a long session does.
        self.tokens_once: int | None = None
        self.lock = threading.Lock()
        self.requests: list[tuple[str, dict[str, Any]]] = []

    def step(self, done: int) -> ToolCall:
        """The script's tool call `done`, after what the person does before it (once)."""
        with self.lock:
            person = self.meanwhile.pop(done, None)
        if person is not None:
            person()
        return self.script[done]

    def tokens_used(self) -> int:
        with self.lock:
            tokens, self.tokens_once = self.tokens_once, None
        return tokens or 2

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def answer(self, path: str, request: dict[str, Any]) -> tuple[bytes, str]:
        return {"anthropic": _anthropic, "openai": _openai, "gemini": _gemini}[self.api](
            self, path, request
        )


# A script step named PLAN_TOOL calls whichever plan tool the model is offered, as a real
# model does: its arguments map each candidate (the native tool first, then Plansight's) to
# its input, and the first candidate offered in the request is called.
PLAN_TOOL = "?plan"
# Claude Code names its deferred tools in a system message; the model loads one with its
# tool-search tool before it can call it.
_DEFERRED = "The following deferred tools are now available via ToolSearch"
# ... and the MCP servers whose tools it has not listed yet: the tool search waits for them.
_CONNECTING = "The following MCP servers are still connecting"
TOOL_SEARCH = "ToolSearch"


def _offered(step: ToolCall, declared: set[str]) -> ToolCall:
    name, arguments = step
    if name != PLAN_TOOL:
        return step
    for candidate, candidate_arguments in arguments.items():
        found = _find(candidate, declared)
        if found is not None:
            return found, candidate_arguments
    raise AssertionError(f"none of {list(arguments)} is offered: {sorted(declared)}")


def _find(candidate: str, declared: set[str] | list[str]) -> str | None:
    """The offered name of `candidate`: an agent may prefix an MCP tool with its server's
    name (`mcp_plansight_todo_write`, `mcp__plansight__todo_write`, Copilot CLI's
    `plansight-todo_write`)."""
    for offered in sorted(declared):
        if offered == candidate or offered.endswith(("_" + candidate, "-" + candidate)):
            return offered
    return None


def deferred_names(messages: list[dict[str, Any]]) -> list[str]:
    """The tools Claude Code lists as deferred (one name a line after its heading)."""
    names: list[str] = []
    for message in messages:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"text": content or ""}]
        for block in blocks:
            text = str(block.get("text") or "")
            if _DEFERRED in text:
                listing = text.split(_DEFERRED, 1)[1].split("\n\n", 1)[0]
                names += [line.strip() for line in listing.splitlines()[1:] if line.strip()]
    return names


def _tool_uses(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        block
        for message in messages
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    ]


def _anthropic_step(step: ToolCall, request: dict[str, Any]) -> ToolCall:
    """The step's tool call, or first a tool search when its plan tool is only deferred:
    by name when Claude Code lists it, else by keyword (an MCP server still connecting)."""
    if step[0] != PLAN_TOOL:
        return step
    messages = request.get("messages", [])
    tools = request.get("tools") or []
    # Loaded: declared in full, or named by a tool search's result (a `tool_reference`).
    loaded = {str(t.get("name")) for t in tools if not t.get("defer_loading")}
    loaded |= {
        str(block.get("tool_name"))
        for result in _tool_results(messages)
        if isinstance(result.get("content"), list)
        for block in result["content"]
        if block.get("type") == "tool_reference"
    }
    searched = [
        str(use.get("input", {}).get("query", ""))
        for use in _tool_uses(messages)
        if use.get("name") == TOOL_SEARCH
    ]
    deferred = deferred_names(messages)
    for candidate in step[1]:
        name = _find(candidate, loaded)
        if name is not None:
            return name, step[1][candidate]
        name = _find(candidate, deferred)
        if name is not None and f"select:{name}" not in searched:
            return TOOL_SEARCH, {"query": f"select:{name}"}
    connecting = _CONNECTING in json.dumps(messages)
    for candidate in step[1]:
        if connecting and candidate not in searched:
            return TOOL_SEARCH, {"query": candidate}
    raise AssertionError(f"none of {list(step[1])} is offered: {sorted(loaded)} {deferred}")


def _tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        block
        for message in messages
        if message.get("role") == "user" and isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def _sse(events: list[tuple[str | None, dict[str, Any]]]) -> bytes:
    return "".join(
        (f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
        for name, data in events
    ).encode()


def _anthropic(server: _ScriptedServer, path: str, request: dict[str, Any]) -> tuple[bytes, str]:
    if "count_tokens" in path:
        return json.dumps({"input_tokens": 10}).encode(), "application/json"
    tools = {tool.get("name") for tool in request.get("tools") or []}
    results = sum(
        1
        for message in request.get("messages", [])
        if message.get("role") == "user" and isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    )
    # A tool search is the model's own step before a deferred tool, not one of the script.
    searches = sum(
        1 for use in _tool_uses(request.get("messages", [])) if use.get("name") == TOOL_SEARCH
    )
    done = results - searches
    # A side request (the session's title, a summary) offers no edit tool (OpenCode's is
    # `edit`).
    if not tools & {"Edit", "edit"}:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": "Scripted"}]
        stop = "end_turn"
    elif done < len(server.script):
        name, arguments = _anthropic_step(server.step(done), request)
        if callable(arguments):  # made from the request (Claude's plan file's path)
            arguments = arguments(request)
        call_id = f"toolu_{results:02d}"
        blocks = [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}]
        stop = "tool_use"
    else:
        blocks, stop = [{"type": "text", "text": "Done."}], "end_turn"
    # The main loop's answers report the tokens used: a full window makes OpenCode compact.
    main = bool(tools & {"Edit", "edit"})
    usage = {"input_tokens": max(10, server.tokens_used()) if main else 10, "output_tokens": 5}
    if not request.get("stream"):
        message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted"}
        message.update(content=blocks, stop_reason=stop, stop_sequence=None, usage=usage)
        return json.dumps(message).encode(), "application/json"
    start = {"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted"}
    start.update(content=[], stop_reason=None, stop_sequence=None, usage=usage)
    events: list[tuple[str | None, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            delta: dict[str, Any] = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events), "text/event-stream"


# A script step named ANSWER answers with text (its `text`), which ends the turn: the
# assistant's last message, as Codex's plan mode gives its `<proposed_plan>` (OpenAI only).
ANSWER = "?answer"

# Codex's code mode offers one freeform `exec` tool running JavaScript; its description
# declares the nested tools (`### \`update_plan\``), called as `await tools.update_plan(...)`.
CODE_MODE = "exec"
# Codex 0.171 offers MCP servers' tools to models that can search (gpt-5.5) only through
# its `tool_search`: a `tool_search_call` item, answered with a `tool_search_output`.
CODEX_TOOL_SEARCH = "tool_search"


def _openai_tools(request: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The tools a Responses request offers: those the model calls directly (the `tools`
    field, or Codex 0.171's `additional_tools` input item of namespaces) and those nested
    in code mode's `exec`."""
    direct: list[dict[str, Any]] = list(request.get("tools") or [])
    for item in request.get("input", []):
        if isinstance(item, dict) and item.get("type") in (
            "additional_tools",
            "tool_search_output",
        ):
            for tool in item.get("tools") or []:
                direct += tool.get("tools") or [] if tool.get("type") == "namespace" else [tool]
    names = {str(tool.get("name")) for tool in direct}
    nested: set[str] = set()
    for tool in direct:
        if tool.get("name") == CODE_MODE and tool.get("type") == "custom":
            nested |= set(re.findall(r"^### `(\w+)`$", tool.get("description", ""), re.M))
    return names, nested


def _searched_namespace(name: str, request: dict[str, Any]) -> str | None:
    """The namespace (`mcp__plansight`) of a tool a `tool_search_output` brought, if any."""
    for item in request.get("input", []):
        if isinstance(item, dict) and item.get("type") == "tool_search_output":
            for tool in item.get("tools") or []:
                if any(t.get("name") == name for t in tool.get("tools") or []):
                    return str(tool.get("name"))
    return None


def _openai_step(step: ToolCall, request: dict[str, Any]) -> ToolCall:
    """The step's tool call; a plan tool nested in code mode becomes an `exec` calling it."""
    if step[0] != PLAN_TOOL:
        return step
    direct, nested = _openai_tools(request)
    for candidate, arguments in step[1].items():
        name = _find(candidate, direct)
        if name is not None:
            return name, arguments
        name = _find(candidate, nested)
        if name is not None:
            return CODE_MODE, {"code": f"await tools.{name}({json.dumps(arguments)});\n"}
    raise AssertionError(f"none of {list(step[1])} is offered: {sorted(direct | nested)}")


# Codex 0.171's interactive UI asks the model for a new task's title (`thread_title.rs`), a
# side request ending in this prompt: answered with a title, as Claude's is.
CODEX_TITLE_ASKED = "Generate a concise, single-line task title"


def _asks_codex_title(request: dict[str, Any]) -> bool:
    last = (request.get("input") or [{}])[-1]
    content = last.get("content") if isinstance(last, dict) else None
    return isinstance(content, list) and any(
        isinstance(part, dict) and str(part.get("text", "")).startswith(CODEX_TITLE_ASKED)
        for part in content
    )


def _openai(server: _ScriptedServer, path: str, request: dict[str, Any]) -> tuple[bytes, str]:
    done = sum(
        1
        for item in request.get("input", [])
        if isinstance(item, dict)
        and item.get("type")
        in ("function_call_output", "custom_tool_call_output", "tool_search_output")
    )
    item: dict[str, Any]
    if _asks_codex_title(request):
        item = {"type": "message", "role": "assistant", "id": "msg_title"}
        item["content"] = [{"type": "output_text", "text": "Fix the login bug"}]
    elif done < len(server.script):
        name, arguments = _openai_step(server.step(done), request)
        if name == ANSWER:
            item = {"type": "message", "role": "assistant", "id": "msg_8"}
            item["content"] = [{"type": "output_text", "text": arguments["text"]}]
        elif name == CODEX_TOOL_SEARCH:  # loads deferred tools (MCP servers'), run by Codex
            item = {"type": "tool_search_call", "execution": "client", "arguments": arguments}
        elif name == CODE_MODE:  # Codex's code mode: JavaScript calling the nested tools
            item = {"type": "custom_tool_call", "name": name, "input": arguments["code"]}
        elif name == "apply_patch":  # a freeform ("custom") tool in Codex: the patch as text
            item = {"type": "custom_tool_call", "name": name, "input": arguments["patch"]}
        else:
            item = {"type": "function_call", "name": name, "arguments": json.dumps(arguments)}
            namespace = _searched_namespace(name, request)
            if namespace is not None:  # a tool Codex's tool_search found: called in its namespace
                item["namespace"] = namespace
        if name != ANSWER:
            item.update(call_id=f"call_{done}", id=f"item_{done}")
    else:
        item = {"type": "message", "role": "assistant", "id": "msg_9"}
        item["content"] = [{"type": "output_text", "text": "Done."}]
    tokens = server.tokens_used()
    usage = {"input_tokens": tokens - 1, "input_tokens_details": None, "output_tokens": 1}
    usage.update(output_tokens_details=None, total_tokens=tokens)
    events: list[tuple[str | None, dict[str, Any]]] = [
        ("response.created", {"type": "response.created", "response": {"id": "resp_1"}}),
        ("response.output_item.done", {"type": "response.output_item.done", "item": item}),
        (
            "response.completed",
            {"type": "response.completed", "response": {"id": "resp_1", "usage": usage}},
        ),
    ]
    return _sse(events), "text/event-stream"


def _gemini(server: _ScriptedServer, path: str, request: dict[str, Any]) -> tuple[bytes, str]:
    if "countTokens" in path:
        return json.dumps({"totalTokens": 10}).encode(), "application/json"
    declared = [
        d for tool in request.get("tools", []) for d in tool.get("functionDeclarations", [])
    ]
    done = sum(
        1
        for content in request.get("contents", [])
        for part in content.get("parts", [])
        if "functionResponse" in part
    )
    if not declared:  # the model router's request
        parts: list[dict[str, Any]] = [
            {"text": '{"reasoning": "scripted", "model_choice": "flash"}'}
        ]
    elif done < len(server.script):
        name, arguments = _offered(server.step(done), {d.get("name", "") for d in declared})
        if callable(arguments):  # made from what the tools answered (ids the agent chose)
            arguments = arguments(request)
        parts = [{"functionCall": {"name": name, "args": arguments}}]
    else:
        parts = [{"text": "Done."}]
    chunk = {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        # The main loop's answers report the tokens used: a full window makes Gemini CLI
        # compress its history before its next request.
        "usageMetadata": {
            "promptTokenCount": server.tokens_used() if declared else 5,
            "candidatesTokenCount": 5,
            "totalTokenCount": 10,
        },
    }
    if "stream" in path:
        return _sse([(None, chunk)]), "text/event-stream"
    return json.dumps(chunk).encode(), "application/json"


@contextmanager
def scripted_model(
    api: str, script: list[ToolCall], meanwhile: Meanwhile | None = None
) -> Iterator[_ScriptedServer]:
    """A model API (`anthropic`, `openai` or `gemini`) answering from `script`."""
    with serving(_ScriptedServer(api, script, meanwhile or {})) as server:
        yield server


Served = TypeVar("Served", bound=_ScriptedServer)


@contextmanager
def serving(server: Served) -> Iterator[Served]:
    """`server` answering on localhost while the block runs."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
