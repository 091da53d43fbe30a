"""Issue 21's story against a real agent CLI: while the agent works, the person adds a task
and completes one; the agent's next whole list, made from its stale copy, lacks both. The
store must keep them, and the model's next request must carry the hook's Kept line."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agent_home import AgentHome

from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore

KEPT = "Kept the user's changes your list does not have: "
PERSON_TASK = "Person task C"


def only_session(person: AgentHome, agent: str) -> str:
    """The agent's one session in the project's store."""
    store = SqliteStore(default_store_path(person.project))
    try:
        [session] = [p.session for p in store.sessions() if p.session.startswith(f"{agent}:")]
        return session
    finally:
        store.close()


def statuses(person: AgentHome, session: str) -> dict[str, str]:
    store = SqliteStore(default_store_path(person.project))
    try:
        return {task.content: task.status for task in store.load(session).tasks()}
    finally:
        store.close()


def person_adds_and_completes(person: AgentHome, agent: str, task: str) -> Callable[[], None]:
    """What the person does from the command line, as origin user, while the agent works."""

    def change() -> None:
        ops = [
            {"op": "append", "phase": "Todos", "items": [PERSON_TASK]},
            {"op": "done", "task": task},
        ]
        done = person.plansight(
            *("apply", "--session", only_session(person, agent), "--origin", "user"),
            *("--ops", json.dumps(ops)),
        )
        assert done.returncode == 0, done.stderr

    return change


def reads_no_escaped_markup(request: Any) -> bool:
    """Issue 29 item 10: the note reaches the model as written, not as `&lt;` markup (Claude
    Code and Gemini CLI escape tags in what a hook adds; the hook sends them none)."""
    return "&lt;" not in json.dumps(request, ensure_ascii=False)


def carries_kept_line(request: Any, task: str) -> bool:
    """The model request holds the whole Kept line the hook returned (as JSON escapes it;
    the line has no < or >, which Gemini CLI escapes in what a hook adds)."""
    text = json.dumps(request, ensure_ascii=False)
    line = f'{KEPT}completed \\"{task}\\"; added \\"{PERSON_TASK}\\" to phase \\"Todos\\"'
    return line in text
