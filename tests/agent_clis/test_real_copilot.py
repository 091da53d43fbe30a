"""GitHub Copilot CLI 1.0.102 itself, from npm, with what `plansight setup copilot` wrote,
signed in with a token to a scripted GitHub and Copilot service on localhost
(`copilot_service`), so it runs its own default model (`gpt-5-mini`, its pick from the
service's list), with no network. Only `apply_patch`, which Copilot offers GPT-5.1-Codex
alone, runs offline with its own provider (`copilot_model.own_provider`) naming that model.

Copilot CLI's model keeps its plan with the `sql` tool in the session's `todos` table;
the PostToolUse hook reads the table back. VS Code's agent mode reads the same hook file
but needs a GitHub sign-in: its events are replayed from its documentation in tests/hook.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from agent_home import AgentHome, agent_cli
from copilot_model import copilot_model, own_provider
from copilot_service import DEFAULT_MODEL, copilot_service, prompt_limit, signed_in
from scripted_models import PLAN_TOOL, ToolCall
from steering_story import (
    PERSON_TASK,
    carries_kept_line,
    only_session,
    person_adds_and_completes,
    statuses,
)

from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore

INSERT = (
    "INSERT INTO todos (id, title, description, status) VALUES "
    "('repro', 'Reproduce the login bug', 'Log in twice', 'in_progress'), "
    "('fix', 'Fix the session check', '', 'pending')"
)
UPDATE = "UPDATE todos SET status = 'done' WHERE id = 'repro'"


def plan_and_edit(app: Path) -> list[ToolCall]:
    """The model's turn: its todos, an edit of `app` (`print('hi')` to `'hello'`) under
    the task in progress, and that task done."""
    return [
        ("sql", {"description": "Insert login todos", "query": INSERT}),
        ("edit", {"path": str(app), "old_str": "print('hi')", "new_str": "print('hello')"}),
        ("sql", {"description": "Complete the repro", "query": UPDATE}),
    ]


def _copilot(person: AgentHome, url: str, session: str) -> list[str]:
    return [
        agent_cli("copilot"),
        *("-p", "Fix the login bug", "--session-id", session),
        *("--allow-all-tools", "--no-auto-update", "--disable-client-telemetry"),
    ]


def test_a_copilot_plan_and_edit_arrive(person: AgentHome) -> None:
    """A whole `copilot -p` turn: the model writes its todos with `sql` and edits a file;
    the plan, its progress and the edited file reach the store through the hooks, and the
    session start's word on Plansight's MCP server reaches the model."""
    assert person.plansight("setup", "copilot").returncode == 0
    session = str(uuid.uuid4())
    app = person.project / "app.py"
    with copilot_service(plan_and_edit(app)) as model:
        done = person.run(_copilot(person, model.url, session), **signed_in(model.url))
        first = json.dumps(model.requests[0][1], ensure_ascii=False)
        offered = {tool["name"] for tool in model.requests[0][1]["tools"]}
        picked = model.picked()
    assert done.returncode == 0, done.stdout + done.stderr
    assert picked == {DEFAULT_MODEL}, picked
    # Its default model edits with `edit`; `apply_patch` is GPT-5.1-Codex's (below).
    assert "edit" in offered and "apply_patch" not in offered, offered
    assert app.read_text() == "print('hello')\n"
    store = SqliteStore(default_store_path(person.project))
    try:
        stored = store.load(f"copilot:{session}")
        assert stored.title == "Fix the login bug"
        tasks = {task.content: task for task in stored.tasks()}
        assert tasks["Reproduce the login bug"].status == "completed"
        assert tasks["Reproduce the login bug"].description == "Log in twice"
        assert tasks["Reproduce the login bug"].files == ["app.py"]
        assert tasks["Fix the session check"].status == "pending"
    finally:
        store.close()
    assert "use todo_write of the plansight MCP server" in first


def test_copilots_stale_list_keeps_the_persons_changes_and_is_told(person: AgentHome) -> None:
    """Issue 21's story: the person adds a task and completes one while Copilot works; the
    list read back from Copilot's table lacks both. Both stay, and the model's next request
    carries the Kept line (Copilot CLI adds a hook's `additionalContext` to the result)."""
    assert person.plansight("setup", "copilot").returncode == 0
    session = str(uuid.uuid4())
    touch = "UPDATE todos SET updated_at = datetime('now') WHERE id = 'repro'"
    script = [
        ("sql", {"description": "Insert login todos", "query": INSERT}),
        ("sql", {"description": "Touch the repro", "query": touch}),
    ]
    meanwhile = {1: person_adds_and_completes(person, "copilot", "Fix the session check")}
    with copilot_service(script, meanwhile) as model:
        done = person.run(_copilot(person, model.url, session), **signed_in(model.url))
        after_stale_list = model.requests[-1][1]["input"]
        picked = model.picked()
    assert done.returncode == 0, done.stdout + done.stderr
    assert picked == {DEFAULT_MODEL}, picked
    assert statuses(person, f"copilot:{session}") == {
        "Reproduce the login bug": "in_progress",
        "Fix the session check": "completed",
        PERSON_TASK: "pending",
    }
    assert carries_kept_line(after_stale_list, "Fix the session check")


def test_setup_copilot_registers_the_mcp_server_copilot_lists(person: AgentHome) -> None:
    """`copilot mcp list` reads the entry setup wrote as its own `copilot mcp add` does."""
    assert person.plansight("setup", "copilot").returncode == 0
    with copilot_service([]) as service:
        listed = person.run(
            [agent_cli("copilot"), "mcp", "get", "plansight"], **signed_in(service.url)
        )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "plansight mcp" in listed.stdout
    written = json.loads(Path(person.home / ".copilot" / "mcp-config.json").read_text())
    assert written["mcpServers"]["plansight"]["type"] == "local"


def test_copilots_apply_patch_edits_arrive(person: AgentHome) -> None:
    """With GPT-5.1-Codex Copilot CLI offers `apply_patch` (a freeform tool: the patch as
    text) instead of `edit` / `create`; its hook event is `Edit` with the patch as the
    whole tool input. Every file the patch names is listed under the task in progress.
    Its default model is offered `edit` (`test_a_copilot_plan_and_edit_arrive`), so this
    one names GPT-5.1-Codex, with its own provider, offline."""
    assert person.plansight("setup", "copilot").returncode == 0
    session = str(uuid.uuid4())
    app = person.project / "app.py"
    patch = (
        f"*** Begin Patch\n*** Update File: {app}\n@@\n-print('hi')\n+print('hello')\n"
        f"*** Add File: {person.project / 'notes.md'}\n+hello\n*** End Patch\n"
    )
    script = [
        ("sql", {"description": "Insert login todos", "query": INSERT}),
        ("apply_patch", {"patch": patch}),
    ]
    with copilot_model(script) as model:
        env = own_provider(model.url, "gpt-5.1-codex")
        done = person.run(_copilot(person, model.url, session), **env)
        offered = {tool["name"]: tool["type"] for tool in model.requests[0][1]["tools"]}
    assert done.returncode == 0, done.stdout + done.stderr
    assert offered["apply_patch"] == "custom" and "edit" not in offered
    assert app.read_text() == "print('hello')\n"
    store = SqliteStore(default_store_path(person.project))
    try:
        tasks = {task.content: task for task in store.load(f"copilot:{session}").tasks()}
    finally:
        store.close()
    assert tasks["Reproduce the login bug"].files == ["app.py", "notes.md"]


def test_copilot_resumes_and_continues_the_plan(person: AgentHome) -> None:
    """Issue 31 item 3: `--resume <id>` and `--continue` go on in the same session (the same
    session id: its plan goes on by itself), and SessionStart (source resume) tells the
    model the whole plan."""
    assert person.plansight("setup", "copilot").returncode == 0
    session = str(uuid.uuid4())
    with copilot_service([("sql", {"description": "Insert login todos", "query": INSERT})]) as m:
        done = person.run(_copilot(person, m.url, session), **signed_in(m.url))
    assert done.returncode == 0, done.stdout + done.stderr
    for how in (["--resume", session], ["--continue"]):
        with copilot_service([]) as model:
            again = person.run(
                [
                    agent_cli("copilot"),
                    *("-p", "Carry on", *how),
                    *("--allow-all-tools", "--no-auto-update", "--disable-client-telemetry"),
                ],
                **signed_in(model.url),
            )
            told = json.dumps(model.requests[-1][1], ensure_ascii=False)
            picked = model.picked()
        assert again.returncode == 0, again.stdout + again.stderr
        assert picked == {DEFAULT_MODEL}, picked
        assert "[>] Reproduce the login bug" in told and "[ ] Fix the session check" in told
    assert only_session(person, "copilot") == f"copilot:{session}"


def test_copilots_compact_reaches_the_hook(person: AgentHome) -> None:
    """Issue 31 item 3: Copilot CLI's `/compact` (run by `-p "/compact"`) runs the
    `PreCompact` hook setup wrote (matcher `manual`), which flags the conversation; what
    the next prompt then tells is `tests/hook/test_hook_copilot.py`'s (a next `-p --resume`
    run is told the whole plan by its SessionStart anyway)."""
    assert person.plansight("setup", "copilot").returncode == 0
    session = str(uuid.uuid4())
    with copilot_service([("sql", {"description": "Insert login todos", "query": INSERT})]) as m:
        done = person.run(_copilot(person, m.url, session), **signed_in(m.url))
    assert done.returncode == 0, done.stdout + done.stderr
    with copilot_service([]) as model:
        compacted = person.run(
            [
                agent_cli("copilot"),
                *("-p", "/compact", "--resume", session),
                *("--allow-all-tools", "--no-auto-update", "--disable-client-telemetry"),
            ],
            **signed_in(model.url),
        )
    assert compacted.returncode == 0, compacted.stdout + compacted.stderr
    assert "Compacted conversation history" in compacted.stdout
    log = (person.state / "plansight" / "hook.log").read_text()
    assert f"event=PreCompact tool=- session=copilot:{session} ok" in log, log


def test_copilots_plan_through_plansights_mcp_tool_is_the_conversations(
    person: AgentHome,
) -> None:
    """When Copilot's model picks Plansight's todo_write (setup registers the MCP server),
    the plan lands in the session its hooks use, `copilot:<id>`, titled from the prompt,
    and a person's change reaches the next prompt (issue 31, item 1)."""
    assert person.plansight("setup", "copilot").returncode == 0
    session = str(uuid.uuid4())
    todos = [
        {"content": "Reproduce the login bug", "activeForm": "Reproducing", "status": "pending"}
    ]
    with copilot_service([(PLAN_TOOL, {"todo_write": {"todos": todos}})]) as model:
        done = person.run(_copilot(person, model.url, session), **signed_in(model.url))
        called = [
            item["name"]
            for item in model.requests[-1][1]["input"]
            if item.get("type") == "function_call"
        ]
        picked = model.picked()
    assert done.returncode == 0, done.stdout + done.stderr
    assert picked == {DEFAULT_MODEL}, picked
    assert called == ["plansight-todo_write"], called
    store = SqliteStore(default_store_path(person.project))
    try:
        stored = store.load(f"copilot:{session}")
        assert stored.title == "Fix the login bug"
        assert [task.content for task in stored.tasks()] == ["Reproduce the login bug"]
    finally:
        store.close()
    changed = person.plansight(
        *("apply", "--session", f"copilot:{session}", "--origin", "user"),
        *("--ops", '[{"op": "append", "items": ["Check the logout too"]}]'),
    )
    assert changed.returncode == 0, changed.stderr
    with copilot_service([]) as model:
        done = person.run(_copilot(person, model.url, session), **signed_in(model.url))
        assert done.returncode == 0, done.stdout + done.stderr
        told = json.dumps(model.requests[-1][1]["input"], ensure_ascii=False)
    # The news itself, not only the task in the whole plan a resumed session is told.
    assert 'The user changed the todo list: added \\"Check the logout too\\"' in told, told


# A look at the plan that changes nothing: Copilot's model reading its todos back.
LOOK = ("sql", {"description": "Look at the todos", "query": "SELECT id, status FROM todos"})


def test_copilot_hears_its_automatic_compaction(person: AgentHome) -> None:
    """Copilot CLI compacts the history by itself, in the background, once a request used
    most of its model's prompt limit: the one the service's list gives its default model
    (`prompt_limit`: 128,000 tokens; here 120,000 used; half of it does not compact). It
    runs `PreCompact` with trigger "auto" (recorded in
    tests/fixtures/hooks/copilot/PreCompact-auto.json), which setup's matcher takes with
    `/compact`'s "manual"; the hook flags the conversation, and the next prompt is told
    the plan whole
    (`tests/hook/test_hook_copilot.py`). Before, the matcher was "manual" only: Copilot
    ran no Plansight hook for it and the conversation went on without its plan."""
    assert person.plansight("setup", "copilot").returncode == 0
    session = str(uuid.uuid4())
    script = [("sql", {"description": "Insert login todos", "query": INSERT}), *[LOOK] * 4]
    with copilot_service(script) as model:
        model.tokens_once = prompt_limit(DEFAULT_MODEL) * 15 // 16
        done = person.run(_copilot(person, model.url, session), **signed_in(model.url))
        picked = model.picked()
    assert done.returncode == 0, done.stdout + done.stderr
    assert picked == {DEFAULT_MODEL}, picked
    events = person.home / ".copilot" / "session-state" / session / "events.jsonl"
    [started] = [
        event["data"]
        for event in map(json.loads, events.read_text().splitlines())
        if event["type"] == "session.compaction_start"
    ]
    # The limit it compacted against is the one the service's list gave its default model.
    assert (started["trigger"], started["tokenLimit"]) == ("threshold", prompt_limit(DEFAULT_MODEL))
    log = (person.state / "plansight" / "hook.log").read_text()
    assert f"event=PreCompact tool=- session=copilot:{session} ok" in log, log
    with copilot_service([]) as model:
        again = person.run(
            [
                agent_cli("copilot"),
                *("-p", "Carry on", "--resume", session),
                *("--allow-all-tools", "--no-auto-update", "--disable-client-telemetry"),
            ],
            **signed_in(model.url),
        )
        told = json.dumps(model.requests[-1][1]["input"], ensure_ascii=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "[>] Reproduce the login bug" in told and "[ ] Fix the session check" in told
