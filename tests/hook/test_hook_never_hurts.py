"""Whatever arrives, `plansight hook` exits 0 with exactly one JSON object on stdout, and
says why in its log, never on stdout or stderr."""

from __future__ import annotations

import sqlite3

import pytest
from replay import AGENTS, Replay, fixture_names

from plansight.paths import default_store_path


@pytest.mark.parametrize(
    ("agent", "name"), [(agent, name) for agent in AGENTS for name in fixture_names(agent)]
)
def test_every_recorded_event_gets_one_json_object(machine: Replay, agent: str, name: str) -> None:
    event = machine.event(agent, name)
    run = machine.run(agent, event)
    assert run.returncode == 0
    if run.reply:
        output = run.reply["hookSpecificOutput"]
        assert output["hookEventName"] == event["hook_event_name"]
        assert isinstance(output["additionalContext"], str) and output["additionalContext"]
    assert f"event={event['hook_event_name']}" in machine.log()


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"", "not JSON"),
        (b"{not json", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"hook_event_name": "UserPromptSubmit", "prompt": "x"}', "no session_id"),
        (b'{"session_id": "s", "hook_event_name": "PostToolUse"}', "no tool_name"),
        (b"\xff\xfe garbage", "not JSON"),
    ],
)
def test_bad_input_gets_an_empty_object_and_a_log_line(
    machine: Replay, payload: bytes, reason: str
) -> None:
    run = machine.run("claude-code", payload)
    assert (run.returncode, run.reply) == (0, {})
    assert reason in machine.log()


def test_an_unknown_agent_gets_an_empty_object(machine: Replay) -> None:
    run = machine.run("cursor", machine.event("claude-code", "UserPromptSubmit"))
    assert (run.returncode, run.reply) == (0, {})
    assert "unknown agent 'cursor'" in machine.log()


def test_a_tool_the_hook_does_not_read_is_left_alone(machine: Replay) -> None:
    event = machine.event("claude-code", "PostToolUse-Edit", tool_name="Bash")
    assert machine.run("claude-code", event).reply == {}
    assert not default_store_path(machine.project).exists()


def test_a_locked_store_is_given_up_on(machine: Replay) -> None:
    """Another process holds the store's write lock: the hook waits a moment, gives up,
    answers `{}` and logs it (the agent goes on; the next event catches up)."""
    machine.replay("codex", "UserPromptSubmit")
    first = machine.replay("codex", "PostToolUse-update_plan")
    assert first == {}
    store = default_store_path(machine.project)
    holder = sqlite3.connect(store, isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    try:
        run = machine.run("codex", machine.event("codex", "UserPromptSubmit"))
        assert (run.returncode, run.reply) == (0, {})
        assert "gave up" in machine.log().splitlines()[-1]
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_events_before_any_plan_never_open_the_store(machine: Replay) -> None:
    """A conversation without a plan costs the agent no store at all: its session start,
    prompts and edits touch only the hook's small memory file."""
    for name in ("SessionStart", "UserPromptSubmit", "PostToolUse-Edit"):
        assert machine.replay("claude-code", name) == {}
    assert not default_store_path(machine.project).exists()
