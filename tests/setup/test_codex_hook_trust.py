"""Whether Codex trusts Plansight's hooks, read from Codex's files as Codex 0.171 writes
them (tests/fixtures/setup: `hooks/list` of `codex app-server` and the `[hooks.state]`
table `/hooks` adds), without starting Codex: what the MCP server and `watch` rely on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from plansight.codex_hook_trust import hook_hash, plansight_hook_trust, plansight_hooks

FIXTURES = Path(__file__).parent.parent / "fixtures" / "setup"


def _setup_codex(home: Path, project: Path) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "plansight", "setup", "codex"],
        cwd=project,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return home / ".codex"


def _trust(codex_home: Path, hooks: list[tuple[str, str]], extra: str = "") -> None:
    """What `/hooks` appends to config.toml once the person trusts the hooks."""
    config = codex_home / "config.toml"
    tables = "".join(
        f"\n[hooks.state.{json.dumps(key)}]\ntrusted_hash = {json.dumps(value)}\n{extra}"
        for key, value in hooks
    )
    config.write_text(config.read_text() + tables)


def test_the_hash_is_the_one_codex_lists() -> None:
    listed = json.loads((FIXTURES / "codex-hooks-list.json").read_text())
    handler = {"type": "command", "command": listed["command"], "timeout": listed["timeoutSec"]}
    assert hook_hash("PostToolUse", listed["matcher"], handler) == listed["currentHash"]
    recorded = (FIXTURES / "codex-hook-trust.toml").read_text()
    assert f'trusted_hash = "{listed["currentHash"]}"' in recorded


def test_new_hooks_are_untrusted_until_the_person_trusts_them(home: Path, project: Path) -> None:
    codex_home = _setup_codex(home, project)
    hooks = plansight_hooks(codex_home / "hooks.json")
    events = sorted(key.split(":")[-3] for key, _ in hooks)
    assert events == ["post_tool_use", "session_start", "stop", "user_prompt_submit"]
    assert all(key.startswith(f"{codex_home / 'hooks.json'}:") for key, _ in hooks)
    assert plansight_hook_trust(codex_home, project) == "untrusted"
    _trust(codex_home, hooks)
    assert plansight_hook_trust(codex_home, project) == "trusted"


def test_a_hook_changed_since_the_review_is_untrusted(home: Path, project: Path) -> None:
    codex_home = _setup_codex(home, project)
    _trust(codex_home, plansight_hooks(codex_home / "hooks.json"))
    hooks_file = codex_home / "hooks.json"
    hooks_file.write_text(hooks_file.read_text().replace('"timeout": 10', '"timeout": 20'))
    assert plansight_hook_trust(codex_home, project) == "untrusted"


def test_a_hook_turned_off_in_hooks_does_not_run(home: Path, project: Path) -> None:
    codex_home = _setup_codex(home, project)
    _trust(codex_home, plansight_hooks(codex_home / "hooks.json"), "enabled = false\n")
    assert plansight_hook_trust(codex_home, project) == "untrusted"


def test_nothing_is_claimed_when_the_files_cannot_tell(home: Path, project: Path) -> None:
    codex_home = home / ".codex"
    assert plansight_hook_trust(codex_home, project) is None  # no hooks at all
    codex_home = _setup_codex(home, project)
    config = codex_home / "config.toml"
    config.write_text(config.read_text() + "\n[hooks.state\n")
    assert plansight_hook_trust(codex_home, project) is None  # not TOML
    config.unlink()
    os.mkfifo(config)  # read without waiting for a writer
    assert plansight_hook_trust(codex_home, project) is None
