"""The plan a person approves in an agent's plan mode, with the agent's real CLI: it
arrives as the conversation's plan, its headings phases and its nested checklist nested
tasks (issue 31 item 3). Claude Code's (`claude -p` offers no `ExitPlanMode`) is
replayed in tests/hook; Gemini CLI's and Codex's are in test_real_gemini.py and
test_real_codex.py."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.request
import uuid
from typing import Any

from agent_home import AgentHome, agent_cli
from copilot_service import DEFAULT_MODEL, copilot_service, signed_in
from scripted_models import scripted_model
from test_real_opencode import _configured

from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore

NESTED_PLAN = (
    "# Fix the login bug\n\nUsers are logged out at once.\n\n## Investigate\n"
    "- [ ] Reproduce the login bug\n  - [ ] Log in twice\n\n## Fix\n- [ ] Patch app.py\n"
)


def test_copilots_approved_plan_mode_plan_arrives_nested(person: AgentHome) -> None:
    """Copilot CLI 1.0.102's plan mode: the model writes `plan.md` in the session's folder
    and calls `exit_plan_mode`; `--plan --mode autopilot` approves the plan by itself in a
    `-p` run (`COPILOT_PLAN_THEN_AUTOPILOT`'s handoff). Its PostToolUse names no file: the
    hook reads the session's `plan.md`. Before, nothing arrived: no plan at all."""
    assert person.plansight("setup", "copilot").returncode == 0
    session = str(uuid.uuid4())
    plan_file = person.home / ".copilot" / "session-state" / session / "plan.md"
    script = [
        ("create", {"path": str(plan_file), "file_text": NESTED_PLAN}),
        ("exit_plan_mode", {"summary": "- Reproduce, then patch app.py"}),
    ]
    with copilot_service(script) as model:
        done = person.run(
            [
                agent_cli("copilot"),
                *("-p", "Fix the login bug", "--session-id", session),
                *("--plan", "--mode", "autopilot"),
                *("--allow-all-tools", "--no-auto-update", "--disable-client-telemetry"),
            ],
            **signed_in(model.url),
        )
        picked = model.picked()
        answered = [
            item.get("output", "")
            for _, request in model.requests
            for item in request.get("input") or []
            if isinstance(item, dict) and item.get("call_id") == "call_1"
        ]
    assert done.returncode == 0, done.stdout + done.stderr
    assert picked == {DEFAULT_MODEL}, picked  # signed in: its own default model
    assert any(said.startswith("Plan approved!") for said in answered), answered
    store = SqliteStore(default_store_path(person.project))
    try:
        plan = store.load(f"copilot:{session}")
    finally:
        store.close()
    tasks = {task.content: task for task in plan.tasks()}
    assert plan.title == "Fix the login bug"
    assert [phase.name for phase in plan.phases] == ["Investigate", "Fix"]
    assert tasks["Log in twice"].parent == tasks["Reproduce the login bug"].id
    assert tasks["Patch app.py"].status == "pending"


def _http(url: str, method: str, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("content-type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as answer:
        raw = answer.read()
    return json.loads(raw) if raw else None


def _until(found: Any, what: str) -> Any:
    """`found()` once it gives something; a guard against a hang, not a speed check."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            value = found()
        except OSError:
            value = None
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"never came: {what}")


def test_opencodes_approved_plan_mode_plan_arrives_nested(person: AgentHome) -> None:
    """OpenCode 1.18.33's plan mode with its plan file and `plan_exit`
    (`OPENCODE_EXPERIMENTAL_PLAN_MODE`; without it the `plan` agent is read-only and
    answers its plan as text). `opencode run` denies `plan_exit`, so the person's side is
    `opencode serve`'s API: a session, a prompt to the `plan` agent, and Yes to the
    question `plan_exit` asks. The plugin hears the plan file's `write` and then
    `plan_exit`; the hook reads the file. Before, nothing arrived."""
    assert person.plansight("setup", "opencode").returncode == 0
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    script: list[Any] = []
    with scripted_model("anthropic", script) as model:
        _configured(person, model.url)
        command = [agent_cli("opencode"), "serve", "--port", str(port), "--hostname", "127.0.0.1"]
        env = person.env(PWD=str(person.project), OPENCODE_EXPERIMENTAL_PLAN_MODE="true")
        server = subprocess.Popen(
            command,
            cwd=person.project,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _until(lambda: _http(f"{url}/session", "GET") is not None, "opencode serve")
            session = _http(f"{url}/session", "POST", {})
            name = f"{session['time']['created']}-{session['slug']}.md"
            plan_file = person.project / ".opencode" / "plans" / name
            script.extend([("write", {"filePath": str(plan_file), "content": NESTED_PLAN})])
            script.append(("plan_exit", {}))
            prompt = {"agent": "plan", "parts": [{"type": "text", "text": "Fix the login bug"}]}
            _http(f"{url}/session/{session['id']}/prompt_async", "POST", prompt)
            asked = _until(lambda: _http(f"{url}/question", "GET"), "plan_exit's question")
            assert "switch to the build agent" in asked[0]["questions"][0]["question"]
            _http(f"{url}/question/{asked[0]['id']}/reply", "POST", {"answers": [["Yes"]]})
            log = person.state / "plansight" / "hook.log"
            _until(lambda: "tool=plan_exit" in log.read_text(), "plan_exit's hook")
        finally:
            server.terminate()
            server.wait(timeout=30)
    store = SqliteStore(default_store_path(person.project))
    try:
        plan = store.load(f"opencode:{session['id']}")
    finally:
        store.close()
    tasks = {task.content: task for task in plan.tasks()}
    assert [phase.name for phase in plan.phases] == ["Investigate", "Fix"]
    assert tasks["Log in twice"].parent == tasks["Reproduce the login bug"].id
    assert all(not task.files for task in plan.tasks())  # its plan file is no task's file
