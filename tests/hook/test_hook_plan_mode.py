"""The plan a person approves in Claude Code's plan mode arrives as the conversation's plan
(issue 31 item 3): `ExitPlanMode`'s PostToolUse carries the approved markdown plan
(`PostToolUse-ExitPlanMode.json`, written from 2.1.332's `sdk-tools.d.ts` and binary:
`claude -p` offers no ExitPlanMode to record); its headings become phases and its
checklist items tasks, and the switch to doing keeps it."""

from __future__ import annotations

from replay import Replay
from test_hook_steering import _person, _statuses, _store

SESSION = "claude-code:5f0c2a9e-1b7d-4c3e-9a61-0d8e2f4b7c11"


def _phases(machine: Replay) -> dict[str, list[str]]:
    store = _store(machine)
    try:
        plan = store.load(SESSION)
        return {phase.name: [task.content for task in phase.tasks] for phase in plan.phases}
    finally:
        store.close()


def test_the_approved_plan_arrives_as_phases_and_tasks(machine: Replay) -> None:
    machine.replay("claude-code", "UserPromptSubmit")

    machine.replay("claude-code", "PostToolUse-ExitPlanMode")

    assert _phases(machine) == {
        "Investigate": ["Reproduce the login bug", "Read the session check"],
        "Fix": ["Patch app.py"],
    }
    # The edits of the execution that follows reach its task in progress.
    machine.replay("claude-code", "PostToolUse-Edit")
    store = _store(machine)
    try:
        assert store.load(SESSION).title == "Fix the login bug please"
    finally:
        store.close()


def test_a_person_steers_the_approved_plan(machine: Replay) -> None:
    machine.replay("claude-code", "UserPromptSubmit")
    machine.replay("claude-code", "PostToolUse-ExitPlanMode")
    _person(machine, SESSION, [{"op": "done", "task": "Read the session check"}])

    prompt = machine.replay("claude-code", "UserPromptSubmit")

    assert "Read the session check" in str(prompt)
    assert _statuses(machine, SESSION)["Read the session check"] == "completed"


def test_a_plan_without_a_checklist_changes_nothing(machine: Replay) -> None:
    machine.replay("claude-code", "UserPromptSubmit")
    machine.replay("claude-code", "PostToolUse-ExitPlanMode")
    prose = "# Fix it\n\n1. Reproduce\n2. Patch\n"

    machine.replay(
        "claude-code",
        "PostToolUse-ExitPlanMode",
        tool_input={"plan": prose},
        tool_response={"plan": prose, "isAgent": False},
    )

    assert "Patch app.py" in _statuses(machine, SESSION)
