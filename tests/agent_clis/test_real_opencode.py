"""OpenCode 1.18.33 itself, from npm, with what `plansight setup opencode` wrote: its
plugin hears `todo.updated` and the plan arrives; Plansight's MCP server connects."""

from __future__ import annotations

import json
import time

from agent_home import RUN_TIMEOUT, AgentHome, agent_cli
from scripted_models import scripted_model

from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore

TODOS = {
    "todos": [
        {"content": "Reproduce the login bug", "status": "in_progress", "priority": "high"},
        {"content": "Fix the session check", "status": "pending", "priority": "medium"},
    ]
}


def _configured(person: AgentHome, url: str) -> None:
    """After setup, the person points OpenCode's Anthropic provider at the model."""
    config = person.home / ".config" / "opencode" / "opencode.json"
    written = json.loads(config.read_text())
    written["model"] = "anthropic/claude-sonnet-4-5"
    written["provider"] = {"anthropic": {"options": {"baseURL": f"{url}/v1", "apiKey": "x"}}}
    written["autoupdate"] = False
    written["share"] = "disabled"
    config.write_text(json.dumps(written))


def _arrived(person: AgentHome) -> dict[str, str]:
    """The opencode session's tasks, once the plugin's `plansight ingest` wrote them (OpenCode
    does not wait for a plugin's event handler, so it may exit first)."""
    deadline = time.monotonic() + RUN_TIMEOUT  # a guard against a hang, never a speed check
    while True:
        store = SqliteStore(default_store_path(person.project))
        try:
            plans = [p for p in store.sessions() if p.session.startswith("opencode:")]
            if plans or time.monotonic() > deadline:
                [plan] = plans
                return {task.content: task.status for task in plan.tasks()}
        finally:
            store.close()
        time.sleep(0.1)


def test_an_opencode_plan_arrives_through_its_plugin(person: AgentHome) -> None:
    done = person.plansight("setup", "opencode")
    assert done.returncode == 0, done.stderr
    with scripted_model("anthropic", [("todowrite", TODOS)]) as model:
        _configured(person, model.url)
        # OpenCode takes its folder from $PWD before the process's own.
        ran = person.run(
            [agent_cli("opencode"), "run", "Fix the login bug"], PWD=str(person.project)
        )
        offered = {t.get("name") for r in model.requests[-1:] for t in r[1].get("tools") or []}
    assert ran.returncode == 0, ran.stdout + ran.stderr
    # Plansight's own plan tools are offered beside OpenCode's (its MCP server connected).
    assert "todowrite" in offered and any(name.startswith("plansight_") for name in offered)
    assert _arrived(person) == {
        "Reproduce the login bug": "in_progress",
        "Fix the session check": "pending",
    }

    removed = person.plansight("setup", "opencode", "--remove")
    assert removed.returncode == 0, removed.stderr
    assert not (person.home / ".config/opencode/plugin/plansight.js").exists()
