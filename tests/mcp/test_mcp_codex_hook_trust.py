"""Issue 31 item 6: a Codex whose Plansight hooks it does not trust yet runs none of them,
so neither its plan nor the person's changes travel by themselves. The answer of a plan
tool tells the model to ask the person to trust them in `/hooks`, and stops once they are
trusted (as `/hooks` records it; tests/agent_clis/test_real_codex.py checks the keys and
hashes against Codex's own app server)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mcp_harness import mcp_client, text_of, todo

from plansight.codex_hook_trust import plansight_hooks
from plansight.mcp.hook_trust import UNTRUSTED_LINE

CODEX_CLIENT = "codex-mcp-client"  # the name Codex's MCP client gives itself


def _person(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A home with `plansight setup codex` done, and a project in git."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".git").mkdir(parents=True)
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "XDG_STATE_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "plansight", "setup", "codex"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return env, project


async def _answer(env: dict[str, str], project: Path, client: str) -> str:
    async with mcp_client(name=client, env=env, cwd=project) as mcp:
        written = await mcp.call_tool("todo_write", {"todos": [todo("Fix it", "Fixing it")]})
    return text_of(written)


async def test_the_answer_asks_for_trust_until_codex_trusts_the_hooks(tmp_path: Path) -> None:
    env, project = _person(tmp_path)
    before = await _answer(env, project, CODEX_CLIENT)
    assert before.endswith(UNTRUSTED_LINE) and "/hooks" in before

    codex_home = Path(env["HOME"]) / ".codex"
    config = codex_home / "config.toml"
    tables = "".join(
        f"\n[hooks.state.{json.dumps(key)}]\ntrusted_hash = {json.dumps(value)}\n"
        for key, value in plansight_hooks(codex_home / "hooks.json")
    )
    config.write_text(config.read_text() + tables)  # what `/hooks` adds
    after = await _answer(env, project, CODEX_CLIENT)
    assert "Fix it" in after and "/hooks" not in after


async def test_codexs_read_says_it_in_its_structured_content_too(tmp_path: Path) -> None:
    """Codex gives its model todo_read's structured content, not its text (codex-rs
    `protocol/src/models.rs`, `From<&CallToolResult> for FunctionCallOutputPayload`)."""
    env, project = _person(tmp_path)
    async with mcp_client(name=CODEX_CLIENT, env=env, cwd=project) as mcp:
        read = await mcp.call_tool("todo_read", {})
    assert text_of(read).endswith(UNTRUSTED_LINE)
    assert read.structured_content["notice"] == UNTRUSTED_LINE


async def test_another_agent_is_never_told_about_codexs_hooks(tmp_path: Path) -> None:
    env, project = _person(tmp_path)
    answer = await _answer(env, project, "claude-code")
    assert "Fix it" in answer and "/hooks" not in answer
