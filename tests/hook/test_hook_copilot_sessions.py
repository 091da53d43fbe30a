"""Copilot CLI's `/branch`, `/clear` and `/new` (issue 31 item 3), replayed.

`/branch` (an alias of `/fork`) copies the conversation into a new session and resumes it:
its first SessionStart, with the next prompt, says `source: "resume"` under the fork's id
(`SessionStart-branch.json`), and only the fork's event log names the conversation forked
(`events-branch.jsonl`, recorded from 1.0.102 with the parent's id set to the recorded
session's). `/clear` and `/new` start a new session in the same Copilot process, whose
SessionStart says `new`, as a fresh `copilot` does (`SessionStart-clear.json`): the hook
tells them apart by the agent process that ran it (`conversation_link`), which a replay
is: the test's own process, or another one that runs the hook for a fresh `copilot`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from replay import FIXTURES, Replay
from test_hook_copilot import SESSION, _sql
from test_hook_steering import _person, _statuses, _store

FORK_ID = "9c3630a6-3f20-42f1-8577-f4fe4f5e8898"
FORK = f"copilot:{FORK_ID}"
CLEARED = "copilot:ceca010b-b925-4281-8274-fcf8b43638d3"


def _planned(machine: Replay) -> None:
    machine.replay("copilot", "SessionStart")
    machine.replay("copilot", "UserPromptSubmit")
    _sql(machine, "PostToolUse-sql-insert-todos")


def _fork_log(machine: Replay, session_id: str = FORK_ID) -> None:
    """The fork's event log, as Copilot CLI wrote it before the fork's first hook ran."""
    log = (FIXTURES / "copilot" / "events-branch.jsonl").read_text(encoding="utf-8")
    for key, value in (("{{project}}", machine.project), ("{{home}}", machine.home)):
        log = log.replace(key, str(value))
    path = machine.home / ".copilot" / "session-state" / session_id / "events.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(log, encoding="utf-8")


def _title(machine: Replay, session: str) -> str | None:
    store = _store(machine)
    try:
        return store.load(session).title
    finally:
        store.close()


def _sessions(machine: Replay) -> list[str]:
    store = _store(machine)
    try:
        return sorted(summary.session for summary in store.summaries())
    finally:
        store.close()


def test_copilots_branch_starts_from_the_plan_it_forked_titled_as_a_fork(
    machine: Replay,
) -> None:
    """Before, the fork's `resume` start found no plan of its own and told nothing: the
    fork went on without the plan, and its todos made a plan apart, titled by a prompt."""
    _planned(machine)
    _person(machine, SESSION, [{"op": "append", "phase": "Todos", "items": ["Person task"]}])
    parent = _statuses(machine, SESSION)
    _fork_log(machine)

    told = machine.replay("copilot", "SessionStart-branch")["additionalContext"]

    assert _statuses(machine, FORK) == parent
    assert _title(machine, FORK) == "Fix the login bug (fork)"
    for line in ("[>] Reproduce the login bug", "[ ] Fix the session check", "[ ] Person task"):
        assert line in told, told
    # From then on each goes alone: the person's change to the forked plan stays there.
    _person(machine, SESSION, [{"op": "append", "phase": "Todos", "items": ["Parent only"]}])
    prompt = machine.replay("copilot", "UserPromptSubmit", session_id=FORK_ID)
    assert "Parent only" not in json.dumps(prompt)
    assert "Parent only" not in _statuses(machine, FORK)


def test_a_copilot_resume_whose_log_names_no_fork_takes_no_plan(machine: Replay) -> None:
    """A resumed conversation that had no plan is no fork: it takes none, even with a
    planned conversation in the folder, and even when its log holds a fork line copied
    from another session's (its own fork is the one named last)."""
    _planned(machine)
    other = "1b2c3d4e-0000-4000-8000-000000000001"
    _fork_log(machine, other)  # a log whose fork line names another session as the fork

    reply = machine.replay("copilot", "SessionStart-branch", session_id=other)

    assert "Reproduce the login bug" not in json.dumps(reply)
    assert _sessions(machine) == [SESSION]
    # And a resume with no log at all.
    machine.replay("copilot", "SessionStart-branch")
    assert _sessions(machine) == [SESSION]


def test_copilots_clear_carries_the_unfinished_plan_on_and_tells_it_whole(
    machine: Replay,
) -> None:
    """`/clear` (or `/new`): the new session starts in the process that ran the cleared
    one's hooks. Before, it started a plan of its own, told nothing."""
    _planned(machine)

    told = machine.replay("copilot", "SessionStart-clear")["additionalContext"]

    for line in ("[>] Reproduce the login bug", "[ ] Fix the session check"):
        assert line in told, told
    _person(machine, SESSION, [{"op": "append", "phase": "Todos", "items": ["Person task"]}])
    session_id = CLEARED.split(":", 1)[1]
    after = machine.replay("copilot", "UserPromptSubmit", session_id=session_id)
    assert "Person task" in json.dumps(after)
    assert _sessions(machine) == [SESSION]


def test_copilots_clear_leaves_a_finished_plan_behind(machine: Replay) -> None:
    _planned(machine)
    _person(
        machine,
        SESSION,
        [
            {"op": "done", "task": "Reproduce the login bug"},
            {"op": "done", "task": "Fix the session check"},
        ],
    )

    reply = machine.replay("copilot", "SessionStart-clear")

    assert "Fix the session check" not in json.dumps(reply)


def _from_another_copilot(machine: Replay, event: dict[str, Any]) -> dict[str, Any]:
    """The hook run by another Copilot process (a fresh `copilot` in the same folder):
    `timeout` runs it as its child, so the agent process the hook sees is that one."""
    done = subprocess.run(
        ["timeout", "60", sys.executable, "-m", "plansight", "hook", "copilot"],
        input=json.dumps(event).encode(),
        capture_output=True,
        cwd=machine.home,
        env=machine.env(),
        timeout=90,  # a guard against a hang, not a speed check
        check=True,
    )
    reply: dict[str, Any] = json.loads(done.stdout)
    return reply


def test_a_fresh_copilot_in_the_same_folder_starts_a_plan_of_its_own(machine: Replay) -> None:
    """A new `copilot` is another process: its `new` start is no `/clear`."""
    _planned(machine)

    reply = _from_another_copilot(machine, machine.event("copilot", "SessionStart-clear"))

    assert "Fix the session check" not in json.dumps(reply)
    session_id = CLEARED.split(":", 1)[1]
    after = machine.replay("copilot", "UserPromptSubmit", session_id=session_id)
    assert "Fix the session check" not in json.dumps(after)
