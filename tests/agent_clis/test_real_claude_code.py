"""Claude Code 2.1.330 itself, from npm, with what `plansight setup claude-code` wrote."""

from __future__ import annotations

import json
import sys

from agent_home import REPO, AgentHome, agent_cli
from scripted_models import scripted_model

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
