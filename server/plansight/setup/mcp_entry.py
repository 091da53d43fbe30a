"""Plansight's MCP server (`plansight mcp`) as each agent registers it, so that an agent
whose model is offered no plan tool of its own still has one that the editor shows.

The entries are written exactly as the agents' own `mcp add` commands write them
(recorded in `tests/fixtures/setup/`): Claude Code's `claude mcp add --scope user` in
`~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json`), its project scope in `.mcp.json`;
Gemini CLI's `gemini mcp add` in `settings.json`; Copilot CLI's `copilot mcp add` in
`~/.copilot/mcp-config.json` (`$COPILOT_HOME`); Codex's `codex mcp add` as
`[mcp_servers.plansight]` in `config.toml` (see `codex_config.py`).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

from plansight.setup.setup_record import FileRecord

NAME = "plansight"


def command_and_args(plansight: str) -> tuple[str, list[str]]:
    """`plansight mcp` as a program and its arguments (`plansight` may be `python -m
    plansight`)."""
    words = shlex.split(plansight)
    return words[0], [*words[1:], "mcp"]


def server_entry(agent: str, plansight: str) -> dict[str, Any]:
    command, args = command_and_args(plansight)
    if agent == "claude-code":
        return {"type": "stdio", "command": command, "args": args, "env": {}}
    if agent == "copilot":
        return {"tools": ["*"], "type": "local", "command": command, "args": args}
    return {"command": command, "args": args}


def is_setup_form(entry: Any) -> bool:
    """An entry that runs `plansight mcp` with nothing added: setup's, whatever the path
    Plansight had when it was written."""
    if not isinstance(entry, dict):
        return False
    args = entry.get("args")
    command = entry.get("command")
    if not isinstance(command, str) or not isinstance(args, list):
        return False
    words = [command, *args]
    extra = set(entry) - {"type", "command", "args", "env", "tools"}
    plain = (
        entry.get("env") in (None, {})
        and entry.get("type") in (None, "stdio", "local")
        and entry.get("tools") in (None, ["*"])
    )
    runs = (len(words) == 2 and words[0].rsplit("/", 1)[-1] == NAME and words[1] == "mcp") or (
        len(words) == 4 and words[1:] == ["-m", "plansight", "mcp"]
    )
    return runs and plain and not extra


def with_server(
    settings: dict[str, Any],
    wanted: dict[str, Any],
    record: FileRecord,
    say: Any,
    key: str = "mcpServers",
    setup_form: Callable[[Any], bool] = is_setup_form,
) -> dict[str, Any]:
    """`settings` with `<key>.plansight` as setup writes it, unless the person has their
    own entry under that name (kept, and said). `key` is where the agent lists its MCP
    servers (`mcpServers` for Claude Code and Gemini CLI, `mcp` for OpenCode) and
    `setup_form` tells an entry setup wrote in that agent's shape."""
    servers = settings.get(key)
    if servers is None:
        record.created.append(key)
        servers = settings[key] = {}
    if not isinstance(servers, dict):
        raise ValueError(f"`{key}` is not an object")
    present = servers.get(NAME)
    if present == wanted:
        if not record.kept and setup_form(present):
            record.mcp[NAME] = present
        return settings
    ours = present is None or present == record.mcp.get(NAME)
    if not ours and not record.kept and setup_form(present):
        ours = True  # written by setup before it kept records
    if not ours:
        say(f"Kept your own MCP server entry {NAME!r} (it differs from setup's).")
        return settings
    servers[NAME] = wanted
    record.mcp[NAME] = wanted
    return settings


def without_server(
    settings: dict[str, Any],
    record: FileRecord,
    say: Any,
    key: str = "mcpServers",
    setup_form: Callable[[Any], bool] = is_setup_form,
) -> dict[str, Any]:
    """`settings` without the MCP server entry setup added, if it is still as setup wrote
    it (with no record: if it is in setup's form)."""
    servers = settings.get(key)
    if not isinstance(servers, dict) or NAME not in servers:
        return settings
    present = servers[NAME]
    if (record.kept and present == record.mcp.get(NAME)) or (
        not record.kept and setup_form(present)
    ):
        del servers[NAME]
        if not servers and (key in record.created or not record.kept):
            del settings[key]
    elif NAME in record.mcp:
        say(f"Kept the MCP server entry {NAME!r}: it was changed after setup added it.")
    return settings


def registered(settings: dict[str, Any]) -> bool:
    servers = settings.get("mcpServers")
    return isinstance(servers, dict) and isinstance(servers.get(NAME), dict)
