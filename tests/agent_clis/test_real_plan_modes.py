"""The plan a person approves in an agent's plan mode, with the agent's real CLI: it
arrives as the conversation's plan, its headings phases and its nested checklist nested
tasks (issue 31 item 3). Claude Code's (`claude -p` offers no `ExitPlanMode`) runs in its
interactive UI on a pseudo-terminal (`terminal.py`); Gemini CLI's and Codex's are in
test_real_gemini.py and test_real_codex.py."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import time
import urllib.request
import uuid
from typing import Any

from agent_home import AgentHome, agent_cli
from copilot_service import DEFAULT_MODEL, copilot_service, signed_in
from scripted_models import scripted_model
from terminal import ENTER, PRESS_AGAIN_AFTER, Terminal
from test_real_opencode import _configured

from plansight.core.model import Plan
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
    _assert_the_login_plan(_stored(person, f"copilot:{session}"))


def _stored(person: AgentHome, session: str) -> Plan:
    store = SqliteStore(default_store_path(person.project))
    try:
        return store.load(session)
    finally:
        store.close()


def _assert_the_login_plan(plan: Plan) -> None:
    """The approved plan, nested: its title, its phases, its indented item a subtask."""
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
    plan = _stored(person, f"opencode:{session['id']}")
    tasks = {task.content: task for task in plan.tasks()}
    assert [phase.name for phase in plan.phases] == ["Investigate", "Fix"]
    assert tasks["Log in twice"].parent == tasks["Reproduce the login bug"].id
    assert all(not task.files for task in plan.tasks())  # its plan file is no task's file


# Where Claude Code 2.1.332's plan mode tells the model to write its plan (its system
# prompt names the file: `~/.claude/plans/<slug>.md`).
CLAUDE_PLAN_FILE = re.compile(r"/[^\s`'\"]*/\.claude/plans/[^\s`'\"]+\.md")


def _claude_plan_write(request: dict[str, Any]) -> dict[str, Any]:
    """The model's Write of its plan to the plan file its plan mode named."""
    found = CLAUDE_PLAN_FILE.search(json.dumps(request))
    assert found is not None, "Claude's plan mode named no plan file"
    return {"file_path": found.group(0), "content": NESTED_PLAN}


def _claude_trusting(person: AgentHome, key: str) -> None:
    """What Claude Code keeps of a person who has used it before: onboarding done, this
    folder trusted, this API key approved (its first screens are those questions)."""
    config = person.home / ".claude.json"
    kept = json.loads(config.read_text())  # setup wrote the MCP server here
    kept.update(hasCompletedOnboarding=True, theme="dark")
    kept["projects"] = {str(person.project): {"hasTrustDialogAccepted": True}}
    kept["customApiKeyResponses"] = {"approved": [key[-20:]], "rejected": []}
    config.write_text(json.dumps(kept))


def test_claudes_approved_plan_mode_plan_arrives_nested(person: AgentHome) -> None:
    """Claude Code 2.1.332 in its own UI, `--permission-mode plan`, its default model: the
    model writes its plan to the plan file plan mode names and calls `ExitPlanMode`; the
    person approves it in the "Ready to code?" dialog. Its PostToolUse carries the plan's
    markdown (`PostToolUse-ExitPlanMode-recorded.json`, what this run's hook received)."""
    assert person.plansight("setup", "claude-code").returncode == 0
    key = "sk-scripted"
    _claude_trusting(person, key)
    script: list[Any] = [("Write", _claude_plan_write), ("ExitPlanMode", {})]
    with scripted_model("anthropic", script) as model:
        env = person.env(
            ANTHROPIC_BASE_URL=model.url,
            ANTHROPIC_API_KEY=key,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
        )
        command = [agent_cli("claude"), "--permission-mode", "plan"]
        with Terminal(command, person.project, env) as terminal:
            terminal.expect(r"plan\s*mode\s*on")
            terminal.submit("Plan")  # one word: Claude draws spaces as cursor moves
            terminal.expect(r"Ready\s*to\s*code\?")
            terminal.expect(r"Tell\s*Claude\s*what\s*to\s*change")
            approved = re.compile(r"Approved\s*Claude's\s*plan")
            pressed = [0.0]

            def taken() -> bool:
                """Enter on "1. Yes", again while the dialog shows no approval, as a person
                presses again: 2.1.332 dropped the Enter that came as soon as its options
                were drawn, and took the next."""
                if approved.search(terminal.text, terminal.read):
                    return True
                if time.monotonic() - pressed[0] > PRESS_AGAIN_AFTER / 4:
                    terminal.type(ENTER.decode())
                    pressed[0] = time.monotonic()
                return False

            terminal.wait_until(taken, "the person's approval")
            log = person.state / "plansight" / "hook.log"
            terminal.wait_until(
                lambda: log.exists() and "tool=ExitPlanMode" in log.read_text(),
                "ExitPlanMode's hook",
            )
        main_loop = {r.get("model") for _, r in model.requests if r.get("tools")}
    assert main_loop == {"claude-opus-5-5"}  # no --model: its own default model
    sessions = _claude_sessions(person)
    assert len(sessions) == 1, sessions
    _assert_the_login_plan(_stored(person, sessions[0]))


def _claude_sessions(person: AgentHome) -> list[str]:
    store = SqliteStore(default_store_path(person.project))
    try:
        return [p.session for p in store.sessions() if p.session.startswith("claude-code:")]
    finally:
        store.close()
