"""Claude Code 2.1.332 itself, from npm, with what `plansight setup claude-code` wrote."""

from __future__ import annotations

import json
import sys
from typing import Any

from agent_home import REPO, AgentHome, agent_cli
from scripted_models import PLAN_TOOL, TOOL_SEARCH, scripted_model
from steering_story import (
    PERSON_TASK,
    carries_kept_line,
    only_session,
    person_adds_and_completes,
    reads_no_escaped_markup,
    statuses,
)

from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore


def test_claude_validates_the_settings_setup_wrote(person: AgentHome) -> None:
    claude = agent_cli("claude")
    settings = person.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    # First a file Claude rejects, so this test can tell a check that reports nothing.
    settings.write_text('{"hooks": {"PostToolUse": [{"matcher": 5, "hooks": []}]}}')
    broken = person.run([claude, "doctor"])
    assert "Invalid settings" in broken.stdout, broken.stdout

    settings.write_text('{"model": "sonnet", "permissions": {"allow": ["Read"]}}\n')
    done = person.plansight("setup", "claude-code")
    assert done.returncode == 0, done.stderr
    written = json.loads(settings.read_text())
    assert written["model"] == "sonnet" and written["permissions"] == {"allow": ["Read"]}
    assert set(written["hooks"]) == {"SessionStart", "UserPromptSubmit", "PostToolUse"}

    checked = person.run([claude, "doctor"])
    assert checked.returncode == 0, checked.stderr
    assert "Invalid settings" not in checked.stdout, checked.stdout


def test_claude_mcp_list_reports_plansight_connected(person: AgentHome) -> None:
    claude = agent_cli("claude")
    added = person.run(
        [claude, "mcp", "add", "plansight", "--", sys.executable, "-m", "plansight", "mcp"]
    )
    assert added.returncode == 0, added.stderr
    listed = person.run([claude, "mcp", "list"])
    line = next((row for row in listed.stdout.splitlines() if row.startswith("plansight")), "")
    assert "Connected" in line, listed.stdout + listed.stderr


def test_the_plugin_installs_from_a_clone(person: AgentHome) -> None:
    claude = agent_cli("claude")
    for command in (
        [claude, "plugin", "validate", str(REPO)],
        [claude, "plugin", "marketplace", "add", str(REPO)],
        [claude, "plugin", "install", "plansight@plansight"],
    ):
        done = person.run(command)
        assert done.returncode == 0, done.stdout + done.stderr
    details = person.run([claude, "plugin", "details", "plansight"]).stdout
    assert "Hooks (3)" in details and "SessionStart, UserPromptSubmit, PostToolUse" in details
    assert "MCP servers (1)" in details and "plansight" in details


SCRIPT = [
    (
        "TaskCreate",
        {
            "subject": "Reproduce the login bug",
            "description": "Find the failing case",
            "activeForm": "Reproducing the login bug",
        },
    ),
    ("TaskCreate", {"subject": "Fix the session check", "description": "Patch app.py"}),
    ("TaskUpdate", {"taskId": "1", "status": "in_progress"}),
    (
        "Edit",
        {
            "file_path": "{project}/app.py",
            "old_string": "print('hi')",
            "new_string": "print('hello')",
        },
    ),
    ("TaskUpdate", {"taskId": "1", "status": "completed"}),
]


def _claude_turn(person: AgentHome, url: str, *args: str) -> dict[str, object]:
    done = person.run(
        [
            agent_cli("claude"),
            "-p",
            *args,
            "--output-format",
            "json",
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",
            "TaskCreate,TaskUpdate,Edit",
        ],
        ANTHROPIC_BASE_URL=url,
        ANTHROPIC_API_KEY="sk-scripted",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_claude_session_arrives_and_hears_the_persons_edit(person: AgentHome) -> None:
    """The issue's story, with the real Claude Code: the plan and the edited file appear
    in the store under the prompt's title; a person completes a task; the next prompt
    carries what the person changed to the model."""
    assert person.plansight("setup", "claude-code").returncode == 0
    script = [
        (name, {k: v.replace("{project}", str(person.project)) for k, v in args.items()})
        for name, args in SCRIPT
    ]
    with scripted_model("anthropic", script) as model:
        first = _claude_turn(person, model.url, "Fix the login bug\nUsers are logged out at once.")
    assert (person.project / "app.py").read_text() == "print('hello')\n"
    session = f"claude-code:{first['session_id']}"

    store = SqliteStore(default_store_path(person.project))
    try:
        plan = store.load(session)
        assert plan.title == "Fix the login bug"
        tasks = {task.content: task for task in plan.tasks()}
        assert tasks["Reproduce the login bug"].status == "completed"
        assert tasks["Reproduce the login bug"].files == ["app.py"]
        assert tasks["Fix the session check"].status == "pending"
    finally:
        store.close()

    person_edit = person.plansight(
        "apply",
        "--session",
        session,
        "--origin",
        "user",
        "--ops",
        '[{"op": "done", "task": "Fix the session check"}]',
    )
    assert person_edit.returncode == 0, person_edit.stderr
    with scripted_model("anthropic", []) as model:
        _claude_turn(person, model.url, "--resume", str(first["session_id"]), "Carry on")
        main_loop = [
            r
            for _, r in model.requests
            if any(t.get("name") == "Edit" for t in r.get("tools") or [])
        ]
    told = json.dumps(main_loop[0]["messages"])
    assert "Fix the session check" in told and "The user changed the todo list" in told
    assert reads_no_escaped_markup(main_loop[0]["messages"])
    # Resumed, its context lost the plan its Task tools made: SessionStart (source
    # resume) tells it whole (issue 31's table, with the default model's own plan tools).
    assert "[x] Reproduce the login bug" in told and "[x] Fix the session check" in told


TODOS = [
    {"content": "Reproduce the login bug", "status": "in_progress", "activeForm": "Reproducing"},
    {"content": "Fix the session check", "status": "pending", "activeForm": "Fixing"},
]


def _todowrite_turn(person: AgentHome, url: str, *args: str) -> dict[str, object]:
    """A `claude -p` turn planning with TodoWrite (Claude Code 2.1 offers it instead of its
    Task tools with CLAUDE_CODE_ENABLE_TASKS=false)."""
    done = person.run(
        [
            agent_cli("claude"),
            "-p",
            *args,
            *("--output-format", "json", "--allowedTools", "TodoWrite"),
        ],
        ANTHROPIC_BASE_URL=url,
        ANTHROPIC_API_KEY="sk-scripted",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_ENABLE_TASKS="false",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _main_loop(requests: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [r for _, r in requests if any(t.get("name") == "Edit" for t in r.get("tools") or [])]


def test_claudes_stale_todowrite_keeps_the_persons_changes_and_is_told(
    person: AgentHome,
) -> None:
    """Issue 21: the person adds a task and completes one while Claude works; Claude's next
    TodoWrite, from its stale copy, lacks both. Both stay, and Claude's next model request
    carries the Kept line its PostToolUse hook returned."""
    assert person.plansight("setup", "claude-code").returncode == 0
    stale = ("TodoWrite", {"todos": TODOS})
    meanwhile = {1: person_adds_and_completes(person, "claude-code", "Fix the session check")}
    with scripted_model("anthropic", [stale, stale], meanwhile) as model:
        _todowrite_turn(person, model.url, "Fix the login bug")
        after_stale_write = _main_loop(model.requests)[2]
    session = only_session(person, "claude-code")
    assert statuses(person, session) == {
        "Reproduce the login bug": "in_progress",
        "Fix the session check": "completed",
        PERSON_TASK: "pending",
    }
    assert carries_kept_line(after_stale_write["messages"][-1], "Fix the session check")
    assert reads_no_escaped_markup(after_stale_write["messages"][-1])


def test_claude_is_told_the_whole_plan_after_compact(person: AgentHome) -> None:
    """`/compact` drops the plan from Claude's context; SessionStart (source compact) gives
    it back whole, and the next model request carries every task."""
    assert person.plansight("setup", "claude-code").returncode == 0
    with scripted_model("anthropic", [("TodoWrite", {"todos": TODOS})]) as model:
        first = _todowrite_turn(person, model.url, "Fix the login bug")
    session_id = str(first["session_id"])
    with scripted_model("anthropic", []) as model:
        _todowrite_turn(person, model.url, "--resume", session_id, "/compact")
        _todowrite_turn(person, model.url, "--resume", session_id, "Carry on")
        told = json.dumps(_main_loop(model.requests)[-1]["messages"])
    assert "[>] Reproduce the login bug" in told
    # Whole twice: the compaction's SessionStart (kept after the summary in the transcript)
    # and this turn's resume; the counts alone would never draw the task.
    assert told.count("[ ] Fix the session check") >= 2, told


def test_claude_planning_with_its_task_tools_is_told_the_whole_plan_after_compact(
    person: AgentHome,
) -> None:
    """As above, with the default model's own plan tools (TaskCreate / TaskUpdate, a task
    list Claude Code keeps itself): after `/compact` the next request carries every task."""
    assert person.plansight("setup", "claude-code").returncode == 0
    with scripted_model("anthropic", SCRIPT[:2]) as model:
        first = _claude_turn(person, model.url, "Fix the login bug")
    session_id = str(first["session_id"])
    with scripted_model("anthropic", []) as model:
        _claude_turn(person, model.url, "--resume", session_id, "/compact")
        _claude_turn(person, model.url, "--resume", session_id, "Carry on")
        told = json.dumps(_main_loop(model.requests)[-1]["messages"])
    # Whole twice: the compaction's SessionStart and this turn's resume.
    assert told.count("[ ] Reproduce the login bug") >= 2, told
    assert told.count("[ ] Fix the session check") >= 2, told


def test_claude_carries_the_plan_on_after_clear(person: AgentHome) -> None:
    """`/clear` starts a new conversation (a new session id, SessionStart source "clear",
    reachable in `claude -p` as the prompt): it carries on the cleared conversation's
    unfinished plan in the same Plansight session, and the model's next request carries
    every task."""
    assert person.plansight("setup", "claude-code").returncode == 0
    with scripted_model("anthropic", [("TodoWrite", {"todos": TODOS})]) as model:
        first = _todowrite_turn(person, model.url, "Fix the login bug")
    session_id = str(first["session_id"])
    with scripted_model("anthropic", []) as model:
        cleared = _todowrite_turn(person, model.url, "--resume", session_id, "/clear")
        new_id = str(cleared["session_id"])
        _todowrite_turn(person, model.url, "--resume", new_id, "Carry on")
        told = json.dumps(_main_loop(model.requests)[-1]["messages"])
    assert new_id != session_id
    assert only_session(person, "claude-code") == f"claude-code:{session_id}"
    # Whole twice: the clear's SessionStart (kept in the new transcript) and this turn's
    # resume of the new conversation, which carries the same plan on.
    assert "[>] Reproduce the login bug" in told
    assert told.count("[ ] Fix the session check") >= 2, told


def test_claude_continues_and_forks_the_plan(person: AgentHome) -> None:
    """Issue 31 item 3: `--continue` goes on in the same conversation (the same session id:
    its plan goes on by itself) and is told it whole; `--fork-session` starts a new one
    (a new id, SessionStart source "fork") whose plan is a copy of the forked one, titled
    as a fork, told whole to its model; from then on each changes alone."""
    assert person.plansight("setup", "claude-code").returncode == 0
    with scripted_model("anthropic", [("TodoWrite", {"todos": TODOS})]) as model:
        first = _todowrite_turn(person, model.url, "Fix the login bug")
    session = f"claude-code:{first['session_id']}"
    with scripted_model("anthropic", []) as model:
        continued = _todowrite_turn(person, model.url, "--continue", "Carry on")
        told = json.dumps(_main_loop(model.requests)[-1]["messages"])
    assert continued["session_id"] == first["session_id"]
    assert "[ ] Fix the session check" in told

    done = [{**TODOS[0], "status": "completed"}, {**TODOS[1], "status": "in_progress"}]
    # The scripted model's step is the count of tool results in the history: the first
    # turn's TodoWrite is step 0.
    script = [("TodoWrite", {"todos": TODOS}), ("TodoWrite", {"todos": done})]
    with scripted_model("anthropic", script) as model:
        forked = _todowrite_turn(person, model.url, "--continue", "--fork-session", "Go on")
        told = json.dumps(_main_loop(model.requests)[0]["messages"])
    fork = f"claude-code:{forked['session_id']}"
    assert fork != session
    assert "[>] Reproduce the login bug" in told and "[ ] Fix the session check" in told
    assert statuses(person, fork) == {
        "Reproduce the login bug": "completed",
        "Fix the session check": "in_progress",
    }
    assert statuses(person, session)["Reproduce the login bug"] == "in_progress"
    store = SqliteStore(default_store_path(person.project))
    try:
        assert store.load(fork).title == "Fix the login bug (fork)"
    finally:
        store.close()


def test_claudes_task_tools_are_told_the_kept_line(person: AgentHome) -> None:
    """Issue 31: Claude Code's Task tools are ops on a task list Claude Code keeps itself.
    The person adds a task and completes one while Claude works; the result of Claude's
    next TaskUpdate carries the Kept line to the model, as a whole list's answer does."""
    assert person.plansight("setup", "claude-code").returncode == 0
    script = [
        (name, {k: v.replace("{project}", str(person.project)) for k, v in args.items()})
        for name, args in SCRIPT
    ]
    meanwhile = {4: person_adds_and_completes(person, "claude-code", "Fix the session check")}
    with scripted_model("anthropic", script, meanwhile) as model:
        _claude_turn(person, model.url, "Fix the login bug")
        after_update = _main_loop(model.requests)[-1]
    session = only_session(person, "claude-code")
    assert statuses(person, session) == {
        "Reproduce the login bug": "completed",
        "Fix the session check": "completed",
        PERSON_TASK: "pending",
    }
    assert carries_kept_line(after_update["messages"][-1], "Fix the session check")
    assert reads_no_escaped_markup(after_update["messages"][-1])


def test_claude_forks_the_conversation_it_was_asked_to(person: AgentHome) -> None:
    """Issue 31: `--resume <id> --fork-session` of a conversation other than the folder's
    last planned one forks that conversation's plan (Claude Code's SessionStart names no
    parent; its command line does), and `--continue --fork-session` forks the newest
    conversation, which had no plan: its fork starts with none."""
    assert person.plansight("setup", "claude-code").returncode == 0
    with scripted_model("anthropic", [("TodoWrite", {"todos": TODOS})]) as model:
        first = _todowrite_turn(person, model.url, "Fix the login bug")
    other = [{"content": "Write the release notes", "status": "in_progress", "activeForm": "W"}]
    with scripted_model("anthropic", [("TodoWrite", {"todos": other})]) as model:
        _todowrite_turn(person, model.url, "Prepare the release")
    with scripted_model("anthropic", []) as model:
        forked = _todowrite_turn(
            person, model.url, "--resume", str(first["session_id"]), "--fork-session", "Go on"
        )
    fork = f"claude-code:{forked['session_id']}"
    assert statuses(person, fork) == {
        "Reproduce the login bug": "in_progress",
        "Fix the session check": "pending",
    }
    store = SqliteStore(default_store_path(person.project))
    try:
        assert store.load(fork).title == "Fix the login bug (fork)"
    finally:
        store.close()

    with scripted_model("anthropic", []) as model:
        unplanned = _todowrite_turn(person, model.url, "Just a question")
        again = _todowrite_turn(person, model.url, "--continue", "--fork-session", "And?")
    assert again["session_id"] not in (unplanned["session_id"], forked["session_id"])
    assert statuses(person, f"claude-code:{again['session_id']}") == {}


def test_claudes_todo_read_tells_the_model_the_persons_changes(person: AgentHome) -> None:
    """Issue 31: Claude Code hands the model a tool's structured content, not its text,
    when there is some. The person adds a task and completes one after Claude planned with
    Plansight's MCP tool; the result of Claude's next todo_read, as the model reads it,
    says what the person changed."""
    assert person.plansight("setup", "claude-code").returncode == 0
    todos = [{**todo, "status": "pending"} for todo in TODOS]
    script = [
        (PLAN_TOOL, {"todo_write": {"todos": todos}}),
        (PLAN_TOOL, {"todo_read": {}}),
    ]
    meanwhile = {1: person_adds_and_completes(person, "claude-code", "Fix the session check")}
    with scripted_model("anthropic", script, meanwhile) as model:
        ran = person.run(
            [
                agent_cli("claude"),
                *("-p", "Fix the login bug", "--output-format", "json"),
                "--allowedTools",
                f"{TOOL_SEARCH},mcp__plansight__todo_write,mcp__plansight__todo_read",
            ],
            ANTHROPIC_BASE_URL=model.url,
            ANTHROPIC_API_KEY="sk-scripted",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
        )
        after_read = _main_loop(model.requests)[-1]
    assert ran.returncode == 0, ran.stdout + ran.stderr
    messages = after_read["messages"]
    [call] = [use["id"] for use in _uses(messages) if use["name"].endswith("todo_read")]
    [read] = [result for result in _results(messages) if result["tool_use_id"] == call]
    told = json.dumps(read["content"], ensure_ascii=False)
    assert "The user changed the todo list" in told, told
    assert "Fix the session check" in told and PERSON_TASK in told


def _uses(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return _blocks(messages, "assistant", "tool_use")


def _results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return _blocks(messages, "user", "tool_result")


def _blocks(messages: list[dict[str, Any]], role: str, kind: str) -> list[dict[str, Any]]:
    return [
        block
        for message in messages
        if message["role"] == role and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == kind
    ]
