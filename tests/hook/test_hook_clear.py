"""The plan comes back after `/clear` (issue 21, item 4): the agent's `/clear` starts a new
conversation, with a new session id, in the same folder. The hook makes it carry on the
cleared conversation's unfinished plan, in the same Plansight session, and tells it the
whole plan: Claude Code and Codex with the session start, Gemini CLI (whose `/clear` reads
no context back) with the next prompt. A finished plan is not carried on."""

from __future__ import annotations

import json

import pytest
from replay import Replay
from test_hook_steering import PLANS, _context, _person, _statuses, _store

# The new conversation's session id, as each agent's recorded `/clear` start has it.
CLEARED = {
    "claude-code": "5e1b7c3a-2d4f-4e8a-9c6b-0f3a7d2e9b14",
    "codex": "01a20c4e-3b71-7d02-9f5e-6c8a2b1d0e47",
    "gemini": "c4d9e2a7-1f3b-4a6c-8e5d-2b7f0a9c1d36",
}


def _sessions(machine: Replay) -> list[str]:
    store = _store(machine)
    try:
        return [summary.session for summary in store.summaries()]
    finally:
        store.close()


def _plan_once(machine: Replay, agent: str) -> str:
    session, plan_tool, prompt, _ = PLANS[agent]
    machine.replay(agent, prompt)
    machine.replay(agent, plan_tool)
    return session


def _whole(told: str, machine: Replay, session: str) -> None:
    """Every task, as `plansight/context` with `full: true` draws them."""
    first, second = list(_statuses(machine, session))
    for line in ("Todos:", f"[>] {first}", f"[ ] {second}"):
        assert line in told, told


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_cleared_conversation_carries_the_plan_on_and_is_told_it_whole(
    machine: Replay, agent: str
) -> None:
    session = _plan_once(machine, agent)
    _, plan_tool, prompt, _ = PLANS[agent]

    told = _context(machine.replay(agent, "SessionStart-clear"), "SessionStart")

    _whole(told, machine, session)
    # The new conversation's plan is the same Plansight session: the editor shows one
    # plan, and the person's changes reach the new conversation.
    _person(machine, session, [{"op": "append", "phase": "Todos", "items": ["Person task"]}])
    after = _context(machine.replay(agent, prompt, session_id=CLEARED[agent]), agent_prompt(agent))
    assert "Person task" in after
    machine.replay(agent, plan_tool, session_id=CLEARED[agent])
    assert _sessions(machine) == [session]
    assert "Person task" in _statuses(machine, session)


def agent_prompt(agent: str) -> str:
    return "BeforeAgent" if agent == "gemini" else "UserPromptSubmit"


def test_geminis_cleared_conversation_is_told_the_plan_with_its_first_prompt(
    machine: Replay,
) -> None:
    """Gemini CLI's `/clear` shows only a SessionStart's systemMessage: the plan goes with
    the next prompt, once."""
    session = _plan_once(machine, "gemini")
    _, plan_tool, prompt, _ = PLANS["gemini"]

    assert machine.replay("gemini", "SessionStart-clear") == {}

    told = _context(machine.replay("gemini", prompt, session_id=CLEARED["gemini"]), "BeforeAgent")
    _whole(told, machine, session)
    again = machine.replay("gemini", prompt, session_id=CLEARED["gemini"])
    assert "Fix the session check" not in json.dumps(again)  # once
    machine.replay("gemini", plan_tool, session_id=CLEARED["gemini"])
    assert _sessions(machine) == [session]


@pytest.mark.parametrize("agent", list(PLANS))
def test_a_finished_plan_is_not_carried_on(machine: Replay, agent: str) -> None:
    session = _plan_once(machine, agent)
    _person(machine, session, [{"op": "done"}])  # every task

    reply = machine.replay(agent, "SessionStart-clear")

    assert "Todos" not in json.dumps(reply)
    _, plan_tool, _, _ = PLANS[agent]
    machine.replay(agent, plan_tool, session_id=CLEARED[agent])
    assert sorted(_sessions(machine)) == sorted([session, f"{agent}:{CLEARED[agent]}"])


def test_a_clear_in_another_folder_carries_nothing_on(machine: Replay) -> None:
    _plan_once(machine, "claude-code")
    other = machine.project / "elsewhere"
    other.mkdir()

    reply = machine.replay("claude-code", "SessionStart-clear", cwd=str(other))

    assert "Todos" not in json.dumps(reply)
