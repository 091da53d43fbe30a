"""The plan approved in Copilot CLI's and OpenCode's plan modes, each kept in a plan file
of its own, arrives as the conversation's plan (issue 31 item 3).

Copilot CLI 1.0.102: the model writes `plan.md` in the session's folder and calls
`exit_plan_mode`; `PostToolUse-exit_plan_mode.json` was recorded from the real CLI
(`copilot -p --plan --mode autopilot`, which approves the plan itself)."""

from __future__ import annotations

import json

from replay import Replay
from test_hook_steering import _person, _statuses, _store

COPILOT_ID = "5990f5fa-d0d0-4325-a51d-a6aa9d1456fc"
COPILOT = f"copilot:{COPILOT_ID}"
PLAN = (
    "# Fix the login bug\n\nWhy.\n\n## Investigate\n- [ ] Reproduce the login bug\n"
    "- [ ] Read the session check\n\n## Fix\n- [ ] Patch app.py\n"
)


def _copilot_plan(machine: Replay, text: str = PLAN) -> None:
    folder = machine.home / ".copilot" / "session-state" / COPILOT_ID
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plan.md").write_text(text, encoding="utf-8")


def test_copilots_approved_plan_arrives_from_its_sessions_plan_file(machine: Replay) -> None:
    _copilot_plan(machine)
    machine.replay("copilot", "UserPromptSubmit")

    machine.replay("copilot", "PostToolUse-exit_plan_mode")

    assert _statuses(machine, COPILOT) == {
        "Reproduce the login bug": "in_progress",
        "Read the session check": "pending",
        "Patch app.py": "pending",
    }


def test_a_copilot_plan_not_approved_changes_nothing(machine: Replay) -> None:
    """Copilot's result when the person asks for changes: "Plan not approved. User
    feedback: ..." (the tool's strings in its `runtime.node`)."""
    _copilot_plan(machine)
    for said in ("Plan not approved. User feedback:\nsplit the fix\n", "Plan not approved"):
        result = {"result_type": "success", "text_result_for_llm": said}
        machine.replay("copilot", "PostToolUse-exit_plan_mode", tool_result=result)
    machine.replay(
        "copilot",
        "PostToolUse-exit_plan_mode",
        tool_result={"result_type": "failure", "text_result_for_llm": "Plan approved!"},
    )
    log = machine.log()
    assert log.count("no plan in this call") == 2 and "stored" not in log, log


def test_a_revised_copilot_plan_keeps_the_persons_change(machine: Replay) -> None:
    """The person's completion stays when the model's next approved plan lacks it, and the
    tool's answer tells the model (Copilot adds it after the result)."""
    _copilot_plan(machine)
    machine.replay("copilot", "PostToolUse-exit_plan_mode")
    _person(machine, COPILOT, [{"op": "done", "task": "Read the session check"}])
    _copilot_plan(machine, PLAN.replace("Patch app.py", "Patch the session check"))

    reply = machine.replay("copilot", "PostToolUse-exit_plan_mode")

    assert _statuses(machine, COPILOT)["Read the session check"] == "completed"
    assert "Patch the session check" in _statuses(machine, COPILOT)
    told = json.dumps(reply)
    assert "Kept the user's changes" in told and "Read the session check" in told


def test_a_copilot_session_id_naming_a_path_reads_no_file(machine: Replay) -> None:
    (machine.home / ".copilot" / "plan.md").parent.mkdir(parents=True)
    (machine.home / ".copilot" / "plan.md").write_text(PLAN, encoding="utf-8")
    machine.replay("copilot", "PostToolUse-exit_plan_mode", session_id="..")
    assert "no plan in this call" in machine.log()


def test_copilots_write_of_its_plan_file_is_no_file_of_the_task(machine: Replay) -> None:
    """The model's `create` of `plan.md` (a `Write` event) is the plan, not a file the
    task in progress changed."""
    _copilot_plan(machine)
    machine.replay("copilot", "PostToolUse-exit_plan_mode")
    plan_md = machine.home / ".copilot" / "session-state" / COPILOT_ID / "plan.md"

    machine.replay("copilot", "PostToolUse-Write", tool_input={"path": str(plan_md)})
    machine.replay("copilot", "PostToolUse-Write")

    store = _store(machine)
    try:
        files = {task.content: task.files for task in store.load(COPILOT).tasks()}
    finally:
        store.close()
    assert files["Reproduce the login bug"] == ["notes.txt"]
