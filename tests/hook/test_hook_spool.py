"""A plan the store could not take in time is spooled, and applied, in order, by the next
event of the same project: a hook gives up waiting on a locked store (the agent must not
wait), but the agent's plan is never lost to it."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from replay import Replay
from test_hook_steering import PLANS
from test_hook_steering import _person as person
from test_hook_steering import _statuses as statuses

from plansight.hook.conversation import ConversationFile
from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore


def plan_event(machine: Replay, *steps: str, **changes: Any) -> dict[str, Any]:
    """Codex's recorded `update_plan` call, with these steps (the first in progress)."""
    plan = [
        {"step": step, "status": "in_progress" if number == 0 else "pending"}
        for number, step in enumerate(steps)
    ]
    return machine.event("codex", "PostToolUse-update_plan", tool_input={"plan": plan}, **changes)


def steps(store: Path, session: str) -> list[str]:
    opened = SqliteStore(store)
    try:
        return [task.content for task in opened.load(session).tasks()]
    finally:
        opened.close()


def session_of(event: dict[str, Any]) -> str:
    return f"codex:{event['session_id']}"


@contextmanager
def write_lock(store: Path) -> Iterator[None]:
    """Another program holds the store's write lock."""
    holder = sqlite3.connect(store, isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def spool_files(machine: Replay) -> list[Path]:
    folder = machine.state / "plansight" / "hooks" / "spool"
    return sorted(folder.rglob("*.json")) if folder.exists() else []


def spooled_lines(machine: Replay) -> list[str]:
    return [line for line in machine.log().splitlines() if "spooled for the next event" in line]


def test_a_plan_written_while_the_store_is_locked_is_applied_by_the_next_event(
    machine: Replay,
) -> None:
    first = plan_event(machine, "Reproduce the bug")
    assert machine.run("codex", first).reply == {}
    store = default_store_path(machine.project)
    with write_lock(store):
        run = machine.run("codex", plan_event(machine, "Reproduce the bug", "Fix it"))
        assert (run.returncode, run.reply) == (0, {})
    assert steps(store, session_of(first)) == ["Reproduce the bug"]  # not yet
    [spooled] = spool_files(machine)
    assert spooled.stat().st_mode & 0o777 == 0o600
    assert "the store is busy" in spooled_lines(machine)[-1]

    machine.replay("codex", "UserPromptSubmit")  # any next event of the project
    assert steps(store, session_of(first)) == ["Reproduce the bug", "Fix it"]
    assert spool_files(machine) == []
    applied = [line for line in machine.log().splitlines() if " by=spool " in line]
    assert len(applied) == 1 and "applied (spooled at" in applied[0]


def test_spooled_plans_land_in_the_order_the_agent_wrote_them_before_the_next_one(
    machine: Replay,
) -> None:
    machine.run("codex", plan_event(machine, "one"))
    store = default_store_path(machine.project)
    with write_lock(store):
        for plan in (["one", "two"], ["one", "two", "three"]):
            event = plan_event(machine, *plan)
            # Each adds a note too: the later list does not make the earlier one useless.
            event["tool_input"]["explanation"] = f"{len(plan)} steps now"
            machine.run("codex", event)
    assert len(spool_files(machine)) == 2
    latest = plan_event(machine, "one", "two", "three", "four")
    machine.run("codex", latest)
    assert steps(store, session_of(latest)) == ["one", "two", "three", "four"]
    assert spool_files(machine) == []
    with closing(sqlite3.connect(store)) as db:
        logged = [
            [step["step"] for step in json.loads(request)["payload"]["plan"]]
            for (request,) in db.execute(
                "SELECT request FROM events WHERE method = 'plansight/ingest' ORDER BY seq"
            )
        ]
    assert logged == [
        ["one"],
        ["one", "two"],
        ["one", "two", "three"],
        ["one", "two", "three", "four"],
    ]


def test_while_earlier_events_wait_a_new_one_waits_behind_them(machine: Replay) -> None:
    """The store is free again, but the spooled events cannot be applied yet (another hook
    is applying them): the new plan is spooled behind them, not written before them."""
    machine.run("codex", plan_event(machine, "one"))
    store = default_store_path(machine.project)
    with write_lock(store):
        machine.run("codex", plan_event(machine, "one", "two"))
    [spooled] = spool_files(machine)
    lock = os.open(spooled.parent / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        latest = plan_event(machine, "one", "two", "three")
        assert machine.run("codex", latest).reply == {}
    finally:
        os.close(lock)
    assert steps(store, session_of(latest)) == ["one"]
    assert "behind events spooled earlier" in spooled_lines(machine)[-1]
    machine.replay("codex", "UserPromptSubmit")
    assert steps(store, session_of(latest)) == ["one", "two", "three"]
    assert spool_files(machine) == []


def test_a_damaged_spooled_event_is_set_aside_and_holds_up_nothing(machine: Replay) -> None:
    machine.run("codex", plan_event(machine, "one"))
    store = default_store_path(machine.project)
    with write_lock(store):
        machine.run("codex", plan_event(machine, "one", "two"))
    [spooled] = spool_files(machine)
    damaged = spooled.with_name("00000000000000000000-1.json")  # first in the queue
    damaged.write_text("{not json", encoding="utf-8")
    latest = plan_event(machine, "one", "two", "three")
    machine.run("codex", latest)
    assert steps(store, session_of(latest)) == ["one", "two", "three"]
    assert spool_files(machine) == []
    assert damaged.with_name(damaged.stem + ".damaged").exists()


def test_another_projects_hook_leaves_the_spooled_event_to_its_own_project(
    machine: Replay, tmp_path: Path
) -> None:
    """Spooled events are applied only by a hook of their own project (and settings): one
    that opens the same store, as the agent that sent them could."""
    machine.run("codex", plan_event(machine, "one"))
    store = default_store_path(machine.project)
    with write_lock(store):
        machine.run("codex", plan_event(machine, "one", "two"))
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    machine.run("codex", plan_event(machine, "elsewhere", cwd=str(other), session_id="o"))
    assert len(spool_files(machine)) == 1
    assert steps(store, session_of(plan_event(machine))) == ["one"]
    machine.replay("codex", "UserPromptSubmit")
    assert steps(store, session_of(plan_event(machine))) == ["one", "two"]


def test_a_spooled_plan_that_meets_a_persons_change_keeps_it_and_it_is_told_later(
    machine: Replay,
) -> None:
    """The person adds a task while the agent's next (stale) list waits in the spool. Its
    late merge keeps the person's task, but its answer reaches no agent: so nothing
    counts as told, the agent's next prompt is told the task, and its next stale list
    still keeps it (told or not, a person's change is never lost)."""
    session, plan_tool, prompt, _ = PLANS["codex"]
    machine.replay("codex", prompt)
    machine.replay("codex", plan_tool)
    person(machine, session, [{"op": "append", "phase": "Todos", "items": ["Person task C"]}])
    with write_lock(default_store_path(machine.project)):
        machine.replay("codex", plan_tool)  # the same list, made before the person's task
    assert len(spool_files(machine)) == 1

    told = machine.replay("codex", prompt)  # applies the spooled list, then answers
    assert spool_files(machine) == []
    assert "Person task C" in told["hookSpecificOutput"]["additionalContext"]
    assert "kept, to be told" in next(
        line for line in machine.log().splitlines() if " by=spool " in line
    )
    machine.replay("codex", plan_tool)  # the stale list once more
    assert statuses(machine, session)["Person task C"] == "pending"


def test_the_first_plan_spooled_still_makes_the_conversation_planned(machine: Replay) -> None:
    """The conversation's first plan waits in the spool; the prompt that applies it reads
    the conversation after it did, so it answers as a planned one and stays planned
    (this prompt is the conversation's first: it writes the conversation, with its
    title)."""
    # The store exists (another conversation's plan), and is locked at the first plan.
    person(machine, "another", [{"op": "append", "phase": "A", "items": ["x"]}])
    first = plan_event(machine, "one", "two")
    with write_lock(default_store_path(machine.project)):
        assert machine.run("codex", first).reply == {}
    machine.replay("codex", "UserPromptSubmit")
    assert steps(default_store_path(machine.project), session_of(first)) == ["one", "two"]
    memory = ConversationFile(machine.state / "plansight" / "hooks", session_of(first))
    assert memory.read().planned


def test_a_spooled_edit_keeps_the_files_names_not_what_was_written(machine: Replay) -> None:
    """An edit whose store is locked waits in the spool with the names of the files it
    changed, not the patch (a `Write` can carry a whole file); applied, it adds them to
    the task in progress as it would have."""
    first = plan_event(machine, "Fix the greeting")
    machine.run("codex", first)
    with write_lock(default_store_path(machine.project)):
        machine.replay("codex", "PostToolUse-apply_patch")
    [spooled] = spool_files(machine)
    kept_event = json.loads(spooled.read_text(encoding="utf-8"))["event"]
    assert kept_event["tool_input"] == {
        "command": "*** Update File: app.py\n*** Update File: docs/notes.md\n"
    }
    assert "print('hello')" not in spooled.read_text(encoding="utf-8")
    assert "tool_response" not in kept_event

    machine.replay("codex", "UserPromptSubmit")
    opened = SqliteStore(default_store_path(machine.project))
    try:
        [task] = opened.load(session_of(first)).tasks()
    finally:
        opened.close()
    assert task.files == ["app.py", "docs/notes.md"]


def test_a_plan_with_a_lone_surrogate_is_spooled_and_stored_as_any_other(machine: Replay) -> None:
    """The agent's JSON may escape half a surrogate pair (`\\ud800`): the spool keeps it
    escaped, and the next event stores the plan as the hook stores it at once."""
    machine.run("codex", plan_event(machine, "one"))
    store = default_store_path(machine.project)
    broken = plan_event(machine, "one", "two \ud800 halves")
    with write_lock(store):
        machine.run("codex", broken)
    [spooled] = spool_files(machine)
    assert "\\ud800" in spooled.read_text(encoding="ascii")
    machine.replay("codex", "UserPromptSubmit")
    assert spool_files(machine) == []
    stored = steps(store, session_of(broken))
    machine.run("codex", broken)  # the same plan, stored at once
    assert steps(store, session_of(broken)) == stored and len(stored) == 2
