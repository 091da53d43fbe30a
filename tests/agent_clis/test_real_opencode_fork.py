"""OpenCode 1.18.33's fork and new conversation, with the real CLI (issue 31 item 3).

A fork (`opencode run --fork --session <id>` or `--continue`; the TUI's `/fork`, the
server's `POST /session/<id>/fork`) is a new session titled "<title> (fork #1)" holding a
copy of the messages, with no link back. Plansight's plugin tells the hook which session
was forked, so the fork starts from a copy of that plan, titled "<title> (fork)", and its
first prompt carries the plan whole. A new session after another in the same OpenCode
(the TUI's `/new`, alias `/clear`: reached here through `opencode serve`'s HTTP API, as
the TUI reaches its own) carries an unfinished plan on, as a `/clear` does for the other
agents; a finished plan is left behind."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from agent_home import RUN_TIMEOUT, AgentHome, agent_cli
from scripted_models import scripted_model
from steering_story import PERSON_TASK, statuses
from test_real_opencode import PROMPT, TODOS, _configured, _main_loop, _turn

from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore

WHOLE = ("[>] Reproduce the login bug", "[ ] Fix the session check", PERSON_TASK)
OTHER = {"todos": [{"content": "Tidy the docs", "status": "in_progress", "priority": "low"}]}


def _sessions(person: AgentHome) -> dict[str, str | None]:
    """The OpenCode sessions of the project's store, with their titles."""
    store = SqliteStore(default_store_path(person.project))
    try:
        names = [s.session for s in store.sessions() if s.session.startswith("opencode:")]
        return {name: store.load(name).title for name in names}
    finally:
        store.close()


def _person_adds(person: AgentHome, session: str) -> None:
    ops = [{"op": "append", "phase": "Todos", "items": [PERSON_TASK]}]
    done = person.plansight(
        *("apply", "--session", session, "--origin", "user", "--ops", json.dumps(ops))
    )
    assert done.returncode == 0, done.stderr


def _first_prompt(model: Any) -> str:
    """The last message of the fork's first model request: its prompt, as sent."""
    return json.dumps(_main_loop(model.requests)[0]["messages"][-1])


@pytest.mark.parametrize("forked", ["--session", "--continue"])
def test_an_opencode_fork_starts_from_the_plan_it_forked(person: AgentHome, forked: str) -> None:
    """The fork's plan is a copy of the one forked, with the person's task, titled as a
    fork; its first prompt is told it whole; the forked plan is left as it was."""
    assert person.plansight("setup", "opencode").returncode == 0
    with scripted_model("anthropic", [("todowrite", TODOS)]) as model:
        _turn(person, model.url, *PROMPT)
    [parent] = _sessions(person)
    _person_adds(person, parent)
    before = statuses(person, parent)

    how = ["--session", parent.removeprefix("opencode:")] if forked == "--session" else [forked]
    with scripted_model("anthropic", []) as model:
        _turn(person, model.url, "--fork", *how, "Carry", "on")
        told = _first_prompt(model)

    titles = _sessions(person)
    [fork] = [name for name in titles if name != parent]
    assert titles[fork] == "Fix the login bug (fork)"
    assert statuses(person, fork) == before
    assert statuses(person, parent) == before
    assert "Carry on" in told
    for line in WHOLE:
        assert line in told, told


def test_an_opencode_fork_takes_the_plan_of_the_session_it_names(person: AgentHome) -> None:
    """Another conversation of the folder was heard from since: `--fork --session <id>`
    still starts from the plan of the one named, not the last one heard."""
    assert person.plansight("setup", "opencode").returncode == 0
    with scripted_model("anthropic", [("todowrite", TODOS)]) as model:
        _turn(person, model.url, *PROMPT)
    [named] = _sessions(person)
    with scripted_model("anthropic", [("todowrite", OTHER)]) as model:
        _turn(person, model.url, "Tidy", "up")

    with scripted_model("anthropic", []) as model:
        _turn(person, model.url, "--fork", "--session", named.removeprefix("opencode:"), "Go")
        told = _first_prompt(model)

    titles = _sessions(person)
    assert sorted(titles.values()) == ["Fix the login bug", "Fix the login bug (fork)", "Tidy up"]
    [fork] = [name for name, title in titles.items() if title == "Fix the login bug (fork)"]
    assert statuses(person, fork) == statuses(person, named)
    assert "Tidy the docs" not in told and "[>] Reproduce the login bug" in told


@contextmanager
def _opencode_serve(person: AgentHome, url: str) -> Iterator[str]:
    """`opencode serve` in the project, its model the scripted one: its address."""
    _configured(person, url)
    server = subprocess.Popen(
        [agent_cli("opencode"), "serve", "--port", "0", "--hostname", "127.0.0.1"],
        cwd=person.project,
        env=person.env(PWD=str(person.project)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        for line in server.stdout:
            found = re.search(r"https?://[\w.:\[\]]+", line)
            if found:
                yield found.group(0)
                return
        pytest.fail("opencode serve did not say where it listens")
    finally:
        server.terminate()
        server.wait(RUN_TIMEOUT)


def _post(address: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        address + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=RUN_TIMEOUT) as answer:
        return json.loads(answer.read() or b"{}")


def _new_session_says(address: str, prompt: str) -> None:
    """What the TUI's `/new` and its next prompt do: a new session, then the prompt."""
    session = _post(address, "/session", {})["id"]
    _post(address, f"/session/{session}/message", {"parts": [{"type": "text", "text": prompt}]})


def test_a_new_opencode_session_carries_an_unfinished_plan_on(person: AgentHome) -> None:
    assert person.plansight("setup", "opencode").returncode == 0
    with scripted_model("anthropic", [("todowrite", TODOS)]) as model:
        with _opencode_serve(person, model.url) as address:
            _new_session_says(address, "Fix the login bug")
            [planned] = _sessions(person)
            _person_adds(person, planned)
            model.script = []  # the new session's model answers at once
            _new_session_says(address, "Carry on")
        told = json.dumps(_main_loop(model.requests)[-1]["messages"][-1])

    assert "Carry on" in told
    for line in WHOLE:
        assert line in told, told
    assert list(_sessions(person)) == [planned]  # one plan, carried on


def test_a_new_opencode_session_leaves_a_finished_plan_behind(person: AgentHome) -> None:
    assert person.plansight("setup", "opencode").returncode == 0
    with scripted_model("anthropic", [("todowrite", TODOS)]) as model:
        with _opencode_serve(person, model.url) as address:
            _new_session_says(address, "Fix the login bug")
            [finished] = _sessions(person)
            for task in ("Reproduce the login bug", "Fix the session check"):
                assert person.plansight("done", task, "--session", finished).returncode == 0
            model.script = []
            _new_session_says(address, "Something else")
        told = json.dumps(_main_loop(model.requests)[-1]["messages"][-1])

    assert "Reproduce the login bug" not in told
    assert list(_sessions(person)) == [finished]
