"""Whether Codex trusts Plansight's hooks, read from Codex's own files without starting it.

Codex (0.171) runs a hook from `hooks.json` only once the person reviewed it in `/hooks`,
which writes `[hooks.state."<key>"] trusted_hash = "<hash>"` into the user's `config.toml`
(tests/fixtures/setup/codex-hook-trust.toml). A hook whose current hash differs (new, or
changed since) does not run. Asking Codex's app server, as `plansight doctor` does, takes
seconds; this reads two small files, so the MCP server can ask at every tool call.

The key and the hash are Codex's (codex-rs/hooks/src/engine/discovery.rs): the key is
`<hooks.json path>:<event, snake_case>:<group index>:<handler index>`; the hash is
`sha256:` + the SHA-256 of the compact, key-sorted JSON of the hook's normalized identity
`{"event_name", "matcher"?, "hooks": [{"type": "command", "command", "timeout", "async",
"statusMessage"?}]}` (codex-rs/config/src/fingerprint.rs `version_for_toml`), the timeout
600 s when unset, the matcher dropped for events that take none. tests/agent_clis checks
both against what Codex's own app server lists.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any, Literal

from plansight.regular_file import NotReadable, read_bounded

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

Trust = Literal["trusted", "untrusted"]

# Both files are small; a larger one is not Codex's as it writes it, and is not read.
_LIMIT = 4 * 1024 * 1024
_DEFAULT_TIMEOUT = 600
# The events whose matcher Codex keeps (common.rs `matcher_pattern_for_event`).
_MATCHED = {"PreToolUse", "PermissionRequest", "PostToolUse", "SessionStart"}
_EVENTS = {
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
}


def plansight_hook_trust(codex_home: Path, project: Path) -> Trust | None:
    """`trusted` when Codex would run every Plansight hook it finds (the user's
    `hooks.json`, and the project's), `untrusted` when it would skip one (never reviewed,
    changed since, or turned off); None when there is none or a file cannot be read, so
    nothing is claimed that Codex may not see the same way."""
    try:
        states = _hook_states(codex_home / "config.toml")
        hooks = [
            hook
            for folder in (codex_home, project / ".codex")
            for hook in plansight_hooks(folder / "hooks.json")
        ]
    except (NotReadable, OSError, ValueError):
        return None
    if not hooks:
        return None
    for key, current in hooks:
        state = states.get(key, {})
        if state.get("enabled") is False or state.get("trusted_hash") != current:
            return "untrusted"
    return "trusted"


def _hook_states(config: Path) -> dict[str, dict[str, Any]]:
    """`[hooks.state]` of Codex's user config.toml, by key."""
    data = read_bounded(config, _LIMIT)
    if data is None:
        return {}
    hooks = tomllib.loads(data.decode("utf-8")).get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    if not isinstance(states, dict):
        return {}
    return {key.strip(): value for key, value in states.items() if isinstance(value, dict)}


def plansight_hooks(hooks_file: Path) -> list[tuple[str, str]]:
    """The key and current hash of each Plansight handler in a `hooks.json`."""
    data = read_bounded(hooks_file, _LIMIT)
    if data is None:
        return []
    events = json.loads(data.decode("utf-8")).get("hooks")
    if not isinstance(events, dict):
        return []
    found: list[tuple[str, str]] = []
    for event, groups in events.items():
        if event not in _EVENTS or not isinstance(groups, list):
            continue
        for group_index, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                continue
            matcher = group.get("matcher") if event in _MATCHED else None
            for handler_index, handler in enumerate(handlers):
                if runs_plansight_hook(handler):
                    key = f"{hooks_file}:{_snake(event)}:{group_index}:{handler_index}"
                    found.append((key, hook_hash(event, matcher, handler)))
    return found


def hook_hash(event: str, matcher: Any, handler: dict[str, Any]) -> str:
    """Codex's `currentHash` of a command handler (discovery.rs `command_hook_hash`)."""
    timeout = handler.get("timeout")
    normalized: dict[str, Any] = {
        "type": "command",
        "command": handler["command"],
        "timeout": max(timeout if isinstance(timeout, int) else _DEFAULT_TIMEOUT, 1),
        "async": handler.get("async") is True,
    }
    if isinstance(handler.get("statusMessage"), str):
        normalized["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": _snake(event), "hooks": [normalized]}
    if isinstance(matcher, str):  # TOML has no null: Codex's hash leaves it out
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def codex_home() -> Path:
    """Where Codex keeps its files (as `plansight setup` finds them)."""
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def runs_plansight_hook(handler: Any) -> bool:
    """The handler runs Plansight's Codex hook, in setup's form or the person's own
    (`PLANSIGHT_DB=... plansight hook codex`): as `plansight doctor` counts them."""
    command = handler.get("command") if isinstance(handler, dict) else None
    try:
        words = shlex.split(command) if isinstance(command, str) else []
    except ValueError:
        return False
    for index, word in enumerate(words):
        is_plansight = os.path.basename(word) in ("plansight", "plansight.exe")
        if is_plansight and words[index + 1 : index + 3] == ["hook", "codex"]:
            return True
        if word == "-m" and words[index + 1 : index + 4] == ["plansight", "hook", "codex"]:
            return True
    return False


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()
