"""Steering (v3) through `plansight hook`: a person's changes survive the agent's stale
whole list and the plan tool's answer tells the agent what was kept; a context that was
compacted, resumed or cleared is told the whole plan."""

from __future__ import annotations

import pytest
from replay import Replay

from plansight.hook.hooked_agents import AGENTS, GEMINI
from plansight.paths import default_store_path
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.setup.agent_hooks import wanted_groups
from plansight.store.sqlite import SqliteStore

KEPT = "Kept the user's changes your list does not have: "
# agent -> (session, its plan tool's recorded event, its prompt event, the tool's hook event)
FRAME = ("<system-reminder>", "</system-reminder>")
PLANS = {
    "claude-code": (
        "claude-code:8a3d6b20-9e4f-4d1a-b7c5-2e6f0a9d3b42",
        "PostToolUse-TodoWrite",
        "UserPromptSubmit-todowrite",
        "PostToolUse",
    ),
    "codex": (
        "codex:01a208ff-7e88-7242-abd7-08a0704c66c8",
        "PostToolUse-update_plan",
        "UserPromptSubmit",
        "PostToolUse",
    ),
    "gemini": (
        "gemini:b07f5632-ad94-4bcb-855a-8544934d2a62",
        "AfterTool-write_todos",
        "BeforeAgent",
        "AfterTool",
    ),
}


def _store(machine: Replay) -> SqliteStore:
    return SqliteStore(default_store_path(machine.project))


def _statuses(machine: Replay, session: str) -> dict[str, str]:
    store = _store(machine)
    try:
        return {task.content: task.status for task in store.load(session).tasks()}
    finally:
        store.close()


def _person(machine: Replay, session: str, ops: list[dict[str, object]]) -> None:
    store = _store(machine)
    try:
        request = {"session": session, "ops": ops, "origin": "user"}
        PlanService(store).apply(ApplyParams.validate(request), request)
    finally:
        store.close()


def _context(reply: dict[str, object], event: str) -> str:
    output = reply["hookSpecificOutput"]
    assert isinstance(output, dict) and output["hookEventName"] == event
    context = output["additionalContext"]
    assert isinstance(context, str)
    return context


@pytest.mark.parametrize("agent", list(PLANS))
def test_the_plan_tools_answer_carries_the_kept_line(machine: Replay, agent: str) -> None:
    """The issue's story: the agent's plan, the person adds a task and completes one, the
    agent's next whole list is made from its stale copy. The person's changes stay, and the
    hook returns the summary's Kept line, whole, with the plan tool's result."""
    session, plan_tool, prompt, tool_event = PLANS[agent]
    machine.replay(agent, prompt)
    assert machine.replay(agent, plan_tool) == {}
    first, second = list(_statuses(machine, session))
    _person(
        machine,
        session,
        [
            {"op": "append", "phase": "Todos", "items": ["Person task C"]},
            {"op": "done", "task": second},
        ],
    )

    told = _context(machine.replay(agent, plan_tool), tool_event)  # the same, stale list

    assert _statuses(machine, session) == {
        first: "in_progress",
        second: "completed",
        "Person task C": "pending",
    }
    line = f'{KEPT}completed "{second}"; added "Person task C" to phase "Todos"'
    # Issue 29 item 10: Claude Code and Gemini CLI frame a hook's context themselves and
    # escape the tags in it (tests/fixtures/model_requests/hook-context-*.json): no tags.
    opens, closes = ("", "") if agent in ("claude-code", "gemini") else FRAME
    assert AGENTS[agent].frames_context == (opens == "")
    assert told.startswith(f"{opens}{line}.") and told.endswith(f"do not undo them.{closes}")
    # Told: the next prompt does not say it again; the person's task stays (rule 4).
    assert machine.replay(agent, prompt) == {}
    machine.replay(agent, plan_tool)
    assert _statuses(machine, session)["Person task C"] == "pending"


def test_a_whole_list_that_keeps_nothing_tells_nothing(machine: Replay) -> None:
    session, plan_tool, prompt, _ = PLANS["codex"]
    machine.replay("codex", prompt)
    machine.replay("codex", plan_tool)
    assert machine.replay("codex", plan_tool) == {}  # the agent's own list, again
    assert list(_statuses(machine, session)) == ["Reproduce the login bug", "Fix the session check"]


@pytest.mark.parametrize(
    ("agent", "source"),
    [
        ("claude-code", "compact"),
        ("claude-code", "resume"),
        ("claude-code", "clear"),
        ("codex", "compact"),
        ("codex", "resume"),
        ("gemini", "resume"),
    ],
)
def test_a_context_that_lost_the_plan_is_told_it_whole(
    machine: Replay, agent: str, source: str
) -> None:
    session, plan_tool, prompt, _ = PLANS[agent]
    machine.replay(agent, prompt)
    machine.replay(agent, plan_tool)
    _person(machine, session, [{"op": "note", "id": "t2", "text": "Soon"}])
    # The recorded start of each source where there is one, else the startup's with it.
    recorded = {"claude-code": ("compact", "resume"), "codex": ("compact",), "gemini": ()}
    start = f"SessionStart-{source}" if source in recorded[agent] else "SessionStart"
    if agent == "claude-code" and start == "SessionStart":
        start = "SessionStart-todowrite"

    told = _context(machine.replay(agent, start, source=source), "SessionStart")

    # Every task and phase, as `plansight/context` with `full: true` draws them.
    first, second = list(_statuses(machine, session))
    for line in ("Todos:", f"[>] {first}", f"[ ] {second}"):
        assert line in told, told
    assert "The user changed the todo list" in told and "Soon" in told


def test_a_fresh_start_of_a_planned_conversation_gets_the_counts(machine: Replay) -> None:
    _, plan_tool, prompt, _ = PLANS["codex"]
    machine.replay("codex", prompt)
    machine.replay("codex", plan_tool)
    told = _context(machine.replay("codex", "SessionStart", source="startup"), "SessionStart")
    assert "Todo list: 0/2 completed" in told and "[ ] Fix the session check" not in told


def test_gemini_is_told_the_whole_plan_on_the_prompt_after_a_compression(
    machine: Replay,
) -> None:
    """Gemini CLI reads nothing back from PreCompress and starts no session after it: the
    hook notes a `/compress` (trigger "manual") and the next prompt gets the whole plan.
    Its "auto" PreCompress runs before every model request, compression or not: ignored."""
    _, plan_tool, prompt, _ = PLANS["gemini"]
    machine.replay("gemini", prompt)
    machine.replay("gemini", plan_tool)
    machine.replay("gemini", prompt)  # the plan told, nothing new since
    assert machine.replay("gemini", "PreCompress") == {}  # recorded: trigger "auto"
    assert machine.replay("gemini", prompt) == {}
    assert machine.replay("gemini", "PreCompress", trigger="manual") == {}

    told = _context(machine.replay("gemini", prompt), "BeforeAgent")
    assert "[>] Reproduce the login bug" in told and "[ ] Fix the session check" in told
    # Once: the prompt after it has the counts again (and the reminder now due).
    again = _context(machine.replay("gemini", prompt), "BeforeAgent")
    assert "Fix the session check" not in again and "Update your todos" in again


def test_setup_registers_geminis_manual_compression() -> None:
    events = {event: group.get("matcher") for event, group in wanted_groups(GEMINI, "x")}
    assert events["PreCompress"] == "manual"


def test_the_kept_line_reaches_the_agent_through_the_warm_process(machine: Replay) -> None:
    """An event the warm hook process handles answers the same as one run on its own."""
    from test_hook_warm import by, warm_pid

    session, plan_tool, prompt, _ = PLANS["codex"]
    machine.replay("codex", prompt)  # starts the warm process
    assert warm_pid(machine) is not None
    machine.replay("codex", plan_tool)
    _person(machine, session, [{"op": "rm", "task": "Fix the session check"}])

    told = _context(machine.replay("codex", plan_tool), "PostToolUse")
    assert by(machine)[-1] == "warm"
    assert told.startswith(f'<system-reminder>{KEPT}removed "Fix the session check".')
    assert list(_statuses(machine, session)) == ["Reproduce the login bug"]


def test_two_plan_tool_calls_of_one_step_tell_nothing_false(machine: Replay) -> None:
    """Issue 29 item 11: Claude Code runs two TaskUpdates of one step at once (#1 completed,
    #2 started); their PostToolUse hooks run side by side, and the agent reads both answers
    after both committed. The first answer, made before the second call committed, must not
    say what is no longer true then ("No task is in progress")."""
    session = "claude-code:5f0c2a9e-1b7d-4c3e-9a61-0d8e2f4b7c11"
    for name in (
        "UserPromptSubmit",
        "PostToolUse-TaskCreate-1",
        "PostToolUse-TaskCreate-2",
        "PostToolUse-TaskUpdate-in_progress",
    ):
        machine.replay("claude-code", name)
    first, second = list(_statuses(machine, session))
    _person(machine, session, [{"op": "note", "task": second, "text": "Use the new API"}])

    # The step's two calls; the first hook answers before the second commits.
    done = machine.replay("claude-code", "PostToolUse-TaskUpdate-completed")
    started = machine.event("claude-code", "PostToolUse-TaskUpdate-in_progress")
    started["tool_input"]["taskId"] = started["tool_response"]["taskId"] = "2"
    started["tool_use_id"] = "toolu_05"
    machine.run("claude-code", started)

    assert _statuses(machine, session) == {first: "completed", second: "in_progress"}
    told = _context(done, "PostToolUse")  # read now, with the second call committed
    assert "Use the new API" in told  # the person's change is told
    assert "No task is in progress" not in told and "0/2 completed" not in told


CLAUDE_TASKS = "claude-code:5f0c2a9e-1b7d-4c3e-9a61-0d8e2f4b7c11"


def _claude_tasks(machine: Replay) -> tuple[str, str]:
    """Claude Code's two tasks, the first in progress (its Task tools: ops, no list)."""
    for name in (
        "UserPromptSubmit",
        "PostToolUse-TaskCreate-1",
        "PostToolUse-TaskCreate-2",
        "PostToolUse-TaskUpdate-in_progress",
    ):
        machine.replay("claude-code", name)
    first, second = list(_statuses(machine, CLAUDE_TASKS))
    return first, second


def test_claudes_task_tools_are_told_the_kept_line(machine: Replay) -> None:
    """Issue 31: Claude Code's TaskCreate / TaskUpdate are ops on a task list Claude Code
    keeps itself, which never hears of a person's change. The person adds a task and
    completes one while Claude works; the answer to Claude's next TaskUpdate says so as a
    plan tool's answer does, in the Kept line (PROTOCOL.md, Steering), not as a change."""
    first, second = _claude_tasks(machine)
    ops = [
        {"op": "append", "phase": "Todos", "items": ["Person task C"]},
        {"op": "done", "task": second},
    ]
    _person(machine, CLAUDE_TASKS, ops)

    told = _context(
        machine.replay("claude-code", "PostToolUse-TaskUpdate-completed"), "PostToolUse"
    )
    assert told.startswith(
        f'{KEPT}completed "{second}"; added "Person task C" to phase "Todos". '
        "Your todo list has them now"
    ), told
    assert "The user changed" not in told
    assert _statuses(machine, CLAUDE_TASKS) == {
        first: "completed",
        second: "completed",
        "Person task C": "pending",
    }


def test_a_persons_change_claudes_op_undid_is_not_told_as_kept(machine: Replay) -> None:
    """The Kept line names only what the plan holds: the person completed the task Claude
    had in progress, and Claude's next TaskUpdate started it again. That change is told as
    the person's, not as kept; the one it left (a note) is kept."""
    first, second = _claude_tasks(machine)
    ops = [{"op": "done", "task": first}, {"op": "note", "task": second, "text": "Use the API"}]
    _person(machine, CLAUDE_TASKS, ops)

    told = _context(
        machine.replay("claude-code", "PostToolUse-TaskUpdate-in_progress"), "PostToolUse"
    )
    assert _statuses(machine, CLAUDE_TASKS)[first] == "in_progress"
    kept, changed = told.split("The user changed the todo list: ")
    assert kept.startswith(KEPT) and "Use the API" in kept and f'completed "{first}"' not in kept
    assert changed.startswith(f'completed "{first}"'), told
