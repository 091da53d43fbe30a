"""A scripted model for Copilot CLI's own provider ("bring your own key"): the OpenAI
Responses API as Copilot CLI 1.0.102 reads it (`COPILOT_PROVIDER_WIRE_API=responses`).

Copilot builds the answer from the stream's items (`response.output_item.added`, the
arguments' deltas, `response.output_item.done`) and ends the turn on `response.completed`
with the response's `output`: an answer with only the finished items ends "without
visible output". So this answers with the whole event sequence of the public API.
"""

from __future__ import annotations

import json
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agent_home import REPO
from scripted_models import Meanwhile, ToolCall, _offered, _ScriptedServer, _sse, scripted_model

# The CLI unpacks its 235 MB package on first run: once for every test and run, signed in
# or with its own provider.
UNPACKED_ONCE = {"COPILOT_CACHE_HOME": str(REPO / ".cache" / "copilot")}


def own_provider(url: str, model: str) -> dict[str, str]:
    """The environment of a person who runs Copilot offline (`COPILOT_OFFLINE`: no GitHub
    sign-in, no network) with their own provider, the scripted Responses API at `url`.
    It takes no default model ("BYOK providers require an explicit model"): `model`."""
    return {
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": f"{url}/v1",
        "COPILOT_PROVIDER_WIRE_API": "responses",
        "COPILOT_PROVIDER_API_KEY": "scripted",
        "COPILOT_MODEL": model,
        **UNPACKED_ONCE,
    }


def _answer(server: _ScriptedServer, path: str, request: dict[str, Any]) -> tuple[bytes, str]:
    declared = {tool.get("name", "") for tool in request.get("tools") or []}
    freeform = {t.get("name") for t in request.get("tools") or [] if t.get("type") == "custom"}
    done = sum(
        1
        for item in request.get("input") or []
        if isinstance(item, dict)
        and item.get("type") in ("function_call_output", "custom_tool_call_output")
    )
    if done < len(server.script):
        name, arguments = _offered(server.step(done), declared)
        if name in freeform:  # a freeform tool (apply_patch for GPT-5.1-Codex): text input
            item, opened, middle = _custom_call(done, name, arguments["patch"])
        else:
            item, opened, middle = _function_call(done, name, arguments)
    else:
        text = {"type": "output_text", "text": "Done.", "annotations": []}
        item = {"type": "message", "id": "msg_9", "role": "assistant", "status": "completed"}
        item["content"] = [text]
        opened = {**item, "content": [], "status": "in_progress"}
        middle = [
            {
                "type": "response.output_text.delta",
                "item_id": item["id"],
                "output_index": 0,
                "content_index": 0,
                "delta": "Done.",
            }
        ]
    # The tokens used: a nearly full window (`tokens_once`) makes Copilot CLI compact.
    tokens = server.tokens_used()
    usage = {
        "input_tokens": tokens - 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": tokens,
    }
    response = {"id": "resp_1", "object": "response", "model": "scripted", "output": []}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**response, "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": opened},
        *middle,
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {
            "type": "response.completed",
            "response": {**response, "status": "completed", "output": [item], "usage": usage},
        },
    ]
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return _sse([(event["type"], event) for event in events]), "text/event-stream"


Streamed = tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]


def _function_call(done: int, name: str, arguments: dict[str, Any]) -> Streamed:
    """A function call: the item, the item as opened, and the stream of its arguments."""
    item: dict[str, Any] = {
        "type": "function_call",
        "id": f"fc_{done}",
        "call_id": f"call_{done}",
        "name": name,
        "arguments": json.dumps(arguments),
        "status": "completed",
    }
    opened = {**item, "arguments": "", "status": "in_progress"}
    middle: list[dict[str, Any]] = [
        {
            "type": "response.function_call_arguments.delta",
            "item_id": item["id"],
            "output_index": 0,
            "delta": item["arguments"],
        },
        {
            "type": "response.function_call_arguments.done",
            "item_id": item["id"],
            "output_index": 0,
            "arguments": item["arguments"],
        },
    ]
    return item, opened, middle


def _custom_call(done: int, name: str, text: str) -> Streamed:
    """A freeform ("custom") tool call: its input is plain text, not JSON."""
    item: dict[str, Any] = {
        "type": "custom_tool_call",
        "id": f"ctc_{done}",
        "call_id": f"call_{done}",
        "name": name,
        "input": text,
        "status": "completed",
    }
    opened = {**item, "input": "", "status": "in_progress"}
    middle: list[dict[str, Any]] = [
        {
            "type": "response.custom_tool_call_input.delta",
            "item_id": item["id"],
            "output_index": 0,
            "delta": text,
        },
        {
            "type": "response.custom_tool_call_input.done",
            "item_id": item["id"],
            "output_index": 0,
            "input": text,
        },
    ]
    return item, opened, middle


@contextmanager
def copilot_model(
    script: list[ToolCall], meanwhile: Meanwhile | None = None
) -> Iterator[_ScriptedServer]:
    """The Responses API on localhost answering from `script` (`PLAN_TOOL` steps too),
    with what the person does `meanwhile`."""
    with scripted_model("openai", script, meanwhile) as server:
        server.answer = types.MethodType(_answer, server)  # type: ignore[method-assign]
        yield server
