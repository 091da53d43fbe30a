"""Each agent's default model (no `-m`, no `model` in its settings) plans into Plansight
after `plansight setup AGENT`: the scripted model calls whichever plan tool the request
offers it (the agent's own, deferred or nested in code mode, else Plansight's MCP tool),
and the plan is in the store and in a watching editor; `plansight doctor` finds each setup
healthy (Codex once the person trusted its hooks, as in its `/hooks`) (issue 22, item 6)."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from agent_home import AgentHome, agent_cli
from codex_trust import trust_every_hook
from copilot_service import MODELS, RECORDED, TOKEN, copilot_service, signed_in
from editor import contents, watching_editor
from scripted_models import PLAN_TOOL, TOOL_SEARCH, scripted_model
from test_real_copilot import _copilot, plan_and_edit

from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore

TASKS = ["Reproduce the login bug", "Fix the session check"]
PLANSIGHTS = {
    "todo_write": {
        "todos": [
            {"content": task, "activeForm": f"Working on: {task}", "status": "pending"}
            for task in TASKS
        ]
    }
}


def _stored(person: AgentHome, agent: str) -> dict[str, str]:
    """The tasks of the agent's one planned session in the project's store."""
    store = SqliteStore(default_store_path(person.project))
    try:
        [plan] = [p for p in store.sessions() if p.session.startswith(f"{agent}:") and p.tasks()]
        return {task.content: task.status for task in plan.tasks()}
    finally:
        store.close()


def _healthy(person: AgentHome, agent: str) -> None:
    """`plansight doctor AGENT` right after setup: all is well."""
    checked = person.plansight("doctor", agent)
    assert checked.returncode == 0 and "Everything works." in checked.stdout, checked.stdout


def _called(requests: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The tool calls the model's answers made, as the agent sent them back."""
    last = requests[-1][1]
    names = [
        block["name"]
        for message in last.get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    ]
    names += [
        item["name"] for item in last.get("input", []) if item.get("type", "").endswith("_call")
    ]
    return names


async def test_claude_code_default_model_plans(person: AgentHome) -> None:
    """Claude Code offers its newest models TaskCreate only as a deferred tool: the model
    searches for it first (ToolSearch), as a real one must, then plans with it."""
    assert person.plansight("setup", "claude-code").returncode == 0
    _healthy(person, "claude-code")
    script = [
        (
            PLAN_TOOL,
            {
                "TaskCreate": {"subject": task, "description": task, "activeForm": task},
                **PLANSIGHTS,
            },
        )
        for task in TASKS
    ]
    async with watching_editor(person) as editor:
        with scripted_model("anthropic", script) as model:
            ran = await asyncio.to_thread(
                person.run,
                [
                    agent_cli("claude"),
                    *("-p", "Fix the login bug", "--output-format", "json"),
                    "--allowedTools",
                    f"{TOOL_SEARCH},TaskCreate,TaskUpdate,mcp__plansight__todo_write",
                ],
                ANTHROPIC_BASE_URL=model.url,
                ANTHROPIC_API_KEY="sk-scripted",
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                DISABLE_AUTOUPDATER="1",
            )
            called = _called(model.requests)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        session = f"claude-code:{json.loads(ran.stdout)['session_id']}"
        shown = await editor.change_where(
            lambda c: c["session"] == session and contents(c) == set(TASKS)
        )
    assert _stored(person, "claude-code") == dict.fromkeys(TASKS, "pending"), called
    assert shown["origin"] == "agent"


async def test_claude_code_without_its_todo_tools_plans_with_plansights(
    person: AgentHome,
) -> None:
    """Without CLAUDE_CODE_ENABLE_TODO_TOOLS (the plugin route cannot set it; the vendor may
    drop it) the default model gets no TaskCreate: it searches, finds Plansight's MCP tool
    (its server still connecting when the turn starts) and plans with it."""
    assert person.plansight("setup", "claude-code").returncode == 0
    settings = person.home / ".claude" / "settings.json"
    written = json.loads(settings.read_text())
    del written["env"]["CLAUDE_CODE_ENABLE_TODO_TOOLS"]
    settings.write_text(json.dumps(written))
    _healthy(person, "claude-code")  # the MCP server stands in for the plan tool
    task = {"subject": TASKS[0], "description": TASKS[0]}
    async with watching_editor(person) as editor:
        with scripted_model(
            "anthropic", [(PLAN_TOOL, {"TaskCreate": task, **PLANSIGHTS})]
        ) as model:
            ran = await asyncio.to_thread(
                person.run,
                [
                    agent_cli("claude"),
                    *("-p", "Fix the login bug", "--output-format", "json"),
                    *("--allowedTools", f"{TOOL_SEARCH},mcp__plansight__todo_write"),
                ],
                ANTHROPIC_BASE_URL=model.url,
                ANTHROPIC_API_KEY="sk-scripted",
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                DISABLE_AUTOUPDATER="1",
            )
            called = _called(model.requests)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert called[-1] == "mcp__plansight__todo_write", called
        shown = await editor.change_where(lambda c: contents(c) == set(TASKS))
    store = SqliteStore(default_store_path(person.project))
    try:
        [arrived] = [p for p in store.sessions() if p.tasks()]
        assert {t.content: t.status for t in arrived.tasks()} == dict.fromkeys(TASKS, "pending")
    finally:
        store.close()
    assert shown["session"] == arrived.session and shown["origin"] == "agent"
    # The conversation's session, as its hooks name it, titled from the prompt (issue 31).
    session_id = json.loads(ran.stdout)["session_id"]
    assert arrived.session == f"claude-code:{session_id}"
    assert arrived.title == "Fix the login bug"


async def test_codex_default_model_plans(person: AgentHome) -> None:
    """Codex's default model runs in code mode: one JavaScript `exec` tool, with
    update_plan among the tools it calls; the hooks still see update_plan."""
    assert person.plansight("setup", "codex").returncode == 0
    # Healthy but for the hooks Codex has not trusted yet, until the person reviews them.
    checked = person.plansight("doctor", "codex")
    assert checked.returncode == 1 and checked.stdout.count("✗") == 1, checked.stdout
    assert "✗ hooks not trusted by Codex yet" in checked.stdout
    trust_every_hook(person, person.home / ".codex")
    _healthy(person, "codex")
    plan = {
        "update_plan": {
            "explanation": "Starting with the repro",
            "plan": [
                {"step": TASKS[0], "status": "in_progress"},
                {"step": TASKS[1], "status": "pending"},
            ],
        },
        **PLANSIGHTS,
    }
    async with watching_editor(person) as editor:
        with scripted_model("openai", [(PLAN_TOOL, plan)]) as model:
            provider = (
                f'{{name="scripted", base_url="{model.url}/v1", wire_api="responses", '
                "requires_openai_auth=false}"
            )
            ran = await asyncio.to_thread(
                person.run,
                [
                    *(agent_cli("codex"), "exec", "--json"),
                    *("-c", 'model_provider="scripted"'),
                    *("-c", f"model_providers.scripted={provider}"),
                    *("-c", 'sandbox_mode="danger-full-access"', "-c", 'approval_policy="never"'),
                    "Fix the login bug",
                ],
                CODEX_HOME=str(person.home / ".codex"),
            )
            called = _called(model.requests)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        thread = next(
            json.loads(line)["thread_id"]
            for line in ran.stdout.splitlines()
            if line.startswith("{") and json.loads(line).get("type") == "thread.started"
        )
        shown = await editor.change_where(
            lambda c: c["session"] == f"codex:{thread}" and contents(c) == set(TASKS)
        )
    assert _stored(person, "codex") == {TASKS[0]: "in_progress", TASKS[1]: "pending"}, called
    assert shown["origin"] == "agent"


async def test_opencode_default_model_plans(person: AgentHome) -> None:
    """OpenCode with no `model` set picks its provider's default; it offers todowrite, and
    the plugin setup wrote carries the list to Plansight."""
    assert person.plansight("setup", "opencode").returncode == 0
    _healthy(person, "opencode")
    todos = {
        "todowrite": {
            "todos": [
                {"content": TASKS[0], "status": "in_progress", "priority": "high"},
                {"content": TASKS[1], "status": "pending", "priority": "medium"},
            ]
        },
        **PLANSIGHTS,
    }
    async with watching_editor(person) as editor:
        with scripted_model("anthropic", [(PLAN_TOOL, todos)]) as model:
            config = person.home / ".config" / "opencode" / "opencode.json"
            written = json.loads(config.read_text())
            # The person's API login, pointed at the scripted model; no `model`.
            written["provider"] = {
                "anthropic": {"options": {"baseURL": f"{model.url}/v1", "apiKey": "x"}}
            }
            written.update(autoupdate=False, share="disabled")
            config.write_text(json.dumps(written))
            # OpenCode takes its folder from $PWD before the process's own.
            ran = await asyncio.to_thread(
                person.run,
                [agent_cli("opencode"), "run", "Fix the login bug"],
                PWD=str(person.project),
            )
            called = _called(model.requests)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        # OpenCode does not wait for its plugin's `plansight ingest`: the editor hears it.
        shown = await editor.change_where(
            lambda c: c["session"].startswith("opencode:") and contents(c) == set(TASKS)
        )
    assert _stored(person, "opencode") == {TASKS[0]: "in_progress", TASKS[1]: "pending"}, called
    assert shown["origin"] == "agent"


async def test_gemini_default_model_plans_with_plansights_tool(person: AgentHome) -> None:
    """Gemini CLI's default model (`auto`) is offered no write_todos: after setup it plans
    with Plansight's todo_write through the MCP server, told so when the session starts
    (issue 22, items 1 and 2)."""
    # Gemini CLI starts no MCP server in a folder the person has not trusted.
    (person.home / ".gemini").mkdir()
    trusted = {str(person.project): "TRUST_FOLDER"}
    (person.home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
    assert person.plansight("setup", "gemini").returncode == 0
    _healthy(person, "gemini")
    settings = person.home / ".gemini" / "settings.json"
    written = json.loads(settings.read_text())
    written["security"] = {"auth": {"selectedType": "gemini-api-key"}}
    settings.write_text(json.dumps(written))
    plan = {
        "write_todos": {
            "todos": [
                {"description": TASKS[0], "status": "in_progress"},
                {"description": TASKS[1], "status": "pending"},
            ]
        },
        **PLANSIGHTS,
    }
    async with watching_editor(person) as editor:
        with scripted_model("gemini", [(PLAN_TOOL, plan)]) as model:
            ran = await asyncio.to_thread(
                person.run,
                [agent_cli("gemini"), "--yolo", "-p", "Fix the login bug"],
                GEMINI_API_KEY="scripted",
                GOOGLE_GEMINI_BASE_URL=model.url,
            )
            turns = [request for _, request in model.requests if request.get("tools")]
        assert ran.returncode == 0, ran.stdout + ran.stderr
        shown = await editor.change_where(lambda c: contents(c) == set(TASKS))
    offered = {d["name"] for t in turns[0]["tools"] for d in t.get("functionDeclarations", [])}
    assert "write_todos" not in offered  # the default model has no plan tool of its own
    assert "todo_write of the plansight MCP server" in json.dumps(turns[0]["contents"])
    store = SqliteStore(default_store_path(person.project))
    try:
        [arrived] = [p for p in store.sessions() if p.tasks()]
        assert {task.content: task.status for task in arrived.tasks()} == dict.fromkeys(
            TASKS, "pending"
        )
    finally:
        store.close()
    assert shown["session"] == arrived.session and shown["origin"] == "agent"
    # Plansight's MCP server wrote the conversation's plan: the session its hooks use,
    # titled from the prompt, so a person's change reaches the next prompt (issue 31).
    assert arrived.session.startswith("gemini:") and arrived.title == "Fix the login bug"
    changed = person.plansight(
        *("apply", "--session", arrived.session, "--origin", "user"),
        *("--ops", json.dumps([{"op": "drop", "task": TASKS[1]}])),
    )
    assert changed.returncode == 0, changed.stderr
    with scripted_model("gemini", []) as model:
        resumed = await asyncio.to_thread(
            person.run,
            [agent_cli("gemini"), "--yolo", "--resume", "latest", "-p", "Carry on"],
            GEMINI_API_KEY="scripted",
            GOOGLE_GEMINI_BASE_URL=model.url,
        )
        told = json.dumps([r for _, r in model.requests if r.get("tools")][-1]["contents"])
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "The user changed the todo list" in told and TASKS[1] in told
    # Resumed, its context lost the plan: the hooks tell it whole.
    assert f"[-] {TASKS[1]}" in told and f"[ ] {TASKS[0]}" in told


def test_copilot_signed_in_picks_its_default_model_which_plans(person: AgentHome) -> None:
    """Copilot CLI signed in (`COPILOT_GITHUB_TOKEN`) to a scripted GitHub and Copilot
    service (`copilot_service`), no model named and no provider of its own: it takes the
    service's model list, picks its default from it (its log says so) and that model's
    todos (`sql`) and edit reach the store through the hooks; the person then adds a task
    and the next prompt tells it. Offline, with its own provider, Copilot names no default
    ("BYOK providers require an explicit model"): so the other Copilot tests run signed in
    too (`test_real_copilot.py`), but for `apply_patch`, GPT-5.1-Codex's alone."""
    assert person.plansight("setup", "copilot").returncode == 0
    _healthy(person, "copilot")
    session = str(uuid.uuid4())
    app = person.project / "app.py"
    with copilot_service(plan_and_edit(app)) as service:
        done = person.run(_copilot(person, service.url, session), **signed_in(service.url))
        asked = list(service.asked)
        picked = service.picked()
    assert done.returncode == 0, done.stdout + done.stderr
    # Signed in with the token; the list from the Copilot API the user endpoint named.
    user = ("GET", "/copilot_internal/user", f"Bearer {TOKEN}")
    assert asked.index(user) < asked.index(("GET", "/models", f"Bearer {TOKEN}"))
    [model] = picked  # one model of the list for every request of the turn
    assert model in {row["id"] for row in MODELS}
    assert model == RECORDED["picked_model"]  # the day Copilot's default changes, look
    logs = "".join(log.read_text() for log in (person.home / ".copilot/logs").glob("*.log"))
    assert f"Using default model: {model}" in logs
    assert app.read_text() == "print('hello')\n"
    store = SqliteStore(default_store_path(person.project))
    try:
        stored = store.load(f"copilot:{session}")
    finally:
        store.close()
    assert stored.title == "Fix the login bug"
    tasks = {task.content: task for task in stored.tasks()}
    assert {content: task.status for content, task in tasks.items()} == {
        TASKS[0]: "completed",
        TASKS[1]: "pending",
    }
    assert tasks[TASKS[0]].files == ["app.py"]  # the edit, under the task in progress
    changed = person.plansight(
        *("apply", "--session", f"copilot:{session}", "--origin", "user"),
        *("--ops", '[{"op": "append", "items": ["Check the logout too"]}]'),
    )
    assert changed.returncode == 0, changed.stderr
    with copilot_service([]) as service:
        again = person.run(_copilot(person, service.url, session), **signed_in(service.url))
        told = json.dumps(service.requests[-1][1]["input"], ensure_ascii=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert 'The user changed the todo list: added \\"Check the logout too\\"' in told, told
