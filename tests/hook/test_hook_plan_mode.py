"""The plan a person approves in Claude Code's plan mode arrives as the conversation's plan
(issue 31 item 3): `ExitPlanMode`'s PostToolUse carries the approved markdown plan
(`PostToolUse-ExitPlanMode.json`, written from 2.1.332's `sdk-tools.d.ts` and binary;
`PostToolUse-ExitPlanMode-recorded.json`, recorded from its interactive UI, as
tests/agent_clis/test_real_plan_modes.py drives it); its headings become phases and its
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
    store = _store(machine)
    try:
        assert store.load(SESSION).title == "Fix the login bug"  # the plan's own `#` line
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


RECORDED = "claude-code:fcaec54b-3a7b-47b2-95aa-626652cbdfda"


def test_the_recorded_approval_arrives_nested(machine: Replay) -> None:
    """What Claude Code 2.1.332's hook really received when a person approved a plan in
    its UI (`PostToolUse-ExitPlanMode-recorded.json`): `tool_input` is the model's own
    (`{}`), the plan is `tool_response.plan`, its indented item a subtask."""
    machine.replay("claude-code", "PostToolUse-ExitPlanMode-recorded")

    store = _store(machine)
    try:
        plan = store.load(RECORDED)
    finally:
        store.close()
    tasks = {task.content: task for task in plan.tasks()}
    assert plan.title == "Fix the login bug"
    assert [phase.name for phase in plan.phases] == ["Investigate", "Fix"]
    assert tasks["Log in twice"].parent == tasks["Reproduce the login bug"].id


GEMINI = "gemini:b07f5632-ad94-4bcb-855a-8544934d2a62"
GEMINI_PLAN = (
    "# Fix the login bug\n\nThe session check reads the wrong cookie.\n\n"
    "## Investigate\n- [ ] Reproduce the login bug\n\n## Fix\n- [ ] Patch app.py\n"
)


def test_geminis_approved_plan_arrives_from_its_file(machine: Replay) -> None:
    """Gemini CLI's `exit_plan_mode` names the approved plan's file in its result
    (`AfterTool-exit_plan_mode.json`, recorded from 0.61.0)."""
    (machine.project / "plans").mkdir()
    (machine.project / "plans" / "fix.md").write_text(GEMINI_PLAN, encoding="utf-8")
    machine.replay("gemini", "BeforeAgent")

    machine.replay("gemini", "AfterTool-exit_plan_mode")

    store = _store(machine)
    try:
        plan = store.load(GEMINI)
        phases = {phase.name: [task.content for task in phase.tasks] for phase in plan.phases}
    finally:
        store.close()
    assert phases == {"Investigate": ["Reproduce the login bug"], "Fix": ["Patch app.py"]}


def test_a_rejected_gemini_plan_changes_nothing(machine: Replay) -> None:
    (machine.project / "plans").mkdir()
    (machine.project / "plans" / "fix.md").write_text(GEMINI_PLAN, encoding="utf-8")
    rejected = {
        "llmContent": "Plan rejected. No feedback provided.\n\nThe plan is stored at: "
        f"{machine.project}/plans/fix.md\nAsk the user for specific feedback.",
        "returnDisplay": "Rejected (no feedback)",
    }

    machine.replay("gemini", "AfterTool-exit_plan_mode", tool_response=rejected)

    store = _store(machine)
    try:
        assert store.summaries() == []
    finally:
        store.close()


def test_an_approved_plans_nested_items_are_kept() -> None:
    """Protocol 4: a subtask's line, however deep, is part of the checklist taken."""
    from plansight.hook.plan_mode import approved_plan

    plan = "# Fix\nWhy we do it.\n## Steps\n- [ ] Patch\n    - [ ] Write the test\n\t- [ ] Run it\n"
    taken = approved_plan(
        "claude-code", {"tool_name": "ExitPlanMode", "tool_input": {"plan": plan}}, "x"
    )
    assert taken == {
        "text": "# Fix\n## Steps\n- [ ] Patch\n    - [ ] Write the test\n\t- [ ] Run it\n"
    }


CODEX = "codex:01a22268-0305-7b93-91f1-896624e310cb"


def _codex_phases(machine: Replay) -> dict[str, list[str]]:
    store = _store(machine)
    try:
        plan = store.load(CODEX)
        return {phase.name: [task.content for task in phase.tasks] for phase in plan.phases}
    finally:
        store.close()


def test_codexs_proposed_plan_arrives_from_its_turns_last_message(machine: Replay) -> None:
    """Codex's plan mode proposes its plan as a `<proposed_plan>` block in the turn's last
    message, with no tool call; its `Stop` event carries the message
    (`Stop-proposed_plan.json`, recorded from 0.171). The block's checklist is the plan;
    the prose around it, and its bullets that are no checklist, are left out. Stop has no
    context for the model: the answer is empty."""
    reply = machine.replay("codex", "Stop-proposed_plan")

    assert reply == {}
    assert _codex_phases(machine) == {
        "Implementation Changes": [
            "Reproduce the login bug with a failing test",
            "Fix the session check in app.py",
        ],
        "Test Plan": ["Run the login tests"],
    }


def test_a_revised_proposal_replaces_the_plan_and_keeps_the_persons_change(
    machine: Replay,
) -> None:
    """A later `<proposed_plan>` is a complete replacement (Codex's instructions); what the
    person changed since stays, and the next prompt tells the model of it."""
    machine.replay("codex", "Stop-proposed_plan")
    _person(machine, CODEX, [{"op": "append", "phase": "Test Plan", "items": ["Try Safari"]}])
    revised = (
        "Revised.\n<proposed_plan>\n# Fix\n\n## Steps\n- [ ] Patch the check\n</proposed_plan>"
    )

    machine.replay("codex", "Stop-proposed_plan", last_assistant_message=revised)

    assert _codex_phases(machine) == {"Test Plan": ["Try Safari"], "Steps": ["Patch the check"]}
    prompt = machine.replay("codex", "UserPromptSubmit", session_id=CODEX.split(":", 1)[1])
    assert "Try Safari" in str(prompt)


def test_a_turn_without_a_proposed_plan_changes_nothing(machine: Replay) -> None:
    machine.replay("codex", "Stop-proposed_plan")
    for message in ("Done.", None, "<proposed_plan>inline, not a block</proposed_plan>"):
        machine.replay("codex", "Stop-proposed_plan", last_assistant_message=message)
    assert _codex_phases(machine)["Test Plan"] == ["Run the login tests"]


def test_codexs_proposed_plan_of_plain_bullets_arrives(machine: Replay) -> None:
    """Codex's plan-mode instructions (0.171) ask for "Summary, Key Changes or
    Implementation Changes, Test Plan, and Assumptions" and "grouped implementation
    bullets", with no checklist (`Stop-proposed_plan-bullets.json`). The bullets are tasks,
    nested as written, but for the Summary's and the Assumptions'."""
    machine.replay("codex", "Stop-proposed_plan-bullets")

    assert _codex_phases(machine) == {
        "Key Changes": [
            "Session expiry: compare both times in seconds",
            "Keep the cookie's max-age as it is",
            "Login form: show the reason when a session ends",
        ],
        "Test Plan": ["Add a test that a fresh session survives a request", "Run the login tests"],
    }
    store = _store(machine)
    try:
        plan = store.load(CODEX)
        assert plan.title == "Keep users signed in"
        tasks = {task.content: task for task in plan.tasks()}
        nested = tasks["Keep the cookie's max-age as it is"]
        assert nested.parent == tasks["Session expiry: compare both times in seconds"].id
    finally:
        store.close()


def test_codexs_proposed_plan_of_numbered_steps_arrives(machine: Replay) -> None:
    """The same plan with its steps numbered (`Stop-proposed_plan-numbered.json`)."""
    machine.replay("codex", "Stop-proposed_plan-numbered")

    assert _codex_phases(machine) == {
        "Implementation Changes": [
            "Compare the session expiry in seconds",
            "Show the reason when a session ends",
        ],
        "Test Plan": ["Add a test that a fresh session survives a request", "Run the login tests"],
    }


def test_a_proposed_plan_of_prose_only_changes_nothing(machine: Replay) -> None:
    """A block whose only lists are in its Summary and Assumptions, or in a code block,
    and whose other sections hold a rule (`* * *`), proposes no task: the plan stays."""
    machine.replay("codex", "Stop-proposed_plan")
    prose = (
        "<proposed_plan>\n# Fix\n\n## Summary\n- Users are logged out\n\n## Assumptions\n"
        "- Sessions last a day\n\n## Example\n```\n- not a task\n```\n* * *\n</proposed_plan>"
    )
    machine.replay("codex", "Stop-proposed_plan", last_assistant_message=prose)
    assert _codex_phases(machine)["Test Plan"] == ["Run the login tests"]


def test_a_section_is_prose_by_its_first_word_only(machine: Replay) -> None:
    """ "## Context menu" is work; "## **Assumptions** and defaults" is not."""
    plan = (
        "<proposed_plan>\n# Fix\n\n## Context menu\n- Add Copy\n\n"
        "## **Assumptions** and defaults\n- None\n</proposed_plan>"
    )
    machine.replay("codex", "Stop-proposed_plan", last_assistant_message=plan)
    assert _codex_phases(machine) == {"Context menu": ["Add Copy"]}
