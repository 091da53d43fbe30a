"""A fork made in OpenCode 1.18.33's own interactive UI, typed into it (issue 31 item 3).

The TUI's `/fork` ("Fork session") offers the whole session, then each of the person's
messages, newest first; picking one calls `session.fork({sessionID, messageID?})` (its
bundled code; `POST /session/<id>/fork`), opens the fork, and puts the picked message's
text back in the prompt. The fork's process has no `--fork` on its command line, and
another conversation of the folder was heard from since the forked one planned: the fork
still starts from a copy of the forked conversation's plan, titled "<title> (fork)", and
its first prompt carries that plan whole (what the plugin's client sees of such a fork:
`tests/fixtures/hooks/opencode/session.fork.tui.json`)."""

from __future__ import annotations

import json

import pytest
from agent_home import AgentHome, agent_cli
from scripted_models import _ScriptedServer, scripted_model
from steering_story import statuses
from terminal import ENTER, Terminal
from test_real_opencode import PROMPT, TODOS, _configured, _main_loop, _turn
from test_real_opencode_fork import OTHER, WHOLE, _person_adds, _sessions


def _fork_in_the_tui(
    person: AgentHome, session: str, model: _ScriptedServer, at: str | None
) -> None:
    """`opencode --session <id>`, `/fork`, the whole session (`at` None) or the person's
    message `at` picked from the list; then the fork's first prompt is sent: "Carry on",
    or the picked message OpenCode put back in the prompt."""
    _configured(person, model.url)
    command = [agent_cli("opencode"), "--session", session.removeprefix("opencode:")]
    with Terminal(command, person.project, person.env(PWD=str(person.project))) as terminal:
        terminal.expect("Go on")  # the session's history, drawn
        terminal.submit("/fork")
        terminal.expect("Full session")
        if at is not None:
            terminal.type(at)  # the dialog's search: the message alone is left
            terminal.expect(at)
        terminal.type(ENTER.decode())
        terminal.expect(r"\(fork #1\)")  # the fork, open, under OpenCode's title for it
        if at is None:
            terminal.submit("Carry on")
        else:
            terminal.type(ENTER.decode())
        terminal.wait_until(
            lambda: bool(_main_loop(model.requests)), "the fork's first prompt sent to the model"
        )


@pytest.mark.parametrize("at", [None, "Go on"], ids=["whole session", "at a message"])
def test_a_fork_from_the_opencode_tui_starts_from_the_plan_it_forked(
    person: AgentHome, at: str | None
) -> None:
    assert person.plansight("setup", "opencode").returncode == 0
    with scripted_model("anthropic", [("todowrite", TODOS)]) as model:
        _turn(person, model.url, *PROMPT)
    [forked] = _sessions(person)
    with scripted_model("anthropic", []) as model:
        _turn(person, model.url, "--session", forked.removeprefix("opencode:"), "Go", "on")
    _person_adds(person, forked)
    before = statuses(person, forked)
    with scripted_model("anthropic", [("todowrite", OTHER)]) as model:
        _turn(person, model.url, "Tidy", "up")  # the folder's last planned conversation

    with scripted_model("anthropic", []) as model:
        _fork_in_the_tui(person, forked, model, at)
        told = json.dumps(_main_loop(model.requests)[0]["messages"][-1])

    titles = _sessions(person)
    assert sorted(titles.values()) == ["Fix the login bug", "Fix the login bug (fork)", "Tidy up"]
    [fork] = [name for name, title in titles.items() if title == "Fix the login bug (fork)"]
    assert statuses(person, fork) == before
    assert statuses(person, forked) == before
    assert ("Carry on" if at is None else at) in told
    assert "Tidy the docs" not in told
    for line in WHOLE:
        assert line in told, told
