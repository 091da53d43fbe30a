"""The one line the hook gives an agent when a session starts, once setup has registered
Plansight's MCP server for it: which tool keeps its plan when it has no plan tool of its
own (a model offered none: Gemini CLI's default model, Claude's newest ones without the
switch). Setup's record (`setup/setup_record.py`) says for which agents; the hook reads it
with the standard library only."""

from __future__ import annotations

import json
import re
from pathlib import Path

from plansight.paths import state_home
from plansight.regular_file import NotReadable, read_bounded

_CODEX_TABLE = re.compile(r'^\s*\[\s*mcp_servers\s*\.\s*"?plansight"?\s*\]', re.MULTILINE)

# The files are read as setup reads them: a FIFO put in a file's place would hold the
# agent's session start until its hook timeout. Setup's own record is small; an agent's
# MCP file may be Claude Code's `~/.claude.json`, reported at up to 101 MB.
_RECORD_BYTES = 16 * 1024 * 1024
_SETTINGS_BYTES = 256 * 1024 * 1024

# What each agent's own plan tool is called, as its model sees it.
NATIVE_PLAN_TOOLS = {
    "claude-code": "TaskCreate/TaskUpdate (or TodoWrite)",
    "codex": "update_plan",
    "gemini": "write_todos",
    "copilot": "the todos table of your sql tool (or manage_todo_list)",
}


def setup_record_path() -> Path:
    """What `plansight setup` added to the person's files, and for which agents."""
    return state_home() / "plansight" / "setup.json"


def plan_tool_note(agent: str) -> str | None:
    """The line, or None when setup did not register the MCP server for `agent`."""
    try:
        data = read_bounded(setup_record_path(), _RECORD_BYTES)
        record = json.loads(data) if data is not None else {}
        agents, files = record.get("agents", {}), record.get("mcp_files", {})
    except (OSError, NotReadable, ValueError, AttributeError, RecursionError):
        return None
    if not isinstance(agents, dict) or not agents.get(agent) or agent not in NATIVE_PLAN_TOOLS:
        return None
    listed = files.get(agent) if isinstance(files, dict) else None
    if isinstance(listed, list) and not any(_still_registered(path) for path in listed):
        return None  # the person removed the server since (a record from before: trusted)
    return (
        f"Plansight shows your plan to the user: keep it with {NATIVE_PLAN_TOOLS[agent]}; "
        "if you have no such tool, use todo_write of the plansight MCP server instead."
    )


def _still_registered(path: object) -> bool:
    """Whether the file still lists an MCP server named `plansight`: under `mcpServers`
    (Claude Code, Gemini CLI, Copilot CLI), `mcp` (OpenCode) or `[mcp_servers]` (Codex).
    A file that cannot be parsed here (JSON with comments) is searched for the name."""
    if not isinstance(path, str):
        return False
    try:
        data = read_bounded(path, _SETTINGS_BYTES)
    except (OSError, NotReadable):
        return False
    if data is None or b"plansight" not in data:
        return False
    try:
        if path.endswith(".toml"):  # Codex: its table, as `codex mcp add` and setup write it
            return _CODEX_TABLE.search(data.decode()) is not None
        parsed = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return True  # found by name in a file only its agent parses
    if not isinstance(parsed, dict):
        return False
    return any(
        isinstance(parsed.get(key), dict) and "plansight" in parsed[key]
        for key in ("mcpServers", "mcp")
    )
