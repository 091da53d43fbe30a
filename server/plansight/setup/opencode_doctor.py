"""`plansight doctor`'s lines for OpenCode: Plansight's MCP server in its config (and that
its command runs) and Plansight's plugin in its plugin folder (user or project scope)."""

from __future__ import annotations

import shutil
from pathlib import Path

from plansight.setup.findings import Finding
from plansight.setup.json_text import JSONC
from plansight.setup.mcp_check import entry_finding
from plansight.setup.opencode import NAME, config_folder, config_path, plugin_path
from plansight.setup.record import recorded
from plansight.setup.settings_file import SetupError, read_text, settings_of


def opencode_found() -> bool:
    return shutil.which("opencode") is not None or config_folder("user").is_dir()


def opencode_findings() -> tuple[list[Finding], bool]:
    """The findings, and whether Plansight was set up for OpenCode (its entry or its plugin
    is there, or a config that may hold the entry cannot be read)."""
    fix = "plansight setup opencode"
    findings: list[Finding] = []
    server: Finding | None = None
    for scope in ("project", "user"):
        path = config_path(scope)
        try:
            text = read_text(path)
            servers = settings_of(path, text, JSONC).get("mcp")
        except SetupError as exc:
            findings.append(Finding(False, str(exc), f"fix {path} by hand"))
            continue
        entry = servers.get(NAME) if isinstance(servers, dict) else None
        if server is None and isinstance(entry, dict):
            server = entry_finding("opencode", path, entry, text)
    plugins = [plugin_path(scope) for scope in ("project", "user")]
    plugin = next((path for path in plugins if path.is_file()), None)
    findings += [
        server or Finding(False, "Plansight's MCP server is not in OpenCode's config", fix),
        _plugin_finding(plugin, fix),
    ]
    configs = [config_path(scope) for scope in ("project", "user")]
    set_up = bool(findings[:-2]) or server is not None or plugin is not None
    return findings, set_up or any(recorded(path) for path in configs + plugins)


# What the plugin of this Plansight runs; the one earlier versions wrote ran `ingest` only.
HOOK_WORDS = '"hook", "opencode"'


def _plugin_finding(plugin: Path | None, fix: str) -> Finding:
    if plugin is None:
        return Finding(False, "no plan plugin: OpenCode's todowrite lists do not arrive", fix)
    try:
        text = read_text(plugin)
    except SetupError as exc:
        return Finding(False, str(exc), f"fix {plugin} by hand")
    if HOOK_WORDS not in text and "opencode-todos" in text:
        return Finding(
            False,
            f"plan plugin in {plugin} is an earlier Plansight's: it sends the plan, but"
            " OpenCode's model is not told what you change",
            fix,
        )
    return Finding(True, f"plan plugin in {plugin} (tool.execute.after, chat.message)")
