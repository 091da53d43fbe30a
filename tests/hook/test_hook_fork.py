"""A forked conversation goes on from the plan it forked, in a session of its own (issue 31
item 3): Claude Code's `--fork-session` starts a new conversation (a new session id) whose
SessionStart says `source: "fork"` and names no parent (`SessionStart-fork.json`,
recorded from 2.1.332). The fork's session is a copy of the forked plan as it is then,
titled "<title> (fork)", and the fork is told it whole; from then on each plan changes
alone."""

from __future__ import annotations

import json

from replay import FIXTURES, Replay
from test_hook_steering import _context, _person, _statuses, _store

PARENT = "claude-code:5f0c2a9e-1b7d-4c3e-9a61-0d8e2f4b7c11"
FORK_ID = "6d1e423a-6a9a-491f-8e90-9a8bd2be608f"
FORK = f"claude-code:{FORK_ID}"


def _plan_with_tasks(machine: Replay) -> None:
    for event in ("UserPromptSubmit", "PostToolUse-TaskCreate-1", "PostToolUse-TaskCreate-2"):
        machine.replay("claude-code", event)
    machine.replay("claude-code", "PostToolUse-TaskUpdate-in_progress")


def _title(machine: Replay, session: str) -> str | None:
    store = _store(machine)
    try:
        return store.load(session).title
    finally:
        store.close()


def test_a_fork_starts_from_the_plan_it_forked_titled_as_a_fork(machine: Replay) -> None:
    _plan_with_tasks(machine)
    _person(machine, PARENT, [{"op": "append", "phase": "Tasks", "items": ["Person task"]}])
    parent_before = _statuses(machine, PARENT)

    told = _context(machine.replay("claude-code", "SessionStart-fork"), "SessionStart")

    assert _statuses(machine, FORK) == parent_before
    assert _title(machine, FORK) == "Fix the login bug please (fork)"
    for line in ("[>] Reproduce the login bug", "[ ] Fix the session check", "Person task"):
        assert line in told, told


def test_the_fork_and_the_forked_plan_change_apart(machine: Replay) -> None:
    _plan_with_tasks(machine)
    machine.replay("claude-code", "SessionStart-fork")

    # The fork's model completes Claude's task 1: the fork's copy, found by Claude's id.
    machine.replay("claude-code", "PostToolUse-TaskUpdate-completed", session_id=FORK_ID)

    assert _statuses(machine, FORK)["Reproduce the login bug"] == "completed"
    assert _statuses(machine, PARENT)["Reproduce the login bug"] == "in_progress"
    # A person's change to the forked plan reaches the fork no more.
    _person(machine, PARENT, [{"op": "append", "phase": "Tasks", "items": ["Parent only"]}])
    prompt = machine.replay("claude-code", "UserPromptSubmit", session_id=FORK_ID)
    assert "Parent only" not in json.dumps(prompt)
    assert "Parent only" not in _statuses(machine, FORK)


def test_a_fork_heard_twice_keeps_its_own_changes(machine: Replay) -> None:
    _plan_with_tasks(machine)
    machine.replay("claude-code", "SessionStart-fork")
    machine.replay("claude-code", "PostToolUse-TaskUpdate-completed", session_id=FORK_ID)

    machine.replay("claude-code", "SessionStart-fork", source="resume")

    assert _statuses(machine, FORK)["Reproduce the login bug"] == "completed"


def test_a_fork_with_no_plan_before_it_starts_with_none(machine: Replay) -> None:
    reply = machine.replay("claude-code", "SessionStart-fork")

    assert "Todos" not in json.dumps(reply) and "Tasks" not in json.dumps(reply)
    store = _store(machine)
    try:
        assert [summary.session for summary in store.summaries()] == []
    finally:
        store.close()


CODEX_PARENT = "codex:01a208ff-7e88-7242-abd7-08a0704c66c8"
CODEX_FORK = "codex:01a221ec-77a9-75a0-abf8-9328c5f4c562"


def _codex_fork(machine: Replay) -> dict[str, object]:
    """Codex's fork start, its rollout written first (`codex/rollout-fork.jsonl`)."""
    event = machine.event("codex", "SessionStart-fork")
    rollout = (FIXTURES / "codex" / "rollout-fork.jsonl").read_text(encoding="utf-8")
    path = machine.home / ".codex" / "rollout-fork.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(rollout.replace("{{project}}", str(machine.project)), encoding="utf-8")
    return machine.run("codex", {**event, "transcript_path": str(path)}).reply


def test_codexs_fork_starts_from_the_conversation_its_rollout_names(machine: Replay) -> None:
    """Codex names the forked conversation in the fork's rollout: its plan is taken even
    when another conversation of the folder was heard from since."""
    machine.replay("codex", "UserPromptSubmit")
    machine.replay("codex", "PostToolUse-update_plan")
    parent = _statuses(machine, CODEX_PARENT)
    other = "01a20000-0000-7000-8000-000000000001"
    machine.replay("codex", "UserPromptSubmit", session_id=other, prompt="Something else")
    machine.replay(
        "codex",
        "PostToolUse-update_plan",
        session_id=other,
        tool_input={"plan": [{"step": "Another plan", "status": "pending"}]},
    )

    told = _context(_codex_fork(machine), "SessionStart")

    assert _statuses(machine, CODEX_FORK) == parent
    assert "Another plan" not in told and "Reproduce the login bug" in told
    assert _title(machine, CODEX_FORK) == f"{_title(machine, CODEX_PARENT)} (fork)"


def _opencode(machine: Replay, session: str, name: str, **fields: object) -> dict[str, object]:
    """An event as Plansight's OpenCode plugin sends it (`hooks/opencode/README.md`)."""
    event = {"hook_event_name": name, "session_id": session, "cwd": str(machine.project)}
    return machine.run("opencode", {**event, **fields}).reply


def _opencode_plans(machine: Replay, session: str, prompt: str, todo: str) -> None:
    _opencode(machine, session, "UserPromptSubmit", prompt=prompt)
    todos = [{"content": todo, "status": "in_progress", "priority": "high"}]
    _opencode(machine, session, "PostToolUse", tool_name="todowrite", tool_input={"todos": todos})


def test_opencodes_fork_starts_from_the_session_its_plugin_names(machine: Replay) -> None:
    """OpenCode's fork keeps no link to the session forked (`opencode/session.get.fork.json`):
    the plugin names it from OpenCode's command line (`forked_from`), and that plan is taken
    even when another conversation of the folder was heard from since."""
    _opencode_plans(machine, "ses_named", "Fix the login bug", "Reproduce the login bug")
    _opencode_plans(machine, "ses_later", "Tidy up", "Tidy the docs")

    reply = _opencode(machine, "ses_fork", "SessionStart", source="fork", forked_from="ses_named")

    told = _context(reply, "SessionStart")
    assert "[>] Reproduce the login bug" in told and "Tidy the docs" not in told
    assert _statuses(machine, "opencode:ses_fork") == {"Reproduce the login bug": "in_progress"}
    assert _title(machine, "opencode:ses_fork") == "Fix the login bug (fork)"
