"""A person steering from the terminal (`plansight add`, `start`, `done`, `drop`, `block`,
`note`, `rm`, `undo`): each acts as the person on the plan the agent is working on (the
session an agent changed last, or `--session`'s), prints the plan, never starts a task, and
what it changed survives the agent's next stale list. Real store files, the command run as
a person runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

AGENT = "claude-code:5f0c"


def plansight(*args: str, db: str) -> subprocess.CompletedProcess[str]:
    # PLANSIGHT_DB as a person who set it once; the warm process kept out: these commands
    # run in their own process, as a person's terminal runs them.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANSIGHT_")}
    env.update(PLANSIGHT_DB=db, PLANSIGHT_HOOK_DAEMON="0")
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "plans.sqlite3")


def todos(*pairs: tuple[str, str]) -> str:
    return json.dumps([{"content": c, "activeForm": f"Doing {c}", "status": s} for c, s in pairs])


def agent_writes(db: str, *pairs: tuple[str, str], session: str = AGENT) -> str:
    written = plansight("write", "--session", session, "--todos", todos(*pairs), db=db)
    assert written.returncode == 0, written.stderr
    return written.stdout


def tasks(db: str, session: str = AGENT) -> list[tuple[str, str, str]]:
    shown = plansight("show", "--session", session, "--format", "json", db=db)
    assert shown.returncode == 0, shown.stderr
    state: dict[str, Any] = json.loads(shown.stdout)
    return [
        (t["content"], t["status"], t["createdBy"]) for p in state["phases"] for t in p["tasks"]
    ]


def test_add_lands_in_the_agents_plan_as_the_persons_pending_task_and_done_finishes_it(
    db: str,
) -> None:
    agent_writes(db, ("A", "in_progress"), ("B", "pending"))

    added = plansight("add", "Check the logs", db=db)

    assert added.returncode == 0, added.stderr
    # The plan as it now is, as `plansight show` draws it: the agent's session, X pending.
    assert f"Plansight · {AGENT}" in added.stdout and "○ Check the logs" in added.stdout
    assert tasks(db) == [
        ("A", "in_progress", "agent"),
        ("B", "pending", "agent"),
        ("Check the logs", "pending", "user"),
    ]
    # Nothing but the agent's session: no "default" session made.
    sessions = json.loads(plansight("sessions", "--json", db=db).stdout)["sessions"]
    assert [s["session"] for s in sessions] == [AGENT]

    done = plansight("done", "Check the logs", db=db)

    assert done.returncode == 0, done.stderr
    assert "✓ Check the logs" in done.stdout
    assert tasks(db)[2] == ("Check the logs", "completed", "user")
    newest = json.loads(plansight("history", "--session", AGENT, "--json", db=db).stdout)
    assert [e["origin"] for e in newest["events"][:2]] == ["user", "user"]


def test_the_agents_next_stale_write_keeps_the_persons_changes_and_says_so(db: str) -> None:
    agent_writes(db, ("A", "in_progress"), ("B", "pending"))
    assert plansight("add", "C", db=db).returncode == 0
    assert plansight("done", "B", db=db).returncode == 0

    stale = agent_writes(db, ("A", "in_progress"), ("B", "pending"))

    assert stale.splitlines()[1] == (
        "Kept the user's changes your list does not have: "
        'completed "B"; added "C" to phase "Todos"'
    )
    assert tasks(db) == [
        ("A", "in_progress", "agent"),
        ("B", "completed", "agent"),
        ("C", "pending", "user"),
    ]


def test_the_verbs_never_start_a_task(db: str) -> None:
    # Nothing in progress (a TodoWrite list never auto-starts): a person's change leaves it so.
    agent_writes(db, ("A", "completed"), ("B", "pending"))

    assert plansight("add", "C", db=db).returncode == 0
    assert plansight("drop", "B", db=db).returncode == 0
    assert plansight("done", "A", db=db).returncode == 0

    assert tasks(db) == [
        ("A", "completed", "agent"),
        ("B", "abandoned", "agent"),
        ("C", "pending", "user"),
    ]


def test_done_on_the_task_in_progress_leaves_the_next_one_to_the_agent(db: str) -> None:
    # An agent's `init` starts its first task (autoStart); a person's `done` starts none.
    init = [{"op": "init", "list": [{"phase": "Fix", "items": ["A", "B"]}]}]
    made = plansight("apply", "--session", AGENT, "--ops", json.dumps(init), db=db)
    assert made.returncode == 0, made.stderr
    assert tasks(db)[0] == ("A", "in_progress", "agent")

    done = plansight("done", "A", db=db)

    assert done.returncode == 0, done.stderr
    assert tasks(db) == [("A", "completed", "agent"), ("B", "pending", "agent")]


def test_each_verb_names_a_task_by_content_or_id_and_changes_it_as_the_person(db: str) -> None:
    agent_writes(db, ("A", "in_progress"), ("B", "pending"), ("Run the tests", "pending"))

    assert plansight("start", "#2", db=db).returncode == 0  # B, by its id
    assert plansight("note", "run the TESTS", "only the fast ones", db=db).returncode == 0
    assert plansight("block", "t3", "--reason", "waiting on CI", db=db).returncode == 0
    assert plansight("rm", "1", db=db).returncode == 0

    shown = json.loads(plansight("show", "--format", "json", db=db).stdout)
    assert [(t["content"], t["status"], t["notes"]) for t in shown["phases"][0]["tasks"]] == [
        ("B", "in_progress", []),
        ("Run the tests", "blocked", ["only the fast ones", "waiting on CI"]),
    ]
    history = json.loads(plansight("history", "--json", "--limit", "4", db=db).stdout)
    assert {e["origin"] for e in history["events"]} == {"user"}


def test_add_goes_to_the_phase_of_the_task_in_progress_or_the_one_named(db: str) -> None:
    ops = [
        {
            "op": "init",
            "list": [{"phase": "Build", "items": ["A"]}, {"phase": "Ship", "items": ["B"]}],
        },
        {"op": "start", "task": "B"},
    ]
    made = plansight("apply", "--session", AGENT, "--ops", json.dumps(ops), db=db)
    assert made.returncode == 0, made.stderr

    assert plansight("add", "C", db=db).returncode == 0
    assert plansight("add", "D", "E", "--phase", "Later", db=db).returncode == 0

    shown = json.loads(plansight("show", "--format", "json", db=db).stdout)
    assert [(p["name"], [t["content"] for t in p["tasks"]]) for p in shown["phases"]] == [
        ("Build", ["A"]),
        ("Ship", ["B", "C"]),
        ("Later", ["D", "E"]),
    ]


def test_the_plan_steered_is_the_one_an_agent_changed_last_not_the_one_updated_last(
    db: str,
) -> None:
    agent_writes(db, ("Old", "pending"), session="codex:old")
    agent_writes(db, ("A", "in_progress"))
    # A person's edit of the older session (in an editor) makes it the one updated last.
    edit = [{"op": "append", "phase": "Todos", "items": ["Mine"]}]
    assert (
        plansight(
            "apply", "--session", "codex:old", "--origin", "user", "--ops", json.dumps(edit), db=db
        ).returncode
        == 0
    )

    added = plansight("add", "X", db=db)

    assert added.returncode == 0, added.stderr
    assert [t[0] for t in tasks(db)] == ["A", "X"]
    assert [t[0] for t in tasks(db, "codex:old")] == ["Old", "Mine"]
    # --session names another plan.
    assert plansight("done", "Old", "--session", "codex:old", db=db).returncode == 0
    assert tasks(db, "codex:old")[0] == ("Old", "completed", "agent")


def test_undo_steps_back_in_the_agents_plan_though_another_was_updated_since(db: str) -> None:
    agent_writes(db, ("Old", "pending"), session="codex:old")
    agent_writes(db, ("A", "in_progress"))
    assert plansight("done", "A", db=db).returncode == 0
    edit = [{"op": "append", "phase": "Todos", "items": ["Mine"]}]
    assert (
        plansight(
            "apply", "--session", "codex:old", "--origin", "user", "--ops", json.dumps(edit), db=db
        ).returncode
        == 0
    )

    undone = plansight("undo", db=db)

    assert undone.returncode == 0, undone.stderr
    assert tasks(db) == [("A", "in_progress", "agent")]
    assert [t[0] for t in tasks(db, "codex:old")] == ["Old", "Mine"]


def test_unknown_or_ambiguous_names_are_one_line_exit_2_and_change_nothing(db: str) -> None:
    agent_writes(db, ("A", "in_progress"), ("Same", "pending"), ("Same", "pending"))
    version = json.loads(plansight("show", "--format", "json", db=db).stdout)["version"]

    unknown = plansight("done", "A", "nope", db=db)  # A is known: still nothing changes
    ambiguous = plansight("rm", "Same", db=db)
    no_session = plansight("add", "X", "--session", "typo", db=db)

    assert unknown.returncode == 2 and unknown.stderr == (
        f'plansight: no task "nope" in the plan of session "{AGENT}"; name a task by its '
        "content or its id (`plansight show --format json` lists them)\n"
    )
    assert ambiguous.returncode == 2 and ambiguous.stderr == (
        'plansight: "Same" names 2 tasks: t2 (phase "Todos"), t3 (phase "Todos"); '
        "name one by its id\n"
    )
    assert no_session.returncode == 2
    assert no_session.stderr.startswith('plansight: no session named "typo"')
    assert json.loads(plansight("show", "--format", "json", db=db).stdout)["version"] == version
    assert tasks(db)[0] == ("A", "in_progress", "agent")
    # The server's own refusal (a task that exists): its line on stderr, exit 1.
    twice = plansight("add", "A", db=db)
    assert twice.returncode == 1 and twice.stderr == 'plansight: Task "A" already exists\n'


def test_without_an_agents_plan_the_verbs_say_so_and_make_no_store(db: str) -> None:
    for verb in (["add", "X"], ["done", "X"], ["undo"]):
        refused = plansight(*verb, db=db)
        assert refused.returncode == 2 and refused.stderr.startswith(
            "plansight: no agent has written a plan in this store yet"
        ), verb
    assert not Path(db).exists()


def test_undo_says_when_there_is_nothing_left_to_undo(db: str) -> None:
    agent_writes(db, ("A", "pending"))
    assert plansight("undo", db=db).returncode == 0
    assert tasks(db) == []

    nothing = plansight("undo", db=db)

    assert nothing.returncode == 1 and nothing.stderr == "plansight: Nothing to undo\n"
