"""Gemini CLI 0.61.0 itself, from npm, with what `plansight setup gemini` wrote."""

from __future__ import annotations

import json
import re
from typing import Any

from agent_home import AgentHome, agent_cli
from scripted_models import ToolCall, scripted_model
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


def test_a_gemini_plan_and_edits_arrive(person: AgentHome) -> None:
    """A whole `gemini -p` turn against a scripted model. Gemini CLI offers write_todos to
    its 2.x models only (not to the Gemini 3 previews), hence the model chosen here."""
    settings = person.home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    # First a file Gemini CLI rejects, so this test can tell a check that reports nothing.
    settings.write_text('{"hooks": {"AfterTool": [{"matcher": 5, "hooks": []}]}}')
    with scripted_model("gemini", []) as model:
        broken = person.run(
            [agent_cli("gemini"), "-m", "gemini-2.5-pro", "-p", "hi"],
            GEMINI_API_KEY="scripted",
            GOOGLE_GEMINI_BASE_URL=model.url,
        )
    assert "Invalid configuration" in broken.stdout + broken.stderr
    settings.write_text("{}")

    done = person.plansight("setup", "gemini")
    assert done.returncode == 0, done.stderr
    written = json.loads(settings.read_text())
    written["security"] = {"auth": {"selectedType": "gemini-api-key"}}
    settings.write_text(json.dumps(written))
    # The person trusts the project (Gemini CLI runs nothing headless in an untrusted one).
    trusted = {str(person.project): "TRUST_FOLDER"}
    (person.home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
    script = [
        (
            "write_todos",
            {
                "todos": [
                    {"description": "Reproduce the login bug", "status": "in_progress"},
                    {"description": "Fix the session check", "status": "pending"},
                ]
            },
        ),
        ("write_file", {"file_path": f"{person.project}/docs/notes.md", "content": "# Notes\n"}),
        (
            "replace",
            {
                "file_path": f"{person.project}/app.py",
                "instruction": "greet",
                "old_string": "print('hi')",
                "new_string": "print('hello')",
            },
        ),
    ]
    with scripted_model("gemini", script) as model:
        ran = person.run(
            [agent_cli("gemini"), "-m", "gemini-2.5-pro", "--yolo", "-p", "Fix the login bug"],
            GEMINI_API_KEY="scripted",
            GOOGLE_GEMINI_BASE_URL=model.url,
        )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Invalid configuration" not in ran.stdout + ran.stderr  # Gemini's own check
    assert (person.project / "app.py").read_text() == "print('hello')\n"
    store = SqliteStore(default_store_path(person.project))
    try:
        [plan] = [p for p in store.sessions() if p.session.startswith("gemini:")]
        assert plan.title == "Fix the login bug"
        tasks = {task.content: task for task in plan.tasks()}
        assert tasks["Reproduce the login bug"].status == "in_progress"
        assert tasks["Reproduce the login bug"].files == ["docs/notes.md", "app.py"]
        assert tasks["Fix the session check"].status == "pending"
    finally:
        store.close()

    # The person drops a task; Gemini's next prompt (BeforeAgent) carries it to the model.
    person_edit = person.plansight(
        *("apply", "--session", plan.session, "--origin", "user"),
        *("--ops", '[{"op": "drop", "task": "Fix the session check"}]'),
    )
    assert person_edit.returncode == 0, person_edit.stderr
    with scripted_model("gemini", []) as model:
        resumed = person.run(
            [agent_cli("gemini"), "-m", "gemini-2.5-pro", "--resume", "latest", "-p", "Carry on"],
            GEMINI_API_KEY="scripted",
            GOOGLE_GEMINI_BASE_URL=model.url,
        )
        told = json.dumps([r for _, r in model.requests if r.get("tools")][-1]["contents"])
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    # Gemini CLI escapes < and > in what a hook adds (its hookRunner), hence &lt;.
    assert "The user changed the todo list" in told and "Fix the session check" in told
    # A resumed session lost its plan: SessionStart (source resume) tells it whole (v3).
    assert "[-] Fix the session check" in told and "[&gt;] Reproduce the login bug" in told


TODOS = {
    "todos": [
        {"description": "Reproduce the login bug", "status": "in_progress"},
        {"description": "Fix the session check", "status": "pending"},
    ]
}


def _set_up(person: AgentHome) -> None:
    """`plansight setup gemini`, an API key login, and the project trusted, as a person
    would (Gemini CLI runs nothing headless in an untrusted folder)."""
    assert person.plansight("setup", "gemini").returncode == 0
    settings = person.home / ".gemini" / "settings.json"
    written = json.loads(settings.read_text())
    written["security"] = {"auth": {"selectedType": "gemini-api-key"}}
    settings.write_text(json.dumps(written))
    trusted = {str(person.project): "TRUST_FOLDER"}
    (person.home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))


def _gemini(person: AgentHome, url: str, *args: str) -> None:
    ran = person.run(
        [agent_cli("gemini"), "-m", "gemini-2.5-pro", "--yolo", *args],
        GEMINI_API_KEY="scripted",
        GOOGLE_GEMINI_BASE_URL=url,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_geminis_stale_todos_keep_the_persons_changes_and_it_is_told(person: AgentHome) -> None:
    """Issue 21: the person adds a task and completes one while Gemini works; Gemini's next
    write_todos, from its stale copy, lacks both. Both stay, and Gemini's next model request
    carries the Kept line its AfterTool hook returned."""
    _set_up(person)
    stale = ("write_todos", TODOS)
    meanwhile = {1: person_adds_and_completes(person, "gemini", "Fix the session check")}
    with scripted_model("gemini", [stale, stale], meanwhile) as model:
        _gemini(person, model.url, "-p", "Fix the login bug")
        after_stale_todos = [r for _, r in model.requests if r.get("tools")][-1]["contents"]
    session = only_session(person, "gemini")
    assert statuses(person, session) == {
        "Reproduce the login bug": "in_progress",
        "Fix the session check": "completed",
        PERSON_TASK: "pending",
    }
    assert carries_kept_line(after_stale_todos, "Fix the session check")
    assert reads_no_escaped_markup(after_stale_todos)


def test_gemini_is_told_the_whole_plan_after_an_automatic_compression(
    person: AgentHome,
) -> None:
    """Gemini CLI compresses its history by itself when the last request used over half
    of the window (here the model reports 700,000 prompt tokens of 1,048,576). No hook is
    told: the next BeforeModel's messages begin with the summary, the hook sees it, and
    the next tool answer that can carry context (an edit's) gives the plan back whole."""
    _set_up(person)
    with scripted_model("gemini", [("write_todos", TODOS)]) as model:
        _gemini(person, model.url, "-p", "Fix the login bug")
    edit = ("write_file", {"file_path": f"{person.project}/notes.txt", "content": "notes\n"})
    # The second turn: its history has a turn before it to compress (a compression keeps
    # the newest turn whole), and its first answer reports a full window. (The script
    # steps by the tool results a request holds, the resumed ones included.)
    with scripted_model("gemini", [("write_todos", TODOS), *[edit] * 5]) as model:
        model.tokens_once = 700_000
        _gemini(person, model.url, "--resume", "latest", "-p", "Go on")
        requests = [r for _, r in model.requests if r.get("tools")]
    compressed = [
        n
        for n, r in enumerate(requests)
        if "Got it. Thanks for the additional context!" in json.dumps(r["contents"])
    ]
    assert compressed, "Gemini CLI did not compress"
    results = [
        json.dumps(part["functionResponse"])
        for part in requests[compressed[0] + 1]["contents"][-1]["parts"]
        if "functionResponse" in part
    ]
    assert len(results) == 1 and "write_file" in results[0]
    # The edit's answer: every task, as `context` with `full: true` draws them.
    assert "[&gt;] Reproduce the login bug" in results[0], results[0]
    assert "[ ] Fix the session check" in results[0], results[0]
    # Once: the next edit's answer is the tool's own.
    later = json.dumps(requests[compressed[0] + 2]["contents"][-1])
    assert "Fix the session check" not in later


def test_geminis_approved_plan_mode_plan_arrives(person: AgentHome) -> None:
    """Issue 31 item 3: the plan approved on leaving Gemini CLI's plan mode
    (`exit_plan_mode`, its plan a markdown file in the plans folder) arrives as the
    conversation's plan: headings as phases, checklist items as tasks."""
    _set_up(person)
    settings = person.home / ".gemini" / "settings.json"
    written = json.loads(settings.read_text())
    written["general"] = {"plan": {"directory": "plans"}}  # in the project: the test writes it
    settings.write_text(json.dumps(written))
    (person.project / "plans").mkdir()
    (person.project / "plans" / "fix.md").write_text(
        "# Fix the login bug\n\nThe session check reads the wrong cookie.\n\n"
        "## Investigate\n- [ ] Reproduce the login bug\n\n## Fix\n- [ ] Patch app.py\n"
    )
    script = [("exit_plan_mode", {"plan_filename": "fix.md"})]
    plan_mode = ("--approval-mode", "plan")
    with scripted_model("gemini", script) as model:
        ran = person.run(
            [agent_cli("gemini"), "-m", "gemini-2.5-pro", *plan_mode, "-p", "Plan the fix"],
            GEMINI_API_KEY="scripted",
            GOOGLE_GEMINI_BASE_URL=model.url,
        )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    store = SqliteStore(default_store_path(person.project))
    try:
        [plan] = store.sessions()
        phases = {phase.name: [task.content for task in phase.tasks] for phase in plan.phases}
    finally:
        store.close()
    assert plan.title == "Fix the login bug"  # the plan's own `#` line, not the prompt
    assert phases == {"Investigate": ["Reproduce the login bug"], "Fix": ["Patch app.py"]}


def _created(request: dict[str, Any], n: int) -> str:
    """The id Gemini CLI's tracker gave the `n`th task created so far (its ids are random)."""
    answers = json.dumps(request["contents"])
    return re.findall(r"Created task ([0-9a-f]+)", answers)[n]


def test_geminis_task_tracker_arrives_nested(person: AgentHome) -> None:
    """Protocol 4's `gemini-tracker`: with `experimental.taskTracker` Gemini CLI offers its
    tracker tools (and no write_todos). An epic, tasks under it, one waiting for another,
    and a status change arrive through the AfterTool hook, nested by the tracker's ids
    (the run `tests/fixtures/hooks/gemini/AfterTool-tracker_*.json` was recorded from)."""
    _set_up(person)
    settings = person.home / ".gemini" / "settings.json"
    written = json.loads(settings.read_text())
    written["experimental"] = {"taskTracker": True}
    settings.write_text(json.dumps(written))
    script: list[ToolCall] = [
        ("tracker_create_task", {"title": "Fix the login bug", "description": "", "type": "epic"}),
        (
            "tracker_create_task",
            lambda r: {
                "title": "Reproduce the login bug",
                "description": "Log in twice.",
                "type": "task",
                "parentId": _created(r, 0),
            },
        ),
        (
            "tracker_create_task",
            lambda r: {
                "title": "Fix the session check",
                "description": "Read the right cookie.",
                "type": "task",
                "parentId": _created(r, 0),
                "dependencies": [_created(r, 1)],
            },
        ),
        ("tracker_update_task", lambda r: {"id": _created(r, 1), "status": "in_progress"}),
    ]
    with scripted_model("gemini", script) as model:
        _gemini(person, model.url, "-p", "Fix the login bug")
        offered = {
            d["name"]
            for r in [r for _, r in model.requests if r.get("tools")][:1]
            for tool in r["tools"]
            for d in tool.get("functionDeclarations", [])
        }
    assert "tracker_create_task" in offered and "write_todos" not in offered
    store = SqliteStore(default_store_path(person.project))
    try:
        [plan] = store.sessions()
        tasks = {task.content: task for task in plan.tasks()}
    finally:
        store.close()
    epic = tasks["Fix the login bug"]
    first, second = tasks["Reproduce the login bug"], tasks["Fix the session check"]
    assert (first.parent, second.parent, epic.parent) == (epic.id, epic.id, None)
    assert second.blocked_by == [first.id]
    assert (first.status, second.status, epic.status) == ("in_progress", "pending", "in_progress")
