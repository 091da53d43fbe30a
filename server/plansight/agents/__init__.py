"""Agents' own plan formats, each turned into the core's terms by one small adapter.

`ADAPTERS` is the one list of formats `plansight/ingest` accepts: the protocol's `Format`
and the `formats` capability are checked against it by a test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from plansight.agents import (
    acp,
    checklist,
    claude,
    codex,
    gemini,
    gemini_tracker,
    opencode,
    roo,
    vscode,
)
from plansight.core.incoming import Incoming

Adapter = Callable[[dict[str, Any]], Incoming]

ADAPTERS: dict[str, Adapter] = {
    "claude-todowrite": claude.todo_write,
    "claude-tasks": claude.task_call,
    "codex-plan": codex.update_plan,
    "gemini-todos": gemini.write_todos,
    "opencode-todos": opencode.todo_write,
    "acp-plan": acp.plan_update,
    "vscode-todos": vscode.manage_todo_list,
    "roo-todos": roo.update_todo_list,
    "markdown": checklist.checklist,
    "gemini-tracker": gemini_tracker.tracker_call,
}


def read_payload(format_name: str, payload: dict[str, Any]) -> Incoming:
    """The payload in the core's terms, or RequestRefused naming what is wrong."""
    return ADAPTERS[format_name](payload)
