"""Plansight's entries in an agent's hook settings: what they are, how to add them once,
how to take exactly them out again.

Claude Code (`settings.json`), Codex (`hooks.json`) and Gemini CLI (`settings.json`) share
one shape: `{"hooks": {EVENT: [{"matcher"?: ..., "hooks": [{"type": "command",
"command": ..., "timeout": ...}]}]}}`. They differ in the event names (`plansight.hook.
agents`), the timeout's unit (seconds for Claude Code and Codex, milliseconds for Gemini
CLI) and Gemini's `name`, which its `/hooks` panel shows.

A handler is setup's own only in the form setup writes: `<path>/plansight hook AGENT` or
`<python> -m plansight hook AGENT`, nothing before or after. A command that runs Plansight's
hook another way (`PLANSIGHT_DB=... plansight hook codex`, a wrapper) is the person's: it
is never replaced or removed, and its event gets no second Plansight hook.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from plansight.hook.hooked_agents import Agent
from plansight.setup.setup_record import FileRecord

# The hook answers within a second on a store another process keeps locked, and gives up
# by itself after 9 s whatever happens; the agent's own limit is only a backstop.
TIMEOUT_SECONDS = 10

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _words(handler: Any) -> list[str] | None:
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return None
    try:
        return shlex.split(handler["command"])
    except ValueError:
        return None


def _is_plansight(word: str) -> bool:
    return os.path.basename(word) in ("plansight", "plansight.exe")


def _runs_hook(words: list[str], agent: Agent) -> bool:
    """`words` are exactly setup's form of running the hook of `agent`."""
    if len(words) == 3 and _is_plansight(words[0]):
        return words[1:] == ["hook", agent.name]
    if len(words) == 5 and words[1:3] == ["-m", "plansight"]:
        return words[3:] == ["hook", agent.name]
    return False


def is_ours(handler: Any, agent: Agent) -> bool:
    """The handler is in the form setup writes for `agent`."""
    words = _words(handler)
    return words is not None and _runs_hook(words, agent)


def is_customised(handler: Any, agent: Agent) -> bool:
    """The handler runs Plansight's hook for `agent`, but not in setup's form: the person's."""
    words = _words(handler)
    if words is None or _runs_hook(words, agent):
        return False
    while words and (_ASSIGNMENT.match(words[0]) or words[0] == "env"):
        words = words[1:]
    for index, word in enumerate(words):
        if _is_plansight(word) and words[index + 1 : index + 3] == ["hook", agent.name]:
            return True
        if word == "-m" and words[index + 1 : index + 4] == ["plansight", "hook", agent.name]:
            return True
    return False


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
    if agent.model_request is not None:
        groups.append((agent.model_request, {"hooks": [dict(handler)]}))
    if agent.turn_end is not None:
        groups.append((agent.turn_end, {"hooks": [dict(handler)]}))
    return groups


def _groups(settings: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    return [
        (event, group)
        for event, groups in hooks.items()
        if isinstance(groups, list)
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
    ]


def _events_where(settings: dict[str, Any], test: Any) -> set[str]:
    return {event for event, group in _groups(settings) if any(test(h) for h in group["hooks"])}


def hooked_events(settings: dict[str, Any], agent: Agent) -> set[str]:
    """The events that hold a handler in setup's form for `agent`."""
    return _events_where(settings, lambda handler: is_ours(handler, agent))


def stale_compression_matcher(settings: dict[str, Any], agent: Agent) -> str | None:
    """The matcher of setup's compression hook when an earlier Plansight wrote it other
    than now (Copilot's `manual`, before its own compaction's `auto` was heard)."""
    if agent.compression is None:
        return None
    event, wanted = agent.compression
    for name, group in _groups(settings):
        if name == event and any(is_ours(handler, agent) for handler in group["hooks"]):
            matcher = group.get("matcher")
            if matcher != wanted:
                return str(matcher)
    return None


def customised_events(settings: dict[str, Any], agent: Agent) -> set[str]:
    """The events where the person runs Plansight's hook their own way."""
    return _events_where(settings, lambda handler: is_customised(handler, agent))


def without_ours(
    settings: dict[str, Any], agent: Agent, events: set[str] | None = None
) -> dict[str, Any]:
    """`settings` with setup's handlers for `agent` taken out (of `events` only, when
    given), and the groups and event lists that held nothing else."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return settings
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list) or (events is not None and event not in events):
            continue
        remaining_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list) and any(is_ours(h, agent) for h in handlers):
                rest = [h for h in handlers if not is_ours(h, agent)]
                if not rest:
                    continue
                group = {**group, "hooks": rest}
            remaining_groups.append(group)
        if remaining_groups or not groups:
            hooks[event] = remaining_groups
        else:
            del hooks[event]
    return settings


def with_ours(
    settings: dict[str, Any], agent: Agent, command: str, record: FileRecord, say: Any
) -> dict[str, Any]:
    """`settings` holding exactly Plansight's groups for `agent` (unchanged when it already
    does: twice is once), except at events where the person runs the hook their own way;
    `record` learns the events setup added a hook to."""
    before = hooked_events(settings, agent)
    if not record.kept:  # set up before records were kept: its entries are setup's
        record.hook_events.extend(before)
    own = customised_events(settings, agent)
    for event in sorted(own):
        say(f"Kept your own Plansight hook for {event} (not in setup's form); none added there.")
    wanted = [(event, group) for event, group in wanted_groups(agent, command) if event not in own]
    present = [
        (event, group)
        for event, group in _groups(settings)
        if any(is_ours(handler, agent) for handler in group["hooks"])
    ]
    if sorted(present, key=repr) == sorted(wanted, key=repr):
        return settings
    if "hooks" not in settings:
        record.created.append("hooks")
    settings = without_ours(settings, agent)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("`hooks` is not an object")
    for event, group in wanted:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ValueError(f"`hooks.{event}` is not a list")
        groups.append(group)
        if event not in before:
            record.hook_events.append(event)
    return settings


def without_recorded(settings: dict[str, Any], agent: Agent, record: FileRecord) -> dict[str, Any]:
    """`settings` without the hooks setup added (as `record` says; with no record, every
    handler in setup's form), and without a `hooks` object setup created and left empty."""
    events = set(record.hook_events) if record.kept else None
    settings = without_ours(settings, agent, events)
    if settings.get("hooks") == {} and ("hooks" in record.created or not record.kept):
        del settings["hooks"]
    return settings
