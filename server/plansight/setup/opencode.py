"""`plansight setup opencode`: Plansight's MCP server in OpenCode's config, and a small
OpenCode plugin that sends its plan (the `todowrite` list) to Plansight and tells its model
what a person changed there.

Shapes from OpenCode's own sources (npm `opencode-ai` 1.18.33, its binary's bundled
code; anomalyco/opencode `packages/opencode/src/config`): the config is `opencode.json`
or `opencode.jsonc` (JSON with comments) in `$XDG_CONFIG_HOME/opencode` (`~/.config/
opencode`) or a project's root; an MCP server is `mcp.<name> = {type: "local", command:
[program, ...args], environment?, enabled?, timeout?, cwd?}`. Plugins are the files
`{plugin,plugins}/*.{ts,js}` of the same config folders (a project's: `.opencode/`); a
plugin exports async functions returning hooks, which OpenCode awaits, each with the same
`output` object it then uses: `tool.execute.after({tool, sessionID, callID, args},
{title, output, metadata})`, `chat.message({sessionID, agent, model, messageID,
variant}, {message, parts})`, `experimental.session.compacting({sessionID}, {context,
prompt})` (recorded in `tests/fixtures/hooks/opencode/`).

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

from plansight.hook.agents import OPENCODE
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


# The plugin's JavaScript, with the two names setup fills in (`plugin_text`).
PLUGIN_TEMPLATE = Path(__file__).with_name("opencode_plugin.js")


def plugin_text(plansight: str) -> str:
    """The plugin (`opencode_plugin.js`): `plansight hook opencode` with an event of the
    hook's own shape (Claude Code's field names, `tests/fixtures/hooks/opencode/README.md`)
    from three of OpenCode's plugin hooks, each of which OpenCode awaits, and the reply's
    context put where the model reads it: after a plan or edit tool's result
    (`tool.execute.after`: the Kept line, what a person changed), as a synthetic part of
    the prompt (`chat.message`: what a person changed; the whole plan after a
    compaction), and a compaction noted (`experimental.session.compacting`). Runs are
    chained, in OpenCode's order; one that fails or outlasts the hook's own deadline is
    left behind with nothing told, never thrown to OpenCode (a plugin hook's rejection
    stops its tool call)."""
    command, args = mcp_entry.command_and_args(plansight)
    words = json.dumps([command, *args[:-1]])  # `plansight`, without `mcp`
    tools = json.dumps(sorted((*OPENCODE.plan_tools, *OPENCODE.edit_tools)))
    template = PLUGIN_TEMPLATE.read_text(encoding="utf-8")
    return template.replace("PLANSIGHT_COMMAND", words, 1).replace("PLAN_AND_EDIT_TOOLS", tools, 1)


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
