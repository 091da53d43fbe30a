"""Gemini CLI's automatic compression (issue 21): no hook is told it happened (its
PreCompress "auto" runs before every model request, compression or not), but the next
BeforeModel's messages begin with the summary and Gemini's fixed answer to it. The hook
sees a new summary there, and the next answer that can carry context (a tool's, or the
next prompt's) gives the plan back whole, once."""

from __future__ import annotations

import json

from replay import Replay
from test_hook_steering import PLANS, _context

from plansight.hook.hooked_agents import GEMINI
from plansight.setup.agent_hooks import wanted_groups


def _planned(machine: Replay) -> None:
    _, plan_tool, prompt, _ = PLANS["gemini"]
    machine.replay("gemini", prompt)
    machine.replay("gemini", plan_tool)
    machine.replay("gemini", prompt)  # the plan told, nothing new since


def _whole(told: str) -> bool:
    return "[>] Reproduce the login bug" in told and "[ ] Fix the session check" in told


def test_a_compression_seen_in_the_model_request_is_answered_by_the_next_tool(
    machine: Replay,
) -> None:
    _planned(machine)
    assert machine.replay("gemini", "PreCompress") == {}  # "auto": no news
    assert machine.replay("gemini", "BeforeModel") == {}  # no summary in it
    assert machine.replay("gemini", "AfterTool-write_file") == {}

    assert machine.replay("gemini", "BeforeModel-compressed") == {}

    assert _whole(_context(machine.replay("gemini", "AfterTool-write_file"), "AfterTool"))
    # Once: the same summary in the next requests is no new compression.
    assert machine.replay("gemini", "BeforeModel-compressed") == {}
    assert machine.replay("gemini", "AfterTool-write_file") == {}


def test_or_by_the_next_prompt(machine: Replay) -> None:
    _planned(machine)
    _, _, prompt, _ = PLANS["gemini"]
    machine.replay("gemini", "BeforeModel-compressed")

    assert _whole(_context(machine.replay("gemini", prompt), "BeforeAgent"))
    assert "Fix the session check" not in json.dumps(machine.replay("gemini", prompt))


def test_a_compress_command_already_told_is_not_told_again(machine: Replay) -> None:
    """`/compress` is heard (PreCompress "manual") and told with the next prompt; its
    summary, seen in the model request after that prompt, is then no news."""
    _planned(machine)
    _, _, prompt, _ = PLANS["gemini"]
    machine.replay("gemini", "PreCompress", trigger="manual")
    assert _whole(_context(machine.replay("gemini", prompt), "BeforeAgent"))

    assert machine.replay("gemini", "BeforeModel-compressed") == {}
    assert machine.replay("gemini", "AfterTool-write_file") == {}


def test_a_conversation_without_a_plan_is_told_nothing(machine: Replay) -> None:
    assert machine.replay("gemini", "BeforeModel-compressed") == {}
    assert machine.replay("gemini", "AfterTool-write_file") == {}


def test_setup_registers_geminis_model_requests() -> None:
    events = {event: group.get("matcher") for event, group in wanted_groups(GEMINI, "x")}
    assert "BeforeModel" in events and events["BeforeModel"] is None
