"""`plansight setup TARGET [--scope user|project] [--dry-run] [--remove]`."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from plansight.hook.agents import AGENTS, Agent
from plansight.paths import workspace_root
from plansight.setup.agent_hooks import with_ours, without_ours
from plansight.setup.codex_config import config_path, with_update_plan, without_update_plan
from plansight.setup.editors import setup_nvim, setup_vscode
from plansight.setup.settings_file import SetupError, change_file, change_settings, read_settings

__all__ = ["SetupError", "run_setup"]


def _say(line: str) -> None:
    print(line, flush=True)


def run_setup(target: str, scope: str, dry_run: bool, remove: bool) -> int:
    if target == "nvim":
        return setup_nvim(plansight_command(), remove, _say)
    if target == "vscode":
        return setup_vscode(dry_run, remove, _say)
    agent = AGENTS[target]
    path = settings_path(agent, scope)
    command = f"{plansight_command()} hook {agent.name}"

    def edit(settings: dict[str, Any]) -> dict[str, Any]:
        try:
            if remove:
                return without_switches(agent, without_ours(settings))
            return with_switches(agent, with_ours(settings, agent, command))
        except ValueError as exc:
            raise SetupError(f"{path}: {exc}; nothing changed") from None

    if agent.name == "codex":
        # The plan tool's switch lives in config.toml, next to hooks.json; checked first,
        # so that a config.toml Plansight cannot change leaves hooks.json alone too.
        edit_text = without_update_plan if remove else with_update_plan
        edit_text(_text_of(config_path(path)))
    change_settings(path, edit, dry_run, _say)
    if agent.name == "codex":
        change_file(config_path(path), edit_text, dry_run, _say)
    if not remove:
        _after_install(agent, path, scope)
    return 0


# Claude Code 2.1 offers its plan tools (TaskCreate, TaskUpdate, TodoWrite) to the newest
# models only when this is set (to older models always): without it there is no plan.
CLAUDE_TODO_SWITCH = ("CLAUDE_CODE_ENABLE_TODO_TOOLS", "true")


def with_switches(agent: Agent, settings: dict[str, Any]) -> dict[str, Any]:
    """The agent's own switches its plan tool needs, in the same settings file."""
    if agent.name == "claude-code":
        env = settings.setdefault("env", {})
        if not isinstance(env, dict):
            raise ValueError("`env` is not an object")
        name, value = CLAUDE_TODO_SWITCH
        if name not in env:
            env[name] = value
        elif env[name] != value:
            _say(f"Note: {name} is set to {env[name]!r} here; Claude's plan tools need 'true'.")
    return settings


def without_switches(agent: Agent, settings: dict[str, Any]) -> dict[str, Any]:
    env = settings.get("env")
    if agent.name == "claude-code" and isinstance(env, dict):
        name, value = CLAUDE_TODO_SWITCH
        if env.get(name) == value:
            del env[name]
            if not env:
                del settings["env"]
    return settings


def _text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise SetupError(f"cannot read {path}: {exc.__class__.__name__}; nothing changed") from None


def settings_path(agent: Agent, scope: str) -> Path:
    """The settings file each agent reads its hooks from, for the user or the project."""
    project = workspace_root()
    home = Path.home()
    if agent.name == "claude-code":
        base = Path(os.environ.get("CLAUDE_CONFIG_DIR") or home / ".claude")
        return (project / ".claude" if scope == "project" else base) / "settings.json"
    if agent.name == "codex":
        base = Path(os.environ.get("CODEX_HOME") or home / ".codex")
        return (project / ".codex" if scope == "project" else base) / "hooks.json"
    return (project if scope == "project" else home) / ".gemini" / "settings.json"


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


def _after_install(agent: Agent, path: Path, scope: str) -> None:
    """What the person still has to know: the agent's own switches and reviews."""
    _, settings = read_settings(path)
    if agent.name == "codex":
        _say(
            "Codex runs new or changed hooks only after you review them: start `codex` and "
            "open /hooks to trust Plansight's."
        )
    if agent.name == "gemini":
        hooks_config = settings.get("hooksConfig")
        if isinstance(hooks_config, dict) and hooks_config.get("enabled") is False:
            _say(f"Hooks are turned off in {path} (hooksConfig.enabled = false): turn them on.")
        if scope == "project":
            _say("Gemini CLI runs a project's hooks only in a trusted folder (/permissions).")
    _say(f"{agent.label}: its plans now appear in Plansight. Restart running sessions.")
