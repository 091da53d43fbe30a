"""`plansight doctor`'s lines for OpenCode: Plansight's MCP server in its config and
Plansight's plugin in its plugin folder (user or project scope)."""

from __future__ import annotations

import shutil

from plansight.setup.findings import Finding
from plansight.setup.opencode import config_folder, config_path, plugin_path, registered


def opencode_found() -> bool:
    return shutil.which("opencode") is not None or config_folder("user").is_dir()


def opencode_findings() -> list[Finding]:
    fix = "plansight setup opencode"
    scopes = {scope: registered(scope) for scope in ("project", "user")}
    server = [scope for scope, (has_server, _) in scopes.items() if has_server]
    plugin = [scope for scope, (_, has_plugin) in scopes.items() if has_plugin]
    return [
        Finding(True, f"MCP server registered in {config_path(server[0])}")
        if server
        else Finding(False, "Plansight's MCP server is not in OpenCode's config", fix),
        Finding(True, f"plan plugin in {plugin_path(plugin[0])} (todo.updated)")
        if plugin
        else Finding(False, "no plan plugin: OpenCode's todowrite lists do not arrive", fix),
    ]
