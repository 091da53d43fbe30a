"""The plan a person approves in an agent's plan mode, with the agent's real CLI: it
arrives as the conversation's plan, its headings phases and its nested checklist nested
tasks (issue 31 item 3). Claude Code's (`claude -p` offers no `ExitPlanMode`) and
OpenCode's (`opencode run` denies `plan_exit`) are replayed in tests/hook; Gemini CLI's
and Codex's are in test_real_gemini.py and test_real_codex.py."""

from __future__ import annotations

import uuid

from agent_home import AgentHome, agent_cli
from copilot_model import copilot_model
from test_real_copilot import _env

from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore

NESTED_PLAN = (
    "# Fix the login bug\n\nUsers are logged out at once.\n\n## Investigate\n"
    "- [ ] Reproduce the login bug\n  - [ ] Log in twice\n\n## Fix\n- [ ] Patch app.py\n"
)


def test_copilots_approved_plan_mode_plan_arrives_nested(person: AgentHome) -> None:
    """Copilot CLI 1.0.102's plan mode: the model writes `plan.md` in the session's folder
    and calls `exit_plan_mode`; `--plan --mode autopilot` approves the plan by itself in a
    `-p` run (`COPILOT_PLAN_THEN_AUTOPILOT`'s handoff). Its PostToolUse names no file: the
    hook reads the session's `plan.md`. Before, nothing arrived: no plan at all."""
    assert person.plansight("setup", "copilot").returncode == 0
    session = str(uuid.uuid4())
    plan_file = person.home / ".copilot" / "session-state" / session / "plan.md"
    script = [
        ("create", {"path": str(plan_file), "file_text": NESTED_PLAN}),
        ("exit_plan_mode", {"summary": "- Reproduce, then patch app.py"}),
    ]
    with copilot_model(script) as model:
        done = person.run(
            [
                agent_cli("copilot"),
                *("-p", "Fix the login bug", "--session-id", session),
                *("--plan", "--mode", "autopilot"),
                *("--allow-all-tools", "--no-auto-update", "--disable-client-telemetry"),
            ],
            **_env(model.url),
        )
        answered = [
            item.get("output", "")
            for _, request in model.requests
            for item in request.get("input") or []
            if isinstance(item, dict) and item.get("call_id") == "call_1"
        ]
    assert done.returncode == 0, done.stdout + done.stderr
    assert any(said.startswith("Plan approved!") for said in answered), answered
    store = SqliteStore(default_store_path(person.project))
    try:
        plan = store.load(f"copilot:{session}")
    finally:
        store.close()
    tasks = {task.content: task for task in plan.tasks()}
    assert plan.title == "Fix the login bug"
    assert [phase.name for phase in plan.phases] == ["Investigate", "Fix"]
    assert tasks["Log in twice"].parent == tasks["Reproduce the login bug"].id
    assert tasks["Patch app.py"].status == "pending"
