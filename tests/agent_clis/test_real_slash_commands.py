"""The agents' slash commands, typed into their real interactive CLIs (issue 31 item 3):
Copilot CLI 1.0.102's `/branch`, `/clear` and `/new`, Gemini CLI 0.61's `/compress`,
Codex CLI 0.171's `/compact`.
`-p "/clear"` sends the words to the model as a prompt: only the interactive UI runs
them, so each CLI runs on a pseudo-terminal (`terminal.py`) against its scripted model,
and every step waits for what shows it happened (a text drawn, the CLI's window title,
a request the model received), never for a time."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agent_home import AgentHome, agent_cli
from copilot_service import DEFAULT_MODEL, copilot_service, signed_in
from scripted_models import PLAN_TOOL, _ScriptedServer, scripted_model
from steering_story import only_session, statuses
from terminal import ENTER, Terminal
from test_real_copilot import INSERT
from test_real_default_models_told import (
    CODEX_PLAN,
    GEMINI_TODOS,
    TASKS,
    _set_up_codex,
    _set_up_gemini,
)

from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore

# Copilot's footer: while it works, and once it waits for the person.
COPILOT_BUSY = re.compile(r"esc esc (?:interrupt|edit prompt)")
COPILOT_IDLE = "/ commands · ? help"
PERSON_TASK = "Check the logout too"


@contextmanager
def _copilot(person: AgentHome, model: _ScriptedServer) -> Iterator[Terminal]:
    """Copilot CLI, interactive, signed in to the scripted service (its default model), in
    the project the person trusts when it asks: signed in, its first screens are those
    offline (the folder's trust prompt, then its idle footer)."""
    command = [agent_cli("copilot"), "--allow-all-tools", "--no-auto-update"]
    command.append("--disable-client-telemetry")
    with Terminal(command, person.project, person.env(**signed_in(model.url))) as terminal:
        terminal.expect("Do you trust the files in this folder")
        terminal.type(ENTER.decode())  # "1. Yes"
        terminal.expect(re.escape(COPILOT_IDLE))
        yield terminal


def _copilot_turn(terminal: Terminal, model: _ScriptedServer, prompt: str) -> None:
    """Submit `prompt`; wait until the model gave its closing answer (the script done)
    and Copilot's footer, drawn last, is its idle one again. (Its text may be drawn in
    pieces, cell by cell: the closing "Done." is not waited for on the screen.)"""
    asked = len(model.requests)
    terminal.submit(prompt)

    def over() -> bool:
        answered = any(
            _tool_results(request) >= len(model.script) for _, request in model.requests[asked:]
        )
        text = terminal.text
        busy = max((m.end() for m in COPILOT_BUSY.finditer(text)), default=-1)
        return answered and text.rfind(COPILOT_IDLE) > busy

    terminal.wait_until(over, f"Copilot done with {prompt!r}")


def _tool_results(request: dict[str, Any]) -> int:
    """As `copilot_model` counts the steps of the script a request has done."""
    return sum(
        1
        for item in request.get("input") or []
        if isinstance(item, dict)
        and item.get("type") in ("function_call_output", "custom_tool_call_output")
    )


def _first_request_with(model: _ScriptedServer, prompt: str) -> str:
    """The first model request of the turn `prompt` began (no tool result after it)."""
    for _, request in model.requests:
        items = request.get("input") or []
        texts = [json.dumps(item, ensure_ascii=False) for item in items]
        asked = [n for n, text in enumerate(texts) if prompt in text and "message" in text]
        if asked and not any("function_call_output" in text for text in texts[asked[-1] :]):
            return json.dumps(request, ensure_ascii=False)
    raise AssertionError(f"no request began with {prompt!r}")


def _person(person: AgentHome, session: str, ops: list[dict[str, Any]]) -> None:
    done = person.plansight(
        *("apply", "--session", session, "--origin", "user", "--ops", json.dumps(ops))
    )
    assert done.returncode == 0, done.stderr


def _copilot_sessions(person: AgentHome) -> dict[str, str | None]:
    store = SqliteStore(default_store_path(person.project))
    try:
        return {p.session: p.title for p in store.sessions() if p.session.startswith("copilot:")}
    finally:
        store.close()


def test_copilots_branch_forks_the_plan_titled_as_a_fork_and_tells_it_whole(
    person: AgentHome,
) -> None:
    """`/branch` copies the conversation into a new session and resumes it: the fork gets
    a session of its own, a copy of the plan (with the person's task), titled as a fork,
    and its first prompt is told the plan whole; the forked plan stays as it was."""
    assert person.plansight("setup", "copilot").returncode == 0
    script = [("sql", {"description": "Insert login todos", "query": INSERT})]
    with copilot_service(script) as model, _copilot(person, model) as terminal:
        _copilot_turn(terminal, model, "Fix the login bug")
        [parent] = _copilot_sessions(person)
        _person(person, parent, [{"op": "append", "phase": "Todos", "items": [PERSON_TASK]}])
        before = statuses(person, parent)
        terminal.submit("/branch")
        terminal.expect(r"Forked from")
        _copilot_turn(terminal, model, "Carry on")
        told = _first_request_with(model, "Carry on")
    assert model.picked() == {DEFAULT_MODEL}  # signed in: its own default model
    sessions = _copilot_sessions(person)
    [fork] = [session for session in sessions if session != parent]
    assert sessions[fork] == "Fix the login bug (fork)"
    assert statuses(person, fork) == before == statuses(person, parent)
    for line in ("[>] Reproduce the login bug", "[ ] Fix the session check", PERSON_TASK):
        assert f"{line}" in told, told


def test_copilots_clear_carries_an_unfinished_plan_on_and_new_leaves_a_finished_one(
    person: AgentHome,
) -> None:
    """`/clear` starts a new conversation in the same Copilot: it carries the unfinished
    plan on, in the same session, told whole with its first prompt. Once the person has
    finished that plan, `/new` starts a conversation that plans on its own."""
    assert person.plansight("setup", "copilot").returncode == 0
    script = [("sql", {"description": "Insert login todos", "query": INSERT})]
    with copilot_service(script) as model, _copilot(person, model) as terminal:
        _copilot_turn(terminal, model, "Fix the login bug")
        [session] = _copilot_sessions(person)
        terminal.submit("/clear")
        terminal.expect("Started a fresh session")
        _person(person, session, [{"op": "append", "phase": "Todos", "items": [PERSON_TASK]}])
        _copilot_turn(terminal, model, "Carry on")
        told = _first_request_with(model, "Carry on")
        assert list(_copilot_sessions(person)) == [session]
        for line in ("[>] Reproduce the login bug", "[ ] Fix the session check", PERSON_TASK):
            assert line in told, told
        assert PERSON_TASK in statuses(person, session)  # the new list kept it

        tasks = ["Reproduce the login bug", "Fix the session check", PERSON_TASK]
        _person(person, session, [{"op": "done", "task": task} for task in tasks])
        terminal.submit("/new")
        terminal.expect("Started a new session")
        _copilot_turn(terminal, model, "Something else")
        told = _first_request_with(model, "Something else")
    assert model.picked() == {DEFAULT_MODEL}  # signed in: its own default model
    sessions = _copilot_sessions(person)
    assert len(sessions) == 2 and sessions[session] == "Fix the login bug"
    assert PERSON_TASK not in told
    [new] = [other for other in sessions if other != session]
    assert sessions[new] == "Something else"


# Gemini CLI's window title when it waits for the person (`computeTerminalTitle`).
GEMINI_READY = "◇  Ready"


def _gemini_turn(terminal: Terminal, model: _ScriptedServer, prompt: str) -> None:
    """Submit `prompt` (again if its Enter was dropped); wait until the model has answered
    the turn's last step and Gemini CLI's title, busy since, says it is ready again."""
    since, seen = len(model.requests), len(terminal.titles)

    def asked() -> int | None:
        """Where in the model's requests the turn began, once it did."""
        for n, (_, request) in enumerate(model.requests[since:], since):
            last = (request.get("contents") or [{}])[-1]
            if request.get("tools") and prompt in json.dumps(last, ensure_ascii=False):
                return n
        return None

    def over() -> bool:
        began = asked()
        if began is None:
            return False
        answered = any(
            request.get("tools") and _function_responses(request) >= len(model.script)
            for _, request in model.requests[began:]
        )
        titles = terminal.titles[seen:]
        busy = any(GEMINI_READY not in title for title in titles)
        return answered and busy and GEMINI_READY in titles[-1]

    terminal.submit_until(prompt, lambda: asked() is not None)
    terminal.wait_until(over, f"Gemini CLI done with {prompt!r}")


def _function_responses(request: dict[str, Any]) -> int:
    """As the scripted Gemini API counts the steps of the script a request has done."""
    return sum(
        1
        for content in request.get("contents") or []
        for part in content.get("parts") or []
        if "functionResponse" in part
    )


def test_geminis_compress_is_answered_with_the_whole_plan_at_the_next_prompt(
    person: AgentHome,
) -> None:
    """`/compress` in Gemini CLI's own UI: it runs PreCompress (trigger manual), replaces
    the history with a summary, and reads nothing back; the next prompt (BeforeAgent)
    carries the whole plan."""
    _set_up_gemini(person)
    # The default model (`auto`) has no write_todos: it plans with Plansight's MCP tool.
    with scripted_model("gemini", [(PLAN_TOOL, GEMINI_TODOS)]) as model:
        env = person.env(GEMINI_API_KEY="scripted", GOOGLE_GEMINI_BASE_URL=model.url)
        command = [agent_cli("gemini"), "--yolo"]
        with Terminal(command, person.project, env) as terminal:
            terminal.wait_until(
                lambda: any(GEMINI_READY in title for title in terminal.titles),
                "Gemini CLI ready",
            )
            _gemini_turn(terminal, model, "Fix the login bug")
            # A second turn, whose answer reports a long history: `/compress` summarizes
            # what comes before the newest turn, and only when that makes it smaller.
            model.tokens_once = 50_000
            _gemini_turn(terminal, model, "Go on")
            compressed = re.compile(r"Chat history compressed from 50000 to \d+ tokens")
            terminal.submit_until("/compress", lambda: bool(compressed.search(terminal.text)))
            _gemini_turn(terminal, model, "Carry on")
    requests = [r for _, r in model.requests if r.get("tools")]
    [told] = [
        json.dumps(r["contents"], ensure_ascii=False)
        for r in requests
        if re.search(r'"Carry on"', json.dumps(r["contents"][-1]))
    ]
    assert "Got it. Thanks for the additional context!" in told  # the compressed history
    # Gemini CLI escapes > in what a hook adds.
    assert "[&gt;] Reproduce the login bug" in told and "[ ] Fix the session check" in told


# Codex's TUI draws a line's spaces as cursor moves, so a typed prompt with spaces may not
# show as typed ("Fixtheloginbug"): its prompts here have none, and its own words drawn
# are matched with `\s*` between them.
CODEX_IDLE = "Ask Codex to do anything"
CODEX_TURN_OVER = re.compile(r"Worked\s*for")
CODEX_COMPACTED = re.compile(r"Context\s*compacted")


@contextmanager
def _codex_tui(person: AgentHome, model: _ScriptedServer) -> Iterator[Terminal]:
    """Interactive `codex` with its default model against the scripted Responses API, its
    hooks trusted as `/hooks` records it, in a project the person trusted once."""
    _set_up_codex(person)
    codex_home = person.home / ".codex"
    config = codex_home / "config.toml"
    trusted = f'\n[projects.{json.dumps(str(person.project))}]\ntrust_level = "trusted"\n'
    config.write_text(config.read_text() + trusted)
    provider = (
        f'{{name="scripted", base_url="{model.url}/v1", wire_api="responses", '
        "requires_openai_auth=false}"
    )
    command = [
        *(agent_cli("codex"), "-c", 'model_provider="scripted"'),
        *("-c", f"model_providers.scripted={provider}"),
        *("-c", 'sandbox_mode="danger-full-access"', "-c", 'approval_policy="never"'),
    ]
    env = person.env(CODEX_HOME=str(codex_home))
    with Terminal(command, person.project, env) as terminal:
        terminal.expect(CODEX_IDLE)
        yield terminal


def _codex_turn(terminal: Terminal, model: _ScriptedServer, prompt: str) -> None:
    """Submit `prompt` (again if its Enter was dropped) and wait until Codex draws the
    turn's end ("Worked for 1s", once a turn)."""
    over = _codex_turns_over(terminal)
    terminal.submit_until(prompt, lambda: _codex_asked(model, prompt) is not None)
    terminal.wait_until(lambda: _codex_turns_over(terminal) > over, f"Codex done with {prompt!r}")


def _codex_turns_over(terminal: Terminal) -> int:
    return len(CODEX_TURN_OVER.findall(terminal.text))


def _codex_asked(model: _ScriptedServer, prompt: str) -> str | None:
    """The model request that began the turn of `prompt`: the prompt its last item."""
    for _, request in model.requests:
        items = request.get("input") or []
        last = items[-1] if items and isinstance(items[-1], dict) else {}
        if last.get("role") == "user" and any(
            isinstance(part, dict) and part.get("text") == prompt
            for part in last.get("content") or []
        ):
            return json.dumps(items, ensure_ascii=False)
    return None


def test_codex_compact_gives_the_whole_plan_back_at_the_next_prompt(
    person: AgentHome,
) -> None:
    """`/compact` in Codex's own UI, with its default model: it replaces the history with
    the model's summary, and the next prompt's request carries the whole plan back
    (SessionStart, source compact), in the same `codex:<thread>` session."""
    with scripted_model("openai", [(PLAN_TOOL, CODEX_PLAN)]) as model:
        with _codex_tui(person, model) as terminal:
            _codex_turn(terminal, model, "Fix-the-login-bug")
            over = _codex_turns_over(terminal)
            terminal.submit_until("/compact", lambda: bool(CODEX_COMPACTED.search(terminal.text)))
            terminal.wait_until(lambda: _codex_turns_over(terminal) > over, "the compaction over")
            _codex_turn(terminal, model, "Carry-on")
        told = _codex_asked(model, "Carry-on")
    assert told is not None
    assert "CONTEXT CHECKPOINT COMPACTION" not in told  # the summary replaced the history
    assert "Here is the summary produced by the other language model" in told, told[-3000:]
    assert f"[>] {TASKS[0]}" in told and f"[ ] {TASKS[1]}" in told, told[-3000:]
    [rollout] = (person.home / ".codex" / "sessions").rglob("rollout-*.jsonl")
    session = f"codex:{rollout.stem[-36:]}"  # rollout-<time>-<thread>
    assert only_session(person, "codex") == session
    log = (person.state / "plansight" / "hook.log").read_text(encoding="utf-8")
    assert f" event=SessionStart source=compact tool=- session={session} " in log, log
