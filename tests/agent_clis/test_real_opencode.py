"""OpenCode 1.18.33 itself, from npm, with what `plansight setup opencode` wrote: its plugin
runs `plansight hook opencode` from OpenCode's plugin hooks, so the plan arrives under the
prompt's title with the files its edits touch, and the model is told what a person changed
(after its todowrite's result, on the next prompt) and the whole plan after a compaction;
Plansight's MCP server connects."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_home import AgentHome, agent_cli
from scripted_models import scripted_model
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

TODOS = {
    "todos": [
        {"content": "Reproduce the login bug", "status": "in_progress", "priority": "high"},
        {"content": "Fix the session check", "status": "pending", "priority": "medium"},
    ]
}
# What Plansight's whole plan says of the pending task (`context` with `full`); OpenCode's
# own todowrite result is the list as JSON, which never reads so.
WHOLE_PLAN_LINE = "[ ] Fix the session check"
# The prompt as `opencode run` takes it, word by word (it quotes a word with spaces).
PROMPT = ("Fix", "the", "login", "bug")
# The question OpenCode 1.18.33 puts before a compaction's summary in the model's history.
SUMMARY = "What did we do so far?"


def _configured(person: AgentHome, url: str) -> None:
    """After setup, the person points OpenCode's Anthropic provider at the model. No
    `model`: OpenCode picks its provider's default (issue 31 asks for the default model)."""
    config = person.home / ".config" / "opencode" / "opencode.json"
    written = json.loads(config.read_text())
    written["provider"] = {"anthropic": {"options": {"baseURL": f"{url}/v1", "apiKey": "x"}}}
    written["autoupdate"] = False
    written["share"] = "disabled"
    config.write_text(json.dumps(written))


def _turn(person: AgentHome, url: str, *args: str) -> None:
    """One `opencode run` (its prompt as separate words: `run` quotes a word with spaces)."""
    _configured(person, url)
    # OpenCode takes its folder from $PWD before the process's own.
    ran = person.run([agent_cli("opencode"), "run", *args], PWD=str(person.project))
    assert ran.returncode == 0, ran.stdout + ran.stderr


def _main_loop(requests: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The requests of the agent's own loop (its title and summary requests offer no edit)."""
    return [r for _, r in requests if any(t.get("name") == "edit" for t in r.get("tools") or [])]


def _opencode_id(person: AgentHome) -> str:
    return only_session(person, "opencode").removeprefix("opencode:")


def test_an_opencode_plan_arrives_with_its_title_priorities_and_files(person: AgentHome) -> None:
    done = person.plansight("setup", "opencode")
    assert done.returncode == 0, done.stderr
    app = str(person.project / "app.py")
    script = [
        ("todowrite", TODOS),
        ("read", {"filePath": app}),  # OpenCode edits only a file it has read
        ("edit", {"filePath": app, "oldString": "print('hi')", "newString": "print('hello')"}),
    ]
    with scripted_model("anthropic", script) as model:
        _turn(person, model.url, *PROMPT)
        offered = {t.get("name") for r in model.requests[-1:] for t in r[1].get("tools") or []}
    # Plansight's own plan tools are offered beside OpenCode's (its MCP server connected).
    assert "todowrite" in offered and any(name.startswith("plansight_") for name in offered)
    assert (person.project / "app.py").read_text() == "print('hello')\n"
    store = SqliteStore(default_store_path(person.project))
    try:
        plan = store.load(only_session(person, "opencode"))
    finally:
        store.close()
    assert plan.title == "Fix the login bug"  # not `opencode:ses_...`
    tasks = {task.content: task for task in plan.tasks()}
    assert tasks["Reproduce the login bug"].status == "in_progress"
    assert tasks["Reproduce the login bug"].priority == "high"
    # OpenCode's model writes `medium` on every item: not a priority anyone chose.
    assert tasks["Fix the session check"].priority is None
    assert tasks["Reproduce the login bug"].files == ["app.py"]

    removed = person.plansight("setup", "opencode", "--remove")
    assert removed.returncode == 0, removed.stderr
    assert not (person.home / ".config/opencode/plugin/plansight.js").exists()


def test_opencodes_stale_todowrite_keeps_the_persons_changes_and_is_told(
    person: AgentHome,
) -> None:
    """Issue 21's story: the person adds a task and completes one while OpenCode works; its
    next todowrite, from its stale copy, lacks both. Both stay, and the todowrite result
    OpenCode's model reads next carries the Kept line."""
    assert person.plansight("setup", "opencode").returncode == 0
    stale = ("todowrite", TODOS)
    meanwhile = {1: person_adds_and_completes(person, "opencode", "Fix the session check")}
    with scripted_model("anthropic", [stale, stale], meanwhile) as model:
        _turn(person, model.url, *PROMPT)
        after_stale_write = _main_loop(model.requests)[2]
    assert statuses(person, only_session(person, "opencode")) == {
        "Reproduce the login bug": "in_progress",
        "Fix the session check": "completed",
        PERSON_TASK: "pending",
    }
    assert carries_kept_line(after_stale_write["messages"][-1], "Fix the session check")
    # OpenCode passes the tool's result on as it is: the note keeps its own tags.
    assert "<system-reminder>Kept the user's changes" in json.dumps(after_stale_write)
    assert reads_no_escaped_markup(after_stale_write["messages"][-1])


@pytest.mark.parametrize("goes_on", ["--session", "--continue"])
def test_opencode_is_told_the_persons_change_on_the_next_prompt(
    person: AgentHome, goes_on: str
) -> None:
    """`opencode run --session <id>` and `--continue` go on in the same conversation (its
    id: the plugin's `opencode:<id>` plan goes on); its next prompt carries what the person
    changed. (OpenCode sends a continued conversation its whole history: nothing else is
    lost to tell.)"""
    assert person.plansight("setup", "opencode").returncode == 0
    with scripted_model("anthropic", [("todowrite", TODOS)]) as model:
        _turn(person, model.url, *PROMPT)
    session = only_session(person, "opencode")
    person_edit = person.plansight(
        *("apply", "--session", session, "--origin", "user"),
        *("--ops", '[{"op": "done", "task": "Fix the session check"}]'),
    )
    assert person_edit.returncode == 0, person_edit.stderr
    with scripted_model("anthropic", []) as model:
        how = [goes_on, _opencode_id(person)] if goes_on == "--session" else [goes_on]
        _turn(person, model.url, *how, "Carry", "on")
        prompt = _main_loop(model.requests)[0]["messages"][-1]
    assert only_session(person, "opencode") == session
    told = json.dumps(prompt)
    assert "Carry on" in told
    assert "The user changed the todo list" in told and "Fix the session check" in told


def test_opencode_is_told_the_whole_plan_after_a_compaction(person: AgentHome) -> None:
    """A full context window makes OpenCode compact the conversation: its summary replaces
    the todowrite results. The next todowrite result its model reads carries the whole plan
    (Plansight's `[>]` / `[ ]` lines, never in OpenCode's own JSON result)."""
    assert person.plansight("setup", "opencode").returncode == 0
    with scripted_model("anthropic", [("todowrite", TODOS)]) as model:
        # Past the default model's window in OpenCode's bundled model list (1,000,000 for
        # claude-sonnet-4-6, its Anthropic default): OpenCode compacts before going on.
        model.tokens_once = 3_000_000
        _turn(person, model.url, *PROMPT)
        loop = _main_loop(model.requests)
    assert loop[0]["model"] == "claude-sonnet-4-6", loop[0]["model"]  # the default model
    after = [i for i, r in enumerate(loop) if json.dumps(r["messages"][0]).find(SUMMARY) >= 0]
    assert after, "OpenCode did not compact"
    # After the summary the script's todowrite comes again; its result is the last message.
    told = json.dumps(loop[after[0] + 1]["messages"][-1])
    assert "[>] Reproduce the login bug" in told and WHOLE_PLAN_LINE in told, told
