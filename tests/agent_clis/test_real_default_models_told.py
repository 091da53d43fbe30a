"""Issue 31's table with each agent's default model (no `-m`, no `model` in its settings):
after a person's change, the plan tool's next result tells it, the next prompt tells it, and
after a compaction the whole plan comes back. The scripted model calls whichever plan tool
the request offers (`PLAN_TOOL`): Codex's `update_plan` nested in its code-mode `exec`,
Gemini CLI's `auto` Plansight's MCP `todo_write`. Where another file already checks a cell
with the default model, this one does not repeat it (README, "Agents": the map)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from agent_home import AgentHome, agent_cli
from codex_trust import trust_every_hook
from scripted_models import PLAN_TOOL, scripted_model
from steering_story import (
    PERSON_TASK,
    carries_kept_line,
    only_session,
    person_adds_and_completes,
    statuses,
)

TASKS = ["Reproduce the login bug", "Fix the session check"]
CODEX_PLAN = {
    "update_plan": {
        "plan": [
            {"step": TASKS[0], "status": "in_progress"},
            {"step": TASKS[1], "status": "pending"},
        ]
    }
}
KEPT_STATUSES = {TASKS[0]: "in_progress", TASKS[1]: "completed", PERSON_TASK: "pending"}


def _codex(person: AgentHome, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`codex exec` with Codex's default model, its hooks trusted as `/hooks` records it."""
    provider = (
        f'{{name="scripted", base_url="{url}/v1", wire_api="responses", '
        "requires_openai_auth=false}"
    )
    ran = person.run(
        [
            *(agent_cli("codex"), "exec", "--json"),
            *("-c", 'model_provider="scripted"', "-c", f"model_providers.scripted={provider}"),
            *("-c", 'sandbox_mode="danger-full-access"', "-c", 'approval_policy="never"'),
            *args,
        ],
        CODEX_HOME=str(person.home / ".codex"),
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return ran


def _set_up_codex(person: AgentHome) -> None:
    assert person.plansight("setup", "codex").returncode == 0
    trust_every_hook(person, person.home / ".codex")


def _codex_inputs(requests: list[tuple[str, dict[str, Any]]]) -> list[list[Any]]:
    """The inputs of Codex's model requests, in order (its code mode's `exec` is offered
    in an `additional_tools` input item, not in `tools`)."""
    return [r["input"] for _, r in requests if isinstance(r.get("input"), list)]


def test_codex_default_models_plan_tool_result_tells_the_persons_change(
    person: AgentHome,
) -> None:
    """Codex's default model calls update_plan from inside its code-mode `exec`: the
    PostToolUse hook still sees update_plan, and its Kept line reaches the model's next
    request, after the person changed the plan while the model worked."""
    _set_up_codex(person)
    meanwhile = {1: person_adds_and_completes(person, "codex", TASKS[1])}
    script = [(PLAN_TOOL, CODEX_PLAN), (PLAN_TOOL, CODEX_PLAN)]
    with scripted_model("openai", script, meanwhile) as model:
        _codex(person, model.url, "Fix the login bug")
        after_stale_plan = _codex_inputs(model.requests)[-1]
    assert any(
        item.get("type") == "custom_tool_call" and item.get("name") == "exec"
        for item in after_stale_plan
        if isinstance(item, dict)
    ), "the default model did not plan in code mode"
    assert statuses(person, only_session(person, "codex")) == KEPT_STATUSES
    assert carries_kept_line(after_stale_plan, TASKS[1])


def test_codex_default_model_is_told_on_the_next_prompt_and_after_compacting(
    person: AgentHome,
) -> None:
    """A person's change reaches Codex's next prompt (`exec resume`), which, resumed, is
    told the whole plan, and a compaction (a full context window, mid-turn) gives the
    whole plan back, with the default model."""
    _set_up_codex(person)
    with scripted_model("openai", [(PLAN_TOOL, CODEX_PLAN)]) as model:
        first = _codex(person, model.url, "Fix the login bug")
    thread = next(
        json.loads(line)["thread_id"]
        for line in first.stdout.splitlines()
        if line.startswith("{") and json.loads(line).get("type") == "thread.started"
    )
    dropped = person.plansight(
        *("apply", "--session", f"codex:{thread}", "--origin", "user"),
        *("--ops", json.dumps([{"op": "drop", "task": TASKS[1]}])),
    )
    assert dropped.returncode == 0, dropped.stderr
    with scripted_model("openai", []) as model:
        _codex(person, model.url, "resume", thread, "Carry on")
        told = json.dumps(_codex_inputs(model.requests)[-1])
    assert "The user changed the todo list" in told and f'dropped \\"{TASKS[1]}\\"' in told, told
    # Resumed, its context lost the plan: SessionStart (source resume) tells it whole.
    assert f"[>] {TASKS[0]}" in told and f"[-] {TASKS[1]}" in told, told

    # A new conversation whose first answer reports a nearly full window: Codex compacts
    # before its next request, and SessionStart (source compact) gives the plan back.
    with scripted_model("openai", [(PLAN_TOOL, CODEX_PLAN)]) as model:
        model.tokens_once = 900_000
        _codex(person, model.url, "-c", "model_auto_compact_token_limit=200000", "Go on")
        last = json.dumps(_codex_inputs(model.requests)[-1])
    assert f"[>] {TASKS[0]}" in last and f"[ ] {TASKS[1]}" in last, last
    log = (person.state / "plansight" / "hook.log").read_text(encoding="utf-8")
    assert " event=SessionStart source=compact " in log, log


GEMINI_TODOS = {
    "todo_write": {
        "todos": [
            {"content": TASKS[0], "activeForm": f"Working on: {TASKS[0]}", "status": "in_progress"},
            {"content": TASKS[1], "activeForm": f"Working on: {TASKS[1]}", "status": "pending"},
        ]
    }
}


def _set_up_gemini(person: AgentHome) -> None:
    """`plansight setup gemini`, an API key login, the project trusted (Gemini CLI starts
    no MCP server and runs nothing headless in a folder the person has not trusted)."""
    (person.home / ".gemini").mkdir()
    trusted = {str(person.project): "TRUST_FOLDER"}
    (person.home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
    assert person.plansight("setup", "gemini").returncode == 0
    settings = person.home / ".gemini" / "settings.json"
    written = json.loads(settings.read_text())
    written["security"] = {"auth": {"selectedType": "gemini-api-key"}}
    settings.write_text(json.dumps(written))


def _gemini(person: AgentHome, url: str, *args: str) -> None:
    """`gemini` with its default model (`auto`)."""
    ran = person.run(
        [agent_cli("gemini"), "--yolo", *args],
        GEMINI_API_KEY="scripted",
        GOOGLE_GEMINI_BASE_URL=url,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr


def _gemini_turns(requests: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The main loop's requests (the model router's offer no tools)."""
    return [request for _, request in requests if request.get("tools")]


def test_gemini_default_models_plan_tool_result_tells_the_persons_change(
    person: AgentHome,
) -> None:
    """Gemini CLI's default model has no write_todos: it plans with Plansight's MCP
    todo_write, in the conversation's `gemini:<id>` session. The person adds a task and
    completes one while it works; its next, stale todo_write keeps both, and the tool's
    result says so."""
    _set_up_gemini(person)
    meanwhile = {1: person_adds_and_completes(person, "gemini", TASKS[1])}
    script = [(PLAN_TOOL, GEMINI_TODOS), (PLAN_TOOL, GEMINI_TODOS)]
    with scripted_model("gemini", script, meanwhile) as model:
        _gemini(person, model.url, "-p", "Fix the login bug")
        turns = _gemini_turns(model.requests)
    offered = {d["name"] for t in turns[0]["tools"] for d in t.get("functionDeclarations", [])}
    assert "write_todos" not in offered, offered
    assert statuses(person, only_session(person, "gemini")) == KEPT_STATUSES
    answers = [
        part["functionResponse"]
        for part in turns[-1]["contents"][-1]["parts"]
        if "functionResponse" in part
    ]
    assert [answer["name"].endswith("todo_write") for answer in answers] == [True], answers
    assert carries_kept_line(answers, TASKS[1])


def test_gemini_default_model_is_told_the_whole_plan_after_an_automatic_compression(
    person: AgentHome,
) -> None:
    """Gemini CLI compresses its history by itself when the last request used over half of
    its window; no hook is told. The next BeforeModel's messages begin with the summary,
    and the next tool answer that can carry context (an edit's) gives the plan back whole,
    though the default model wrote it through Plansight's MCP tool."""
    _set_up_gemini(person)
    with scripted_model("gemini", [(PLAN_TOOL, GEMINI_TODOS)]) as model:
        _gemini(person, model.url, "-p", "Fix the login bug")
    edit = ("write_file", {"file_path": f"{person.project}/notes.txt", "content": "notes\n"})
    # The second turn has a turn before it to compress (a compression keeps the newest turn
    # whole); its first answer reports a full window. (The script steps by the tool results
    # a request holds, the resumed ones included.)
    with scripted_model("gemini", [(PLAN_TOOL, GEMINI_TODOS), *[edit] * 5]) as model:
        model.tokens_once = 700_000
        _gemini(person, model.url, "--resume", "latest", "-p", "Go on")
        turns = _gemini_turns(model.requests)
    compressed = [
        n
        for n, r in enumerate(turns)
        if "Got it. Thanks for the additional context!" in json.dumps(r["contents"])
    ]
    assert compressed, "Gemini CLI did not compress"
    results = [
        json.dumps(part["functionResponse"])
        for part in turns[compressed[0] + 1]["contents"][-1]["parts"]
        if "functionResponse" in part
    ]
    assert len(results) == 1 and "write_file" in results[0], results
    assert f"[&gt;] {TASKS[0]}" in results[0] and f"[ ] {TASKS[1]}" in results[0], results[0]
