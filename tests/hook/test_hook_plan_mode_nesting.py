"""Every agent's plan mode plan nests as `plansight import` nests a checklist (issue 31
item 3, protocol 4's `Task.parent`): a checklist line indented deeper than the one above
it is a subtask of the nearest less indented one, a tab four spaces. The same nested plan
(`tests/fixtures/plan_modes/nested-plan.md`) reaches the hook through each agent's own
channel: Claude Code's `ExitPlanMode`, Codex's `<proposed_plan>`, Gemini CLI's and Copilot
CLI's plan files named by their `exit_plan_mode`, OpenCode's plan file and `plan_exit`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from replay import Replay
from test_hook_steering import _store

from plansight.core.importing import import_markdown
from plansight.core.model import Plan
from plansight.core.settings import Settings

NESTED = (
    Path(__file__).resolve().parents[1] / "fixtures" / "plan_modes" / "nested-plan.md"
).read_text(encoding="utf-8")
COPILOT_ID = "5990f5fa-d0d0-4325-a51d-a6aa9d1456fc"
Tree = list[tuple[str, str, str | None]]  # (phase, task, its parent's content)


def _tree(plan: Plan) -> Tree:
    contents = {task.id: task.content for task in plan.tasks()}
    return [
        (phase.name, task.content, contents.get(task.parent or ""))
        for phase in plan.phases
        for task in phase.tasks
    ]


def _imported() -> Tree:
    """The plan `plansight import` makes of the same text's headings and checklist (the
    importer refuses prose; a plan mode's prose is for the person to read)."""
    lines = [line for line in NESTED.splitlines() if line.startswith("#") or "- [ ]" in line]
    plan = Plan("imported")
    assert import_markdown(plan, "\n".join(lines), Settings(), "2026-11-28T00:00:00Z") == []
    return _tree(plan)


def _claude_code(machine: Replay) -> str:
    plan = {"plan": NESTED}
    machine.replay(
        "claude-code",
        "PostToolUse-ExitPlanMode",
        tool_input=plan,
        tool_response={**plan, "isAgent": False},
    )
    return "claude-code:5f0c2a9e-1b7d-4c3e-9a61-0d8e2f4b7c11"


def _codex(machine: Replay) -> str:
    message = f"Here is the plan.\n<proposed_plan>\n{NESTED}</proposed_plan>\n"
    machine.replay("codex", "Stop-proposed_plan", last_assistant_message=message)
    return "codex:01a22268-0305-7b93-91f1-896624e310cb"


def _gemini(machine: Replay) -> str:
    (machine.project / "plans").mkdir()
    (machine.project / "plans" / "fix.md").write_text(NESTED, encoding="utf-8")
    machine.replay("gemini", "AfterTool-exit_plan_mode")
    return "gemini:b07f5632-ad94-4bcb-855a-8544934d2a62"


def _copilot(machine: Replay) -> str:
    folder = machine.home / ".copilot" / "session-state" / COPILOT_ID
    folder.mkdir(parents=True)
    (folder / "plan.md").write_text(NESTED, encoding="utf-8")
    machine.replay("copilot", "PostToolUse-exit_plan_mode")
    return f"copilot:{COPILOT_ID}"


@pytest.mark.parametrize("agent", [_claude_code, _codex, _gemini, _copilot])
def test_a_plan_mode_plan_nests_as_the_import_does(
    machine: Replay, agent: Callable[[Replay], str]
) -> None:
    session = agent(machine)

    store = _store(machine)
    try:
        plan = store.load(session)
    finally:
        store.close()
    assert _tree(plan) == _imported()
    assert (
        "Fix",
        "Add a test that a fresh session survives",
        "Compare the expiry in seconds",
    ) in _tree(plan)
    assert plan.title == "Keep users signed in"
