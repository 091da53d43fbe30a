"""After `plansight setup AGENT`, each agent's own CLI lists Plansight's MCP server (Claude
Code and Gemini CLI start it and report it connected), `--remove` takes it out again, and
`plansight doctor` tells a healthy setup from each broken one (issue 22, items 1 and 5)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agent_home import RUN_TIMEOUT, AgentHome, agent_cli

from plansight.setup.codex_config import tomllib


def _trust_gemini_project(person: AgentHome) -> None:
    # Gemini CLI starts no MCP server in a folder the person has not trusted.
    (person.home / ".gemini").mkdir(exist_ok=True)
    trusted = {str(person.project): "TRUST_FOLDER"}
    (person.home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))


def test_claude_code_connects_to_the_server_setup_registered(person: AgentHome) -> None:
    assert person.plansight("setup", "claude-code").returncode == 0
    listed = person.run([agent_cli("claude"), "mcp", "list"])
    line = next(line for line in listed.stdout.splitlines() if line.startswith("plansight"))
    assert "Connected" in line, listed.stdout + listed.stderr
    assert person.plansight("setup", "claude-code", "--remove").returncode == 0
    assert "plansight" not in person.run([agent_cli("claude"), "mcp", "list"]).stdout


def test_gemini_connects_to_the_server_setup_registered(person: AgentHome) -> None:
    _trust_gemini_project(person)
    assert person.plansight("setup", "gemini").returncode == 0
    listed = person.run([agent_cli("gemini"), "mcp", "list"])
    output = listed.stdout + listed.stderr
    line = next(line for line in output.splitlines() if "plansight" in line)
    assert "Connected" in line, output


def test_codex_lists_the_server_setup_registered(person: AgentHome) -> None:
    assert person.plansight("setup", "codex").returncode == 0
    codex_home = str(person.home / ".codex")
    listed = person.run([agent_cli("codex"), "mcp", "list", "--json"], CODEX_HOME=codex_home)
    assert listed.returncode == 0, listed.stderr
    [server] = [s for s in json.loads(listed.stdout) if s["name"] == "plansight"]
    assert server["enabled"] is True
    assert server["transport"]["args"][-1] == "mcp"


def _doctor(person: AgentHome, *agents: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", "doctor", *agents],
        cwd=person.project,
        env=person.env(**env),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )


def test_doctor_finds_codex_hooks_that_are_not_trusted_yet(person: AgentHome) -> None:
    """Right after setup Codex has not trusted the hooks: broken, with its fix. Once the
    person trusts them (what Codex's /hooks writes: the hook's hash in config.toml), healthy."""
    codex_home = person.home / ".codex"
    done = person.plansight("setup", "codex")
    assert done.returncode == 0 and "hooks not trusted by Codex yet" in done.stdout
    untrusted = _doctor(person, "codex", CODEX_HOME=str(codex_home))
    assert untrusted.returncode == 1, untrusted.stdout
    assert "✗ hooks not trusted by Codex yet" in untrusted.stdout
    assert "fix: codex   (then /hooks" in untrusted.stdout

    _trust_every_hook(person, codex_home)
    healthy = _doctor(person, "codex", CODEX_HOME=str(codex_home))
    assert healthy.returncode == 0, healthy.stdout
    assert "✓ hooks trusted by Codex" in healthy.stdout
    assert "✓ MCP server plansight" in healthy.stdout and "Everything works." in healthy.stdout


def _trust_every_hook(person: AgentHome, codex_home: Path) -> None:
    hooks = _codex_hooks(person, codex_home)
    config = codex_home / "config.toml"
    tables = "".join(
        f"\n[hooks.state.{json.dumps(hook['key'])}]\ntrusted_hash = {json.dumps(hook['currentHash'])}\n"
        for hook in hooks
    )
    config.write_text(config.read_text() + tables)
    tomllib.loads(config.read_text())


def _codex_hooks(person: AgentHome, codex_home: Path) -> list[dict[str, str]]:
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
                hooks: list[dict[str, str]] = reply["result"]["data"][0]["hooks"]
                return hooks
    finally:
        server.kill()
        server.wait(RUN_TIMEOUT)
    raise AssertionError("Codex's app server did not list the hooks")


def test_doctor_finds_gemini_with_no_plan_tool_at_all(person: AgentHome) -> None:
    """Gemini CLI's default model is offered no write_todos: without Plansight's MCP server
    the model cannot plan. Setup fixes it; doctor says so both times."""
    _trust_gemini_project(person)
    broken = _doctor(person, "gemini")
    assert broken.returncode == 1
    assert "✗ hooks: not installed" in broken.stdout
    assert (
        "✗ no plan tool at all" in broken.stdout and "fix: plansight setup gemini" in broken.stdout
    )

    assert person.plansight("setup", "gemini").returncode == 0
    healthy = _doctor(person, "gemini")
    assert healthy.returncode == 0, healthy.stdout
    assert "write_todos: not offered to model auto" in healthy.stdout  # worth knowing, not broken
    assert "✓ MCP server plansight" in healthy.stdout


def test_doctor_finds_claude_healthy_after_setup(person: AgentHome) -> None:
    assert person.plansight("setup", "claude-code").returncode == 0
    healthy = _doctor(person, "claude-code")
    assert healthy.returncode == 0, healthy.stdout
    assert (
        "Claude Code" in healthy.stdout and "✓ plan tool TaskCreate/TaskUpdate on" in healthy.stdout
    )
    assert "✓ store " in healthy.stdout


def test_gemini_default_model_plans_with_plansights_tool(person: AgentHome) -> None:
    """Gemini CLI's default model (no `-m`) is offered no write_todos: after setup it plans
    with Plansight's todo_write through the MCP server, told so when the session starts, and
    the plan is in the store (issue 22, items 1 and 2)."""
    from scripted_models import PLAN_TOOL, scripted_model

    from plansight.paths import default_store_path
    from plansight.store.sqlite import SqliteStore

    _trust_gemini_project(person)
    assert person.plansight("setup", "gemini").returncode == 0
    settings = person.home / ".gemini" / "settings.json"
    written = json.loads(settings.read_text())
    written["security"] = {"auth": {"selectedType": "gemini-api-key"}}
    settings.write_text(json.dumps(written))
    plan = {
        "write_todos": {
            "todos": [
                {"description": "Reproduce the login bug", "status": "in_progress"},
                {"description": "Fix the session check", "status": "pending"},
            ]
        },
        "todo_write": {
            "todos": [
                {
                    "content": "Reproduce the login bug",
                    "activeForm": "Reproducing the login bug",
                    "status": "in_progress",
                },
                {
                    "content": "Fix the session check",
                    "activeForm": "Fixing the session check",
                    "status": "pending",
                },
            ]
        },
    }
    with scripted_model("gemini", [(PLAN_TOOL, plan)]) as model:
        ran = person.run(
            [agent_cli("gemini"), "--yolo", "-p", "Fix the login bug"],
            GEMINI_API_KEY="scripted",
            GOOGLE_GEMINI_BASE_URL=model.url,
        )
        turns = [request for _, request in model.requests if request.get("tools")]
    assert ran.returncode == 0, ran.stdout + ran.stderr
    offered = {d["name"] for t in turns[0]["tools"] for d in t.get("functionDeclarations", [])}
    assert "write_todos" not in offered  # the default model has no plan tool of its own
    assert "todo_write of the plansight MCP server" in json.dumps(turns[0]["contents"])
    store = SqliteStore(default_store_path(person.project))
    try:
        [arrived] = [p for p in store.sessions() if p.tasks()]
        tasks = {task.content: task.status for task in arrived.tasks()}
    finally:
        store.close()
    assert tasks == {"Reproduce the login bug": "in_progress", "Fix the session check": "pending"}
