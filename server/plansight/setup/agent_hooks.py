"""Plansight's entries in an agent's hook settings: what they are, how to add them once,
how to take exactly them out again.

Claude Code (`settings.json`), Codex (`hooks.json`) and Gemini CLI (`settings.json`) share
one shape: `{"hooks": {EVENT: [{"matcher"?: ..., "hooks": [{"type": "command",
"command": ..., "timeout": ...}]}]}}`. They differ in the event names (`plansight.hook.
agents`), the timeout's unit (seconds for Claude Code and Codex, milliseconds for Gemini
CLI) and Gemini's `name`, which its `/hooks` panel shows.
"""

from __future__ import annotations

import re
from typing import Any

from plansight.hook.agents import Agent

# The hook answers within a second on a store another process keeps locked, and gives up
# by itself after 9 s whatever happens; the agent's own limit is only a backstop.
TIMEOUT_SECONDS = 10

# A command that runs `plansight hook AGENT`, whatever the path of the executable (or
# `python -m plansight`) in front of it: exactly the entries `setup` writes.
_OURS = re.compile(r"plansight\S*['\"]?\s+hook\s+(claude-code|codex|gemini)\s*$")


def is_ours(handler: Any) -> bool:
    return (
        isinstance(handler, dict)
        and isinstance(handler.get("command"), str)
        and _OURS.search(handler["command"]) is not None
    )


def wanted_groups(agent: Agent, command: str) -> list[tuple[str, dict[str, Any]]]:
    """Plansight's matcher groups for `agent`, one per event, in the order they are added."""
    handler: dict[str, Any] = {"type": "command", "command": command}
    if agent.name == "gemini":
        handler = {"name": "plansight", **handler, "timeout": TIMEOUT_SECONDS * 1000}
    else:
        handler["timeout"] = TIMEOUT_SECONDS
    groups: list[tuple[str, dict[str, Any]]] = [
        (agent.session_start, {"hooks": [dict(handler)]}),
        (agent.prompt, {"hooks": [dict(handler)]}),
        (agent.after_tool, {"matcher": agent.tool_matcher, "hooks": [dict(handler)]}),
    ]
    if agent.compression is not None:
        event, trigger = agent.compression
        groups.append((event, {"matcher": trigger, "hooks": [dict(handler)]}))
    return groups


def _our_groups(settings: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    return [
        (event, group)
        for event, groups in hooks.items()
        if isinstance(groups, list)
        for group in groups
        if isinstance(group, dict)
        and isinstance(group.get("hooks"), list)
        and any(is_ours(handler) for handler in group["hooks"])
    ]


def without_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` with every Plansight hook handler taken out, and the groups, event lists
    and `hooks` object that held nothing else."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return settings
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list) and any(is_ours(h) for h in handlers):
                rest = [h for h in handlers if not is_ours(h)]
                if not rest:
                    continue
                group = {**group, "hooks": rest}
            kept_groups.append(group)
        if kept_groups or not groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not hooks:
        del settings["hooks"]
    return settings


def with_ours(settings: dict[str, Any], agent: Agent, command: str) -> dict[str, Any]:
    """`settings` holding exactly Plansight's groups for `agent`: unchanged when it already
    does (twice is once), else the old entries out and the wanted ones appended."""
    wanted = wanted_groups(agent, command)
    if sorted(_our_groups(settings), key=repr) == sorted(wanted, key=repr):
        return settings
    settings = without_ours(settings)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("`hooks` is not an object")
    for event, group in wanted:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ValueError(f"`hooks.{event}` is not a list")
        groups.append(group)
    return settings
