"""`plansight setup TARGET [--scope user|project] [--dry-run] [--remove]`.

For an agent, every file is changed in memory first (hooks, the plan tool's switch, the MCP
server), each checked; only when all of them can be changed safely are the files written,
each followed by the record of what setup added to it. A file that cannot be changed
safely stops setup before anything is written.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plansight.hook.copilot_todos import copilot_home
from plansight.hook.hooked_agents import AGENTS, Agent
from plansight.paths import workspace_root
from plansight.setup import codex_config, mcp_entry
from plansight.setup.agent_hooks import with_ours, without_recorded
from plansight.setup.editors import setup_nvim, setup_vscode
from plansight.setup.json_text import STRICT, WITH_COMMENTS, Dialect, JsonTextError, changed_text
from plansight.setup.settings_file import (
    SetupError,
    read_text,
    settings_of,
    show_change,
    too_deep,
    write_with_backup,
)
from plansight.setup.setup_record import FileRecord, file_record, remember_plan_tools, save_records

__all__ = ["SetupError", "run_setup"]


def _say(line: str) -> None:
    print(line, flush=True)


@dataclass(slots=True)
class FileChange:
    path: Path
    before: str
    after: str
    record: FileRecord


def run_setup(target: str, scope: str, dry_run: bool, remove: bool) -> int:
    if target == "nvim":
        return setup_nvim(remove, _say)
    if target == "vscode":
        return setup_vscode(dry_run, remove, _say)
    if target == "opencode":
        from plansight.setup.opencode_setup import setup_opencode

        setup_opencode(scope, dry_run, remove, plansight_command(), _say)
        return 0
    agent = AGENTS[target]
    changes = planned_changes(agent, scope, plansight_command(), remove)
    for change in changes:
        if change.after == change.before:
            _say(f"{change.path}: already as it should be, nothing to change")
        else:
            show_change(change.path, change.before, change.after, _say)
    if dry_run:
        if any(change.after != change.before for change in changes):
            _say("(dry run: nothing changed)")
        return 0
    for change in changes:
        if _emptied_own_file(agent, change):
            _remove_file(change.path)
        elif change.after != change.before:
            write_with_backup(change.path, change.after, change.path.exists(), _say)
        # Recorded once written: a record of what a failed write never added could later
        # take the person's own entry for setup's. (Written but not recorded, an entry in
        # setup's exact form is still found by --remove; a switch is left, and said.)
        save_records({change.path: change.record})
    # Copilot's MCP server is registered for the user only (`copilot_mcp_path`).
    if agent.name != "copilot" or scope == "user":
        # Codex's entry is a TOML block of its config (a record's `blocks`, not `mcp`).
        registered_in = [c.path for c in changes if c.record.mcp or c.path.suffix == ".toml"]
        if remove:
            registered_in = [change.path for change in changes]
        remember_plan_tools(agent.name, scope, not remove, registered_in)
    if remove:
        return 0
    _after_install(agent, scope, [c.path for c in changes if c.after != c.before])
    return 0


def planned_changes(agent: Agent, scope: str, plansight: str, remove: bool) -> list[FileChange]:
    """Every file setup changes for `agent`, as it would be, checked."""
    hooks_file = settings_path(agent, scope)
    hook_command = f"{plansight} hook {agent.name}"
    server = mcp_entry.server_entry(agent.name, plansight)

    def hooks_edit(settings: dict[str, Any], record: FileRecord) -> dict[str, Any]:
        if remove:
            settings = without_recorded(settings, agent, record)
            settings = without_switches(agent, settings, record)
            if agent.name == "gemini":
                settings = mcp_entry.without_server(settings, record, _say)
            return settings
        settings = with_switches(
            agent, with_ours(settings, agent, hook_command, record, _say), record
        )
        if agent.name == "gemini":  # hooks and MCP servers share Gemini's settings.json
            settings = mcp_entry.with_server(settings, server, record, _say)
        return settings

    def server_edit(settings: dict[str, Any], record: FileRecord) -> dict[str, Any]:
        if remove:
            return mcp_entry.without_server(settings, record, _say)
        return mcp_entry.with_server(settings, server, record, _say)

    dialect = WITH_COMMENTS if agent.name == "gemini" else STRICT
    if agent.name == "codex":
        # Checked first: a config.toml Plansight cannot change leaves hooks.json alone too.
        config = codex_config.config_path(hooks_file)
        return [
            _toml_change(config, plansight, remove),
            _json_change(hooks_file, hooks_edit, dialect, remove),
        ]
    changes = [_json_change(hooks_file, hooks_edit, dialect, remove)]
    if agent.name == "claude-code":
        changes.append(_json_change(claude_mcp_path(scope), server_edit, STRICT, remove))
    if agent.name == "copilot" and scope == "user":
        changes.append(_json_change(copilot_mcp_path(), server_edit, STRICT, remove))
    return changes


def _json_change(
    path: Path,
    edit: Callable[[dict[str, Any], FileRecord], dict[str, Any]],
    dialect: Dialect,
    remove: bool,
) -> FileChange:
    before = read_text(path)
    settings = settings_of(path, before, dialect)
    record = file_record(path)
    try:
        after = changed_text(before, edit(settings, record), dialect)
    except (ValueError, JsonTextError) as exc:
        raise SetupError(f"{path}: {exc}; nothing changed") from None
    except RecursionError:  # read, but too deep to compare or write again
        raise too_deep(path) from None
    # Removed: the file's record is forgotten (what the person changed stays theirs).
    return FileChange(path, before, after, FileRecord() if remove else record)


def _emptied_own_file(agent: Agent, change: FileChange) -> bool:
    """Copilot's hooks file is Plansight's own (`plansight.json` in a folder of hook
    files): once `--remove` leaves it holding nothing, it goes, as it came."""
    return (
        agent.name == "copilot"
        and change.path.name == COPILOT_HOOKS_FILE
        and change.after.strip() in ("", "{}")
        and change.before.strip() != change.after.strip()
    )


def _remove_file(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise SetupError(f"cannot remove {path}: {exc.strerror}") from None
    _say(f"removed {path}")


def _toml_change(path: Path, plansight: str, remove: bool) -> FileChange:
    before = read_text(path)
    record = file_record(path)
    try:
        if remove:
            return FileChange(
                path, before, codex_config.without_plansight(before, record, _say), FileRecord()
            )
        after = codex_config.with_plansight(before, plansight, record, _say)
    except RecursionError:  # read, but too deep to copy or compare
        raise too_deep(path) from None
    return FileChange(path, before, after, record)


# Claude Code 2.1 offers its plan tools (TaskCreate, TaskUpdate, TodoWrite) to the newest
# models only when this is set (to older models always): without it there is no plan.
CLAUDE_TODO_SWITCH = ("CLAUDE_CODE_ENABLE_TODO_TOOLS", "true")


def with_switches(agent: Agent, settings: dict[str, Any], record: FileRecord) -> dict[str, Any]:
    """The agent's own switches its plan tool needs, in the same settings file."""
    if agent.name == "claude-code":
        if "env" not in settings:
            record.created.append("env")
        env = settings.setdefault("env", {})
        if not isinstance(env, dict):
            raise ValueError("`env` is not an object")
        name, value = CLAUDE_TODO_SWITCH
        if name not in env:
            env[name] = value
            record.env[name] = value
        elif env[name] != value:
            _say(f"Note: {name} is set to {env[name]!r} here; Claude's plan tools need 'true'.")
    return settings


def without_switches(agent: Agent, settings: dict[str, Any], record: FileRecord) -> dict[str, Any]:
    """Without the switches setup set (and still as it set them); the person's stay."""
    env = settings.get("env")
    if agent.name != "claude-code" or not isinstance(env, dict):
        return settings
    name, value = CLAUDE_TODO_SWITCH
    if name in record.env and env.get(name) == record.env[name]:
        del env[name]
    elif env.get(name) == value:
        _say(f"Left {name} in env: setup has no record of setting it.")
    if not env and "env" in record.created:
        del settings["env"]
    return settings


def settings_path(agent: Agent, scope: str) -> Path:
    """The settings file each agent reads its hooks from, for the user or the project."""
    project = workspace_root()
    home = Path.home()
    if agent.name == "claude-code":
        return (project / ".claude" if scope == "project" else claude_home()) / "settings.json"
    if agent.name == "codex":
        return (project / ".codex" if scope == "project" else codex_home()) / "hooks.json"
    if agent.name == "copilot":
        # Copilot CLI and VS Code's agent mode both read every `*.json` of a project's
        # `.github/hooks/` and of the user's `~/.copilot/hooks/` (`$COPILOT_HOME/hooks`).
        folder = project / ".github" if scope == "project" else copilot_home()
        return folder / "hooks" / COPILOT_HOOKS_FILE
    return (project if scope == "project" else home) / ".gemini" / "settings.json"


def claude_home() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


COPILOT_HOOKS_FILE = "plansight.json"


def copilot_mcp_path() -> Path:
    """Where `copilot mcp add` writes (Copilot CLI's user MCP servers)."""
    return copilot_home() / "mcp-config.json"


def claude_mcp_path(scope: str) -> Path:
    """Where `claude mcp add --scope user|project` writes: `~/.claude.json` (inside
    `$CLAUDE_CONFIG_DIR` when that is set), or the project's `.mcp.json`."""
    if scope == "project":
        return workspace_root() / ".mcp.json"
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(configured) if configured else Path.home()) / ".claude.json"


def plansight_command() -> str:
    """How the agent should run this Plansight: `plansight` when that name on PATH is this
    very executable, else its full path (a pipx or virtualenv install the agent's PATH
    may not have), else `python -m plansight`."""
    running = Path(sys.argv[0])
    if running.name in ("plansight", "plansight.exe") and running.exists():
        on_path = shutil.which("plansight")
        if on_path and Path(on_path).resolve() == running.resolve():
            return "plansight"
        return shlex.quote(str(running.resolve()))
    return f"{shlex.quote(sys.executable)} -m plansight"


def _after_install(agent: Agent, scope: str, changed: list[Path]) -> None:
    """What the person still has to know: the agent's own switches and reviews. Hooks that
    did not change are not new to review: the doctor's word that follows says whether
    Codex trusts those already there."""
    path = settings_path(agent, scope)
    if agent.name == "codex" and path in changed:
        _say(
            "Codex runs new or changed hooks only after you review them: start `codex` and "
            "open /hooks to trust Plansight's."
        )
    if agent.name == "copilot" and scope == "project":
        _say(
            "Copilot CLI runs a project's hooks only in a folder you trusted; in prompt mode "
            "(-p) also only with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=1."
        )
    if agent.name == "gemini":
        settings = settings_of(path, read_text(path), WITH_COMMENTS)
        hooks_config = settings.get("hooksConfig")
        if isinstance(hooks_config, dict) and hooks_config.get("enabled") is False:
            _say(f"Hooks are turned off in {path} (hooksConfig.enabled = false): turn them on.")
        if scope == "project":
            _say("Gemini CLI runs a project's hooks only in a trusted folder (/permissions).")
    if changed:
        _say(f"{agent.label}: its plans now appear in Plansight. Restart running sessions.")
    else:
        _say(f"{agent.label}: already set up, nothing changed.")
