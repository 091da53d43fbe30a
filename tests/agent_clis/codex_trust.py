"""The person's review of Codex's new hooks (`/hooks` in its TUI, which a test cannot
click), done as Codex records it: each hook's current hash under `[hooks.state."<key>"]` in
`config.toml` (tests/fixtures/setup/codex-hook-trust.toml), the keys and hashes from Codex's
own app server (`hooks/list`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from agent_home import RUN_TIMEOUT, AgentHome, agent_cli

from plansight.setup.codex_config import tomllib


def trust_every_hook(person: AgentHome, codex_home: Path) -> None:
    """Trust every hook Codex lists, as the person does once in `/hooks`."""
    hooks = codex_hooks(person, codex_home)
    config = codex_home / "config.toml"
    tables = "".join(
        f"\n[hooks.state.{json.dumps(hook['key'])}]\ntrusted_hash = {json.dumps(hook['currentHash'])}\n"
        for hook in hooks
    )
    config.write_text(config.read_text() + tables)
    tomllib.loads(config.read_text())


def codex_hooks(person: AgentHome, codex_home: Path) -> list[dict[str, str]]:
    """The hooks Codex's app server lists for the project, with their keys and hashes."""
    hooks: list[dict[str, str]] = hooks_listing(person, codex_home)["hooks"]
    return hooks


def hooks_listing(person: AgentHome, codex_home: Path) -> dict[str, Any]:
    """What Codex's app server answers to `hooks/list` for the project: its hooks, and the
    errors and warnings it found reading them."""
    server = subprocess.Popen(
        [agent_cli("codex"), "app-server"],
        cwd=person.project,
        env=person.env(CODEX_HOME=str(codex_home)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    messages = [
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "1"}}},
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(person.project)]}},
    ]
    try:
        for message in messages:
            server.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        server.stdin.flush()
        for line in server.stdout:
            reply = json.loads(line)
            if reply.get("id") == 2:
                listing: dict[str, Any] = reply["result"]["data"][0]
                return listing
    finally:
        server.kill()
        server.wait(RUN_TIMEOUT)
    raise AssertionError("Codex's app server did not list the hooks")
