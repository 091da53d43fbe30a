"""`plansight setup opencode`: Plansight's MCP server in OpenCode's config, and a small
OpenCode plugin that sends its plan (the `todowrite` list) to Plansight.

Shapes from OpenCode's own sources (npm `opencode-ai` 1.18.33, its binary's bundled
code; anomalyco/opencode `packages/opencode/src/config`): the config is `opencode.json`
or `opencode.jsonc` (JSON with comments) in `$XDG_CONFIG_HOME/opencode` (`~/.config/
opencode`) or a project's root; an MCP server is `mcp.<name> = {type: "local", command:
[program, ...args], environment?, enabled?, timeout?, cwd?}`. Plugins are the files
`{plugin,plugins}/*.{ts,js}` of the same config folders (a project's: `.opencode/`); a
plugin exports async functions returning hooks, and OpenCode calls `event({event})` with
`{id, type, properties}` for every bus event; `todo.updated` carries `{sessionID, todos:
[{content, status, priority}]}` (recorded in `tests/fixtures/hooks/opencode/`).

Care for the person's files as for the other agents: the config is changed in place
(comments and layout kept), with a backup; the record (`record.py`) keeps the entry and
the plugin's text as setup wrote them, and `--remove` takes out only those, unchanged.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from plansight.paths import workspace_root
from plansight.setup import mcp_entry
from plansight.setup.json_text import JSONC, JsonTextError, changed_text
from plansight.setup.record import FileRecord, file_record, remember_plan_tools, save_records
from plansight.setup.settings_file import (
    SetupError,
    read_text,
    settings_of,
    show_change,
    too_deep,
    write_with_backup,
)

NAME = "plansight"
PLUGIN_FILE = "plansight.js"
Say = Callable[[str], None]


def config_folder(scope: str) -> Path:
    """The folder OpenCode reads the user's (or the project's) config and plugins from."""
    if scope == "project":
        return workspace_root() / ".opencode"
    configured = os.environ.get("XDG_CONFIG_HOME")
    return (Path(configured) if configured else Path.home() / ".config") / "opencode"


def config_path(scope: str) -> Path:
    """`opencode.jsonc` where the person has one, else `opencode.json` (OpenCode reads
    both); a project's sits at its root."""
    folder = workspace_root() if scope == "project" else config_folder(scope)
    with_comments = folder / "opencode.jsonc"
    return with_comments if with_comments.exists() else folder / "opencode.json"


def plugin_path(scope: str) -> Path:
    return config_folder(scope) / "plugin" / PLUGIN_FILE


def server_entry(plansight: str) -> dict[str, Any]:
    command, args = mcp_entry.command_and_args(plansight)
    return {"type": "local", "command": [command, *args], "enabled": True}


def is_setup_form(entry: Any) -> bool:
    """An entry running `plansight mcp` with nothing the person added."""
    if not isinstance(entry, dict) or set(entry) - {"type", "command", "enabled"}:
        return False
    words = entry.get("command")
    if entry.get("type") != "local" or entry.get("enabled", True) is not True:
        return False
    if not isinstance(words, list) or not words or not isinstance(words[0], str):
        return False
    return mcp_entry.is_setup_form({"command": words[0], "args": words[1:]})


def plugin_text(plansight: str) -> str:
    """The plugin: on each `todo.updated`, `plansight ingest --format opencode-todos` with
    the whole list, in the session's folder. Runs are chained so that lists arrive in the
    order OpenCode wrote them; a failure is OpenCode's to ignore, never to stop on."""
    command, args = mcp_entry.command_and_args(plansight)
    words = json.dumps([command, *args[:-1]])  # `plansight`, without `mcp`
    return f"""\
// Plansight: sends OpenCode's plan (its todowrite list) to Plansight.
// Written by `plansight setup opencode`; `plansight setup opencode --remove` takes it out.
import {{ spawn }} from "node:child_process";

const PLANSIGHT = {words};

function ingest(directory, sessionID, todos) {{
  return new Promise((resolve) => {{
    const [program, ...args] = PLANSIGHT;
    const child = spawn(
      program,
      [...args, "ingest", "--format", "opencode-todos", "--session", `opencode:${{sessionID}}`, "-"],
      {{ cwd: directory, stdio: ["pipe", "ignore", "ignore"] }},
    );
    child.on("error", () => resolve());
    child.on("close", () => resolve());
    child.stdin.on("error", () => {{}});
    child.stdin.end(JSON.stringify({{ todos }}));
  }});
}}

export const PlansightPlan = async ({{ directory }}) => {{
  let queue = Promise.resolve();
  return {{
    event: async ({{ event }}) => {{
      if (event.type !== "todo.updated") return;
      const {{ sessionID, todos }} = event.properties;
      queue = queue.then(() => ingest(directory, sessionID, todos));
      await queue;
    }},
  }};
}};
"""


def _config_change(
    path: Path, plansight: str, remove: bool, say: Say
) -> tuple[str, str, FileRecord]:
    before = read_text(path)
    settings = settings_of(path, before, JSONC)
    record = file_record(path)
    try:
        if remove:
            mcp_entry.without_server(settings, record, say, "mcp", is_setup_form)
        else:
            mcp_entry.with_server(
                settings, server_entry(plansight), record, say, "mcp", is_setup_form
            )
        after = changed_text(before, settings, JSONC)
    except (ValueError, JsonTextError) as exc:
        raise SetupError(f"{path}: {exc}; nothing changed") from None
    except RecursionError:  # read, but too deep to compare or write again
        raise too_deep(path) from None
    return before, after, FileRecord() if remove else record


def _plugin_change(
    path: Path, plansight: str, remove: bool, say: Say
) -> tuple[str, str | None, FileRecord]:
    """(before, after or None to delete the file, its record)."""
    before = read_text(path)
    record = file_record(path)
    wanted = plugin_text(plansight)
    ours = before in record.blocks or before == wanted or not before
    if remove:
        if before and (before in record.blocks or (not record.kept and before == wanted)):
            return before, None, FileRecord()
        if before:
            say(f"Kept {path}: setup did not write it as it is now.")
        return before, before, FileRecord()
    if not ours:
        say(f"Kept {path}: it differs from what setup writes (move it aside to replace it).")
        return before, before, record
    return before, wanted, FileRecord(kept=True, blocks=[wanted])


def setup_opencode(scope: str, dry_run: bool, remove: bool, plansight: str, say: Say) -> int:
    """Change both files in memory, each checked, then write them (or show the change)."""
    config = config_path(scope)
    plugin = plugin_path(scope)
    config_before, config_after, config_record = _config_change(config, plansight, remove, say)
    plugin_before, plugin_after, plugin_record = _plugin_change(plugin, plansight, remove, say)
    changed = False
    for path, before, after in (
        (config, config_before, config_after),
        (plugin, plugin_before, plugin_after),
    ):
        if after == before:
            say(f"{path}: already as it should be, nothing to change")
            continue
        changed = True
        show_change(path, before, after or "", say)
    if dry_run:
        if changed:
            say("(dry run: nothing changed)")
        return 0
    if config_after != config_before:
        write_with_backup(config, config_after, config.exists(), say)
    save_records({config: config_record})
    if plugin_after is None:
        try:
            plugin.unlink()
        except OSError as exc:
            raise SetupError(f"cannot remove {plugin}: {exc.strerror}") from None
        say(f"removed {plugin}")
    elif plugin_after != plugin_before:
        write_with_backup(plugin, plugin_after, plugin.exists(), say)
    save_records({plugin: plugin_record})
    remember_plan_tools("opencode", scope, not remove, [config])
    if not remove:
        say("OpenCode: its plans now appear in Plansight. Restart running sessions.")
    return 0
