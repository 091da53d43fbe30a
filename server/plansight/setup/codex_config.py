"""What Plansight needs in Codex's `config.toml`: its plan tool turned on (`[tools.update_plan]
enabled = true`: Codex 0.169 to 0.171 offers `update_plan` only then, and without it there is
no plan for the hooks to see) and Plansight's MCP server (`[mcp_servers.plansight]`, as `codex
mcp add` writes it), for a model that is offered no plan tool at all, and the wait for a
starting MCP server long enough for Plansight's (`mcp_optional_startup_grace_ms`, below).

TOML is edited as text, so every other line, comment and layout stays as it was: each
table is appended as a block with a marker comment, and `--remove` takes out exactly the
blocks setup appended (as the record says) if they are still as written. The result is
parsed before it is written, and must hold what the file held plus exactly the tables
added: a file that cannot take them as appended tables (`tools = { web_search = true }`,
an inline table, cannot be extended by a `[tools.update_plan]` header) is refused with
what to write by hand, and nothing changes.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

from plansight.setup.mcp_entry import NAME, command_and_args
from plansight.setup.settings_file import SetupError, too_deep
from plansight.setup.setup_record import FileRecord

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MARKER = "# Added by `plansight setup codex`: Codex offers update_plan only when this is on."
BLOCK = f"{MARKER}\n[tools.update_plan]\nenabled = true\n"
MCP_MARKER = "# Added by `plansight setup codex`: Plansight's plan tools (plansight mcp)."

# Codex captures a turn's tools once, and leaves out an MCP server that is not `required`
# and has not finished starting within `mcp_optional_startup_grace_ms` (default 1,000 ms,
# one wait shared by all the servers still starting: codex-rs `codex-mcp`
# `connection_manager/tool_catalog.rs`, `capture_binding_with_metadata`, "omitting pending
# optional MCP server"). `plansight mcp` answers its tool list in about 0.7 s on an idle
# machine (docs/performance.md) and in several seconds on a loaded one, so the first turn
# could go without Plansight's tools. `required = true` would make Codex wait, but also
# refuse to start at all when the server fails (a Plansight uninstalled): not written.
# The grace is a top-level key: it goes first in the file, before any [table]. Codex's
# own default startup timeout of a server, 10 s, bounds it: a server still starting then
# is one Codex itself would give up on.
GRACE_KEY = "mcp_optional_startup_grace_ms"
GRACE_MS = 10_000
GRACE_BLOCK = (
    "# Added by `plansight setup codex`: how long a turn waits for a starting MCP server "
    "(plansight mcp) before it leaves its tools out (Codex's default: 1000).\n"
    f"{GRACE_KEY} = {GRACE_MS}\n\n"
)


# Codex starts an MCP server with a few variables of its environment only (HOME, PATH,
# ...: codex-rs `rmcp-client`), and `env_vars` names more to pass on. Without these the
# server's store is not the one the hooks (which get Codex's whole environment) write to
# when a person sets `PLANSIGHT_DB` or an XDG folder: the plan of the MCP tool and the
# hooks' events of one conversation would land in two stores (checked with the real Codex).
ENV_VARS = ("PLANSIGHT_DB", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR")


def mcp_block(plansight: str) -> str:
    command, args = command_and_args(plansight)
    # A TOML basic string takes JSON's escapes.
    quoted = ", ".join(json.dumps(arg, ensure_ascii=False) for arg in args)
    names = ", ".join(json.dumps(name) for name in ENV_VARS)
    return (
        f"{MCP_MARKER}\n[mcp_servers.{NAME}]\n"
        f"command = {json.dumps(command, ensure_ascii=False)}\nargs = [{quoted}]\n"
        f"env_vars = [{names}]\n"
    )


def mcp_table(plansight: str) -> dict[str, Any]:
    command, args = command_and_args(plansight)
    return {"command": command, "args": args, "env_vars": list(ENV_VARS)}


def loads(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise too_deep("config.toml") from None
    except tomllib.TOMLDecodeError as exc:
        raise SetupError(f"config.toml is not valid TOML ({exc}); nothing changed") from None


def _table(config: dict[str, Any], *keys: str) -> Any:
    value: Any = config
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def update_plan_enabled(text: str) -> bool | None:
    """What `text` says of `tools.update_plan.enabled` (None: nothing)."""
    enabled = _table(loads(text), "tools", "update_plan", "enabled")
    return enabled if isinstance(enabled, bool) else None


def _append(text: str, block: str) -> tuple[str, str]:
    """`text` with `block` appended after a blank line, and what was appended."""
    separator = (
        "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    )
    return text + separator + block, separator + block


def with_plansight(text: str, plansight: str, record: FileRecord, say: Any) -> str:
    """`text` with the plan tool on and Plansight's MCP server registered; unchanged when
    both are there already."""
    config = loads(text)
    expected = copy.deepcopy(config)
    if not record.kept and "\n" + BLOCK in text:
        record.blocks.append("\n" + BLOCK)  # appended before setup kept records
    plan = _table(config, "tools", "update_plan")
    if plan is not None and (not isinstance(plan, dict) or plan.get("enabled") is not True):
        raise SetupError(
            "config.toml sets tools.update_plan itself; set `enabled = true` in its "
            "[tools.update_plan] table by hand (Plansight sees Codex's plan only then)"
        )
    if plan is None:
        text, appended = _append(text, BLOCK)
        record.blocks.append(appended)
        expected.setdefault("tools", {}).setdefault("update_plan", {})["enabled"] = True
    text = _with_grace(text, config, expected, record, say)
    wanted = mcp_table(plansight)
    present = _table(config, "mcp_servers", NAME)
    if present is None:
        text, appended = _append(text, mcp_block(plansight))
        record.blocks.append(appended)
        expected.setdefault("mcp_servers", {})[NAME] = wanted
    elif present != wanted:
        old = next((b for b in record.blocks if MCP_MARKER in b and b in text), None)
        if old is None:
            say(f"Kept your own [mcp_servers.{NAME}] in config.toml (it differs from setup's).")
        else:  # setup's own, written for a Plansight installed elsewhere
            new = old.replace(old.lstrip("\n"), mcp_block(plansight))
            text = text.replace(old, new, 1)
            record.blocks[record.blocks.index(old)] = new
            expected["mcp_servers"][NAME] = wanted
    _check(text, expected)
    return text


def _with_grace(
    text: str, config: dict[str, Any], expected: dict[str, Any], record: FileRecord, say: Any
) -> str:
    """`text` with setup's startup grace first, unless the file sets one itself."""
    present = config.get(GRACE_KEY)
    if present is None:
        record.blocks.append(GRACE_BLOCK)
        expected[GRACE_KEY] = GRACE_MS
        return GRACE_BLOCK + text
    if present != GRACE_MS and GRACE_BLOCK not in text:
        say(f"Kept your own {GRACE_KEY} = {present} in config.toml (setup's: {GRACE_MS}).")
    return text


def without_plansight(text: str, record: FileRecord, say: Any) -> str:
    """`text` without the blocks setup appended, where they are still as written."""
    if not text:
        return text
    config = loads(text)
    blocks = record.blocks if record.kept else ["\n" + BLOCK, BLOCK]
    for block in blocks:
        at = text.rfind(block)
        if at >= 0:
            text = text[:at] + text[at + len(block) :]
        elif record.kept:
            say("Kept a block setup added to config.toml: it was changed since.")
    if _without_ours(loads(text)) != _without_ours(config):
        raise SetupError("config.toml cannot be changed safely; nothing changed")
    return text


def _without_ours(config: dict[str, Any]) -> dict[str, Any]:
    """`config` without the tables setup adds (and the tables left empty by that): what
    must be the same before and after `--remove`."""
    config = copy.deepcopy(config)
    config.pop(GRACE_KEY, None)
    for parent, key in (("tools", "update_plan"), ("mcp_servers", NAME)):
        table = config.get(parent)
        if isinstance(table, dict):
            table.pop(key, None)
            if not table:
                del config[parent]
    return config


def _check(text: str, expected: dict[str, Any]) -> None:
    """The new text is TOML and holds exactly what the file held plus setup's tables."""
    try:
        result = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SetupError(
            "config.toml cannot take Plansight's tables as appended [tables] "
            f"(it would no longer be valid TOML: {exc}); `tools` or `mcp_servers` is "
            "probably an inline table: add `update_plan = { enabled = true }` to `tools` and "
            f'`{NAME} = {{ command = ..., args = [..., "mcp"] }}` to `mcp_servers` by hand, '
            "or make them [tables]; nothing changed"
        ) from None
    if result != expected:
        raise SetupError("config.toml cannot be changed safely; nothing changed")


def config_path(hooks_file: Path) -> Path:
    """`config.toml` next to the `hooks.json` setup writes."""
    return hooks_file.with_name("config.toml")
