"""Codex CLI 0.171.0 itself, from npm, with what `plansight setup codex` wrote."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agent_home import AgentHome, agent_cli
from codex_trust import codex_hooks, hooks_listing, trust_every_hook
from scripted_models import ANSWER, CODEX_TOOL_SEARCH, PLAN_TOOL, scripted_model
from steering_story import (
    PERSON_TASK,
    carries_kept_line,
    only_session,
    person_adds_and_completes,
    statuses,
)

from plansight.codex_hook_trust import plansight_hook_trust, plansight_hooks
from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore


def _codex_home(person: AgentHome) -> str:
    return str(person.home / ".codex")


def test_codex_reads_the_hooks_setup_wrote(person: AgentHome) -> None:
    """Codex's own app server lists the hooks from hooks.json: events, matcher, command,
    and that they wait for the person's review (Codex trusts no new hook by itself)."""
    done = person.plansight("setup", "codex")
    assert done.returncode == 0, done.stderr
    listing = hooks_listing(person, Path(_codex_home(person)))
    assert listing["errors"] == [] and listing["warnings"] == []
    hooks = {hook["eventName"]: hook for hook in listing["hooks"]}
    assert set(hooks) == {"sessionStart", "userPromptSubmit", "postToolUse", "stop"}
    assert hooks["postToolUse"]["matcher"] == "update_plan|apply_patch"
    assert all(hook["command"].endswith("plansight hook codex") for hook in hooks.values())
    assert {hook["trustStatus"] for hook in hooks.values()} == {"untrusted"}


def test_a_codex_plan_and_patch_arrive(person: AgentHome) -> None:
    """A whole `codex exec` turn against a scripted model: update_plan (offered only with
    the switch setup turned on) and apply_patch reach the store through the hooks."""
    assert person.plansight("setup", "codex").returncode == 0
    plan = {
        "explanation": "Starting with the repro",
        "plan": [
            {"step": "Reproduce the login bug", "status": "in_progress"},
            {"step": "Fix the session check", "status": "pending"},
        ],
    }
    patch = (
        "*** Begin Patch\n*** Update File: app.py\n@@\n-print('hi')\n+print('hello')\n"
        "*** Add File: docs/notes.md\n+# Notes\n*** End Patch\n"
    )
    with scripted_model(
        "openai", [("update_plan", plan), ("apply_patch", {"patch": patch})]
    ) as model:
        provider = (
            f'{{name="scripted", base_url="{model.url}/v1", wire_api="responses", '
            "requires_openai_auth=false}"
        )
        done = person.run(
            [
                agent_cli("codex"),
                "exec",
                "--json",
                # The person's review of new hooks (`/hooks`), which a test cannot click.
                "--dangerously-bypass-hook-trust",
                *("-c", 'model="gpt-5.5"', "-c", 'model_provider="scripted"'),
                *("-c", f"model_providers.scripted={provider}"),
                *("-c", 'sandbox_mode="danger-full-access"', "-c", 'approval_policy="never"'),
                "Fix the login bug",
            ],
            CODEX_HOME=_codex_home(person),
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (person.project / "app.py").read_text() == "print('hello')\n"
    thread = next(
        json.loads(line)["thread_id"]
        for line in done.stdout.splitlines()
        if line.startswith("{") and json.loads(line).get("type") == "thread.started"
    )
    store = SqliteStore(default_store_path(person.project))
    try:
        stored = store.load(f"codex:{thread}")
        assert stored.title == "Fix the login bug"
        tasks = {task.content: task for task in stored.tasks()}
        assert tasks["Reproduce the login bug"].status == "in_progress"
        assert tasks["Reproduce the login bug"].notes == ["Starting with the repro"]
        assert tasks["Reproduce the login bug"].files == ["app.py", "docs/notes.md"]
        assert tasks["Fix the session check"].status == "pending"
    finally:
        store.close()

    # The person completes a task; Codex's next prompt carries it to the model.
    person_edit = person.plansight(
        *("apply", "--session", f"codex:{thread}", "--origin", "user"),
        *("--ops", '[{"op": "done", "task": "Fix the session check"}]'),
    )
    assert person_edit.returncode == 0, person_edit.stderr
    with scripted_model("openai", []) as model:
        resumed = _codex_exec(person, model.url, "resume", thread, "Carry on")
        told = json.dumps(model.requests[-1][1]["input"])
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "The user changed the todo list" in told and "Fix the session check" in told
    # A resumed thread lost its plan: SessionStart (source resume) tells it whole (v3).
    assert "[x] Fix the session check" in told and "[>] Reproduce the login bug" in told


def _codex_exec(person: AgentHome, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    provider = (
        f'{{name="scripted", base_url="{url}/v1", wire_api="responses", '
        "requires_openai_auth=false}"
    )
    return person.run(
        [
            agent_cli("codex"),
            "exec",
            "--json",
            # The person's review of new hooks (`/hooks`), which a test cannot click.
            "--dangerously-bypass-hook-trust",
            *("-c", 'model="gpt-5.5"', "-c", 'model_provider="scripted"'),
            *("-c", f"model_providers.scripted={provider}"),
            *("-c", 'sandbox_mode="danger-full-access"', "-c", 'approval_policy="never"'),
            *args,
        ],
        CODEX_HOME=_codex_home(person),
    )


def test_codexs_stale_plan_keeps_the_persons_changes_and_is_told(person: AgentHome) -> None:
    """Issue 21: the person adds a task and completes one while Codex works; Codex's next
    update_plan, from its stale copy, lacks both. Both stay, and Codex's next model request
    carries the Kept line its PostToolUse hook returned."""
    assert person.plansight("setup", "codex").returncode == 0
    plan = {
        "plan": [
            {"step": "Reproduce the login bug", "status": "in_progress"},
            {"step": "Fix the session check", "status": "pending"},
        ]
    }
    stale = ("update_plan", plan)
    meanwhile = {1: person_adds_and_completes(person, "codex", "Fix the session check")}
    with scripted_model("openai", [stale, stale], meanwhile) as model:
        done = _codex_exec(person, model.url, "Fix the login bug")
        after_stale_plan = model.requests[-1][1]["input"]
    assert done.returncode == 0, done.stdout + done.stderr
    session = only_session(person, "codex")
    assert statuses(person, session) == {
        "Reproduce the login bug": "in_progress",
        "Fix the session check": "completed",
        PERSON_TASK: "pending",
    }
    assert carries_kept_line(after_stale_plan, "Fix the session check")


def test_codex_is_told_the_whole_plan_after_compacting(person: AgentHome) -> None:
    """A context window filled mid-turn: Codex compacts its history, runs SessionStart with
    source compact, and the next model request carries every task of the plan."""
    assert person.plansight("setup", "codex").returncode == 0
    plan = {
        "plan": [
            {"step": "Reproduce the login bug", "status": "in_progress"},
            {"step": "Fix the session check", "status": "pending"},
        ]
    }
    with scripted_model("openai", [("update_plan", plan)]) as model:
        model.tokens_once = 900_000
        done = _codex_exec(
            person, model.url, "-c", "model_auto_compact_token_limit=200000", "Fix the login bug"
        )
        last = json.dumps(model.requests[-1][1]["input"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[>] Reproduce the login bug" in last and "[ ] Fix the session check" in last
    log = (person.state / "plansight" / "hook.log").read_text(encoding="utf-8")
    assert " event=SessionStart source=compact " in log, log


def test_codex_forks_the_plan(person: AgentHome) -> None:
    """Issue 31 item 3: `codex exec fork <id>` starts a new thread (SessionStart source
    "fork", its rollout naming the forked one) whose plan is a copy of the forked one,
    titled as a fork and told whole to its model; from then on each changes alone."""
    assert person.plansight("setup", "codex").returncode == 0
    plan = {
        "plan": [
            {"step": "Reproduce the login bug", "status": "in_progress"},
            {"step": "Fix the session check", "status": "pending"},
        ]
    }
    with scripted_model("openai", [("update_plan", plan)]) as model:
        first = _codex_exec(person, model.url, "Fix the login bug")
    assert first.returncode == 0, first.stdout + first.stderr
    session = only_session(person, "codex")
    thread = session.removeprefix("codex:")
    moved = {
        "plan": [
            {"step": "Reproduce the login bug", "status": "completed"},
            {"step": "Fix the session check", "status": "in_progress"},
        ]
    }
    # The scripted model's step is the count of tool outputs in the history: the forked
    # thread's update_plan is step 0.
    with scripted_model("openai", [("update_plan", plan), ("update_plan", moved)]) as model:
        forked = _codex_exec(person, model.url, "fork", thread, "Go on")
        told = json.dumps(model.requests[0][1]["input"])
    assert forked.returncode == 0, forked.stdout + forked.stderr
    store = SqliteStore(default_store_path(person.project))
    try:
        [fork] = [p for p in store.sessions() if p.session != session]
        assert fork.title == "Fix the login bug (fork)"
    finally:
        store.close()
    assert "[>] Reproduce the login bug" in told and "[ ] Fix the session check" in told
    assert statuses(person, fork.session) == {
        "Reproduce the login bug": "completed",
        "Fix the session check": "in_progress",
    }
    assert statuses(person, session)["Reproduce the login bug"] == "in_progress"


def test_plansight_reads_codexs_trust_as_codex_does(person: AgentHome) -> None:
    """The key and hash Plansight computes for each of its hooks (so the MCP server can
    tell without starting Codex) are those Codex's app server lists; and trusting them as
    `/hooks` does makes Plansight's reading say so."""
    assert person.plansight("setup", "codex").returncode == 0
    codex_home = Path(_codex_home(person))
    listed = {hook["key"]: hook["currentHash"] for hook in codex_hooks(person, codex_home)}
    assert dict(plansight_hooks(codex_home / "hooks.json")) == listed
    assert plansight_hook_trust(codex_home, person.project) == "untrusted"
    trust_every_hook(person, codex_home)
    assert plansight_hook_trust(codex_home, person.project) == "trusted"


def test_an_untrusting_codex_is_told_to_ask_for_the_hooks_review(person: AgentHome) -> None:
    """Issue 31 item 6: until the person trusts Plansight's hooks in `/hooks`, Codex runs
    none of them and nothing arrives by itself; the answer of Plansight's MCP plan tool
    tells the model to ask the person for it. Once trusted, the answer no longer says so."""
    assert person.plansight("setup", "codex").returncode == 0
    before = _plan_tool_answer(person)
    assert "Fix it" in before and "trust Plansight's hooks" in before and "/hooks" in before
    trust_every_hook(person, Path(_codex_home(person)))
    after = _plan_tool_answer(person)
    assert "Fix it" in after and "/hooks" not in after, after


def _plan_tool_answer(person: AgentHome) -> str:
    """What Plansight's MCP todo_write answered in a Codex turn, as Codex sent it back. The
    model finds the tool with Codex's tool_search (MCP tools are deferred for gpt-5.5)."""
    todos = [{"content": "Fix it", "activeForm": "Fixing it", "status": "pending"}]
    script = [
        (CODEX_TOOL_SEARCH, {"query": "todo list plan", "limit": 5}),
        (PLAN_TOOL, {"todo_write": {"todos": todos}}),
    ]
    with scripted_model("openai", script) as model:
        # No `required`: the startup grace setup wrote lets the first turn wait for it.
        done = _codex_exec(person, model.url, "Fix the login bug")
        outputs = [
            json.dumps(item.get("output"))
            for item in model.requests[-1][1]["input"]
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
    assert done.returncode == 0, done.stdout + done.stderr
    [answer] = outputs
    return answer


PROPOSED = (Path(__file__).parents[1] / "fixtures/hooks/codex/Stop-proposed_plan.json").read_text()


def test_codexs_proposed_plan_arrives(person: AgentHome) -> None:
    """Issue 31: Codex's plan mode proposes its plan as a `<proposed_plan>` block in the
    turn's last message, with no tool call. The `Stop` hook setup installs hears the
    message, and the block's checklist is the conversation's plan, in its `codex:<id>`
    session, titled by the plan's own `#` line (as Claude Code's approved plan is)."""
    assert person.plansight("setup", "codex").returncode == 0
    message = json.loads(PROPOSED)["last_assistant_message"]
    with scripted_model("openai", [(ANSWER, {"text": message})]) as model:
        done = _codex_exec(person, model.url, "Plan the login fix")
    assert done.returncode == 0, done.stdout + done.stderr
    thread = next(
        json.loads(line)["thread_id"]
        for line in done.stdout.splitlines()
        if line.startswith("{") and json.loads(line).get("type") == "thread.started"
    )
    store = SqliteStore(default_store_path(person.project))
    try:
        plan = store.load(f"codex:{thread}")
        assert plan.title == "Fix the login bug"
        assert {phase.name: [t.content for t in phase.tasks] for phase in plan.phases} == {
            "Implementation Changes": [
                "Reproduce the login bug with a failing test",
                "Fix the session check in app.py",
            ],
            "Test Plan": ["Run the login tests"],
        }
    finally:
        store.close()


def test_codexs_plan_through_plansights_mcp_tool_is_its_conversations(person: AgentHome) -> None:
    """Issue 31 item 1 with the real Codex: its model plans with Plansight's MCP
    `todo_write` (found with Codex's tool_search); the plan lands in the session its hooks
    use, `codex:<thread id>`, titled from the prompt, and no session of the MCP server's
    own is made. Codex passes its MCP servers a few variables of its environment only:
    the test's XDG_STATE_HOME reaches the server because setup names it in `env_vars`.
    Nothing but what setup wrote: no `required`."""
    assert person.plansight("setup", "codex").returncode == 0
    _plans_through_plansights_mcp_tool(person)


def test_a_slow_starting_plansight_mcp_is_in_codexs_first_turn(
    person: AgentHome, tmp_path: Path
) -> None:
    """Issue 31: Codex leaves out of a turn an MCP server that has not finished starting
    within `mcp_optional_startup_grace_ms` (1 s by default). A `plansight mcp` that takes
    3 s to start, as on a loaded machine, still has its tools in the first turn, with
    what setup wrote (its grace) and no `required`."""
    assert person.plansight("setup", "codex").returncode == 0
    slow = tmp_path / "slow-plansight"
    slow.write_text(f'#!/bin/sh\nsleep 3\nexec "{sys.executable}" -m plansight "$@"\n')
    slow.chmod(0o755)
    _plans_through_plansights_mcp_tool(
        person,
        *("-c", f"mcp_servers.plansight.command={json.dumps(str(slow))}"),
        *("-c", 'mcp_servers.plansight.args=["mcp"]'),
    )


def _plans_through_plansights_mcp_tool(person: AgentHome, *args: str) -> None:
    """A `codex exec` whose model searches for a plan tool and plans with Plansight's
    `todo_write`; the plan is its conversation's."""
    todos = [{"content": "Fix it", "activeForm": "Fixing it", "status": "in_progress"}]
    script = [
        (CODEX_TOOL_SEARCH, {"query": "todo list plan", "limit": 5}),
        (PLAN_TOOL, {"todo_write": {"todos": todos}}),
    ]
    with scripted_model("openai", script) as model:
        done = _codex_exec(person, model.url, *args, "Fix the login bug")
        answers = [
            item.get("output")
            for item in model.requests[-1][1]["input"]
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
    assert done.returncode == 0, done.stdout + done.stderr
    thread = next(
        json.loads(line)["thread_id"]
        for line in done.stdout.splitlines()
        if line.startswith("{") and json.loads(line).get("type") == "thread.started"
    )
    store = SqliteStore(default_store_path(person.project))
    try:
        sessions = [summary.session for summary in store.sessions()]
        assert sessions == [f"codex:{thread}"], (sessions, answers)
        plan = store.load(f"codex:{thread}")
        assert plan.title == "Fix the login bug"
        assert [task.content for task in plan.tasks()] == ["Fix it"]
    finally:
        store.close()


def test_codexs_todo_read_tells_the_model_the_persons_changes(person: AgentHome) -> None:
    """Issue 31: Codex gives its model a tool's structured content, not its text, when
    there is some. The person adds a task and completes one after Codex planned with
    Plansight's MCP tool; the result of Codex's next todo_read, as the model reads it,
    says what the person changed."""
    assert person.plansight("setup", "codex").returncode == 0
    trust_every_hook(person, Path(_codex_home(person)))
    todos = [
        {"content": "Reproduce the login bug", "activeForm": "Reproducing", "status": "pending"},
        {"content": "Fix the session check", "activeForm": "Fixing", "status": "pending"},
    ]
    script = [
        (CODEX_TOOL_SEARCH, {"query": "todo list plan", "limit": 5}),
        (PLAN_TOOL, {"todo_write": {"todos": todos}}),
        (PLAN_TOOL, {"todo_read": {}}),
    ]
    meanwhile = {2: person_adds_and_completes(person, "codex", "Fix the session check")}
    with scripted_model("openai", script, meanwhile) as model:
        done = _codex_exec(person, model.url, "Fix the login bug")
        outputs = [
            json.dumps(item.get("output"), ensure_ascii=False)
            for item in model.requests[-1][1]["input"]
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
    assert done.returncode == 0, done.stdout + done.stderr
    read = outputs[-1]
    assert "The user changed the todo list" in read, read
    assert "Fix the session check" in read and PERSON_TASK in read
