"""The spool is the store's and the workspace's, whatever else the environment holds
(issue 29, item 6), and it is bounded: a session's superseded whole lists go, past the
bounds the oldest go, and every event dropped is said in the log (item 7)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from replay import Replay
from test_hook_spool import plan_event, session_of, spool_files, steps, write_lock

from plansight.hook.spool import NotSpooled, Spool, spool_folder, spool_key
from plansight.hook.spool_tidy import FILES, LIST, OPS, replaces_whole_plan, tidy
from plansight.paths import default_store_path, workspace_root
from plansight.store.sqlite import SqliteStore


def logged_plans(store: Path) -> list[list[str]]:
    """The steps of every plan the store's event log took, in its order."""
    with closing(sqlite3.connect(store)) as db:
        return [
            [step["step"] for step in json.loads(request)["payload"]["plan"]]
            for (request,) in db.execute(
                "SELECT request FROM events WHERE method = 'plansight/ingest' ORDER BY seq"
            )
        ]


def dropped_lines(machine: Replay) -> list[str]:
    return [line for line in machine.log().splitlines() if " dropped (spooled at " in line]


# ---------------------------------------------------------------- item 6: what keys it


def test_a_list_spooled_under_one_login_is_applied_before_the_next_logins_list(
    machine: Replay,
) -> None:
    """The spool used to be named after every XDG_* variable: a hook of the next login
    (another XDG_SESSION_ID) did not see the list spooled in this one, stored its newer
    list, and the old list, applied later, replaced it."""
    machine.extra_env["PLANSIGHT_HOOK_DAEMON"] = "0"  # else a warm process per login
    machine.run("codex", plan_event(machine, "one"))
    store = default_store_path(machine.project)
    machine.extra_env.update(XDG_SESSION_ID="3", XDG_SESSION_TYPE="tty", XDG_VTNR="1")
    with write_lock(store):
        machine.run("codex", plan_event(machine, "one", "two"))
    assert len(spool_files(machine)) == 1

    machine.extra_env.update(XDG_SESSION_ID="7", XDG_SESSION_TYPE="wayland", XDG_VTNR="2")
    latest = plan_event(machine, "one", "two", "three")
    machine.run("codex", latest)
    assert spool_files(machine) == []
    assert logged_plans(store) == [["one"], ["one", "two"], ["one", "two", "three"]]

    machine.extra_env.update(XDG_SESSION_ID="3", XDG_SESSION_TYPE="tty", XDG_VTNR="1")
    machine.replay("codex", "UserPromptSubmit")  # the first login's next event
    assert steps(store, session_of(latest)) == ["one", "two", "three"]


def test_a_hook_with_another_store_leaves_the_spool_to_the_store_it_is_for(
    machine: Replay, tmp_path: Path
) -> None:
    """Same project, another `PLANSIGHT_DB`: its hook applies nothing of the default
    store's spool (it would have written it into its own store)."""
    machine.extra_env["PLANSIGHT_HOOK_DAEMON"] = "0"  # else a warm process per store
    machine.run("codex", plan_event(machine, "one"))
    store = default_store_path(machine.project)
    with write_lock(store):
        machine.run("codex", plan_event(machine, "one", "two"))
    other = tmp_path / "other.sqlite3"
    machine.extra_env["PLANSIGHT_DB"] = str(other)
    machine.replay("codex", "UserPromptSubmit")
    assert len(spool_files(machine)) == 1
    assert not other.exists() or steps(other, session_of(plan_event(machine))) == []
    del machine.extra_env["PLANSIGHT_DB"]
    machine.replay("codex", "UserPromptSubmit")
    assert steps(store, session_of(plan_event(machine))) == ["one", "two"]


def test_events_an_older_version_spooled_are_still_applied_first(machine: Replay) -> None:
    """An upgrade with events waiting in a spool named the old way (after the settings):
    the next event takes them in, and applies them before its own."""
    machine.run("codex", plan_event(machine, "one"))
    code = (
        "import sys; from plansight.hook.settings_name import settings_name;"
        "print(settings_name(sys.argv[1]))"
    )
    former = subprocess.run(
        [sys.executable, "-c", code, str(machine.project)],
        env=machine.env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    folder = machine.state / "plansight" / "hooks" / "spool" / former
    folder.mkdir(parents=True, mode=0o700)
    record = {
        "agent": "codex",
        "cwd": str(machine.project),
        "spooledAt": "2026-01-01T00:00:00",
        "event": plan_event(machine, "one", "two"),
    }
    (folder / "01700000000000000000-42.json").write_text(json.dumps(record), encoding="utf-8")
    latest = plan_event(machine, "one", "two", "three")
    machine.run("codex", latest)
    assert logged_plans(default_store_path(machine.project))[-2:] == [
        ["one", "two"],
        ["one", "two", "three"],
    ]
    assert not folder.exists() and spool_files(machine) == []


# ---------------------------------------------------------------- item 7: its bounds


def test_a_sessions_later_whole_list_replaces_the_ones_spooled_before_it(
    machine: Replay,
) -> None:
    """Twelve lists of one session while the store is locked: one is left, and the log
    says what went; the store gets the last."""
    machine.run("codex", plan_event(machine, "step 0"))
    store = default_store_path(machine.project)
    plans = [[f"step {n}" for n in range(count + 1)] for count in range(1, 13)]
    with write_lock(store):
        for plan in plans:
            machine.run("codex", plan_event(machine, *plan))
    [left] = spool_files(machine)
    assert json.loads(left.read_text(encoding="utf-8"))["event"]["tool_input"]["plan"][-1] == {
        "step": "step 12",
        "status": "pending",
    }
    dropped = dropped_lines(machine)
    assert len(dropped) == 11
    assert all(
        "replaced by a later whole list of its session" in line
        and f"session={session_of(plan_event(machine))}" in line
        and "tool=update_plan" in line
        for line in dropped
    )
    machine.replay("codex", "UserPromptSubmit")
    assert logged_plans(store) == [["step 0"], plans[-1]]
    assert spool_files(machine) == []


def test_what_lies_between_two_lists_of_a_session_keeps_the_first(machine: Replay) -> None:
    """An edit between two lists adds its files to the task the first list put in
    progress: the first is not superseded. Another session's list between two lists
    changes nothing of this session's: the first goes."""
    first = plan_event(machine, "Fix the greeting", "Write the docs")
    machine.run("codex", first)
    store = default_store_path(machine.project)
    with write_lock(store):
        machine.run("codex", plan_event(machine, "Write the docs", "Fix the greeting"))
        machine.replay("codex", "PostToolUse-apply_patch")  # while "Write the docs" is on
        machine.run("codex", plan_event(machine, "Write the docs", "Fix the greeting", "x"))
        machine.run("codex", plan_event(machine, "one", session_id="other"))
        machine.run("codex", plan_event(machine, "Write the docs", "Fix the greeting", "y"))
    assert len(spool_files(machine)) == 4  # the list before the edit, the edit, other, last
    [dropped] = dropped_lines(machine)
    assert "tool=update_plan" in dropped
    machine.replay("codex", "UserPromptSubmit")
    opened = SqliteStore(store)
    try:
        files = {task.content: task.files for task in opened.load(session_of(first)).tasks()}
        other = [task.content for task in opened.load("codex:other").tasks()]
    finally:
        opened.close()
    assert files == {
        "Write the docs": ["app.py", "docs/notes.md"],
        "Fix the greeting": [],
        "y": [],
    }
    assert other == ["one"]


def test_past_its_bounds_the_oldest_events_go_and_each_is_logged(machine: Replay) -> None:
    """The spool of a project already holds the most events it may (lists of other
    sessions, spooled earlier): the next one spooled drops the oldest, and says so."""
    machine.run("codex", plan_event(machine, "one"))
    root = workspace_root(machine.project)
    folder = spool_folder(machine.state / "plansight" / "hooks") / spool_key(root)
    spool = Spool(folder)
    for n in range(spool.max_events):
        other = plan_event(machine, "theirs", session_id=f"other-{n}")
        spool.add("codex", other, str(root), f"codex:other-{n}", LIST)
    latest = plan_event(machine, "one", "two")
    with write_lock(default_store_path(root)):
        machine.run("codex", latest)
    left = spool_files(machine)
    assert len(left) == spool.max_events
    [dropped] = dropped_lines(machine)
    assert "the oldest past the spool's bounds (200 events, 8192 KiB)" in dropped
    assert "session=codex:other-0 " in dropped and "tool=update_plan" in dropped
    assert json.loads(left[-1].read_text(encoding="utf-8"))["event"] == latest


def test_an_event_larger_than_the_spool_is_given_up_on_in_words(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool", max_bytes=1000)
    with pytest.raises(NotSpooled, match="larger than a spool holds"):
        spool.add("codex", {"tool_input": "x" * 2000}, "/p", "codex:s", LIST)
    assert not list((tmp_path / "spool").glob("*.json"))


def names(*queued: tuple[str, str | None]) -> dict[str, int]:
    """Spooled files' names in order, each `(kind, session)`, 10 bytes each."""
    return {
        (f"{n:020d}-1-{kind}-{session}.json" if session else f"{n:020d}-1.json"): 10
        for n, (kind, session) in enumerate(queued)
    }


def test_which_events_the_bounds_drop_first() -> None:
    """Superseded lists always; past the bounds a list a later one of its session
    replaces (an op between), then an edit's files, then the oldest."""
    queue = names((LIST, "a"), (OPS, "a"), (LIST, "b"), (FILES, "b"), (LIST, "a"), (LIST, "a"))
    ordered = sorted(queue)
    assert [name for name, _ in tidy(queue, 10, 10_000)] == [ordered[4]]
    gone = [name for name, _ in tidy(queue, 3, 10_000)]
    assert gone == [ordered[4], ordered[0], ordered[3]]
    gone = [name for name, _ in tidy(queue, 1, 10_000)]
    assert gone == [ordered[4], ordered[0], ordered[3], ordered[1], ordered[2]]
    assert len(tidy(queue, 10, 25)) == 4  # by bytes: 6 of 10 bytes, 2 fit in 25


def test_an_older_versions_file_of_no_known_session_holds_its_place() -> None:
    """Between two lists of a session, a file whose session is not known may be one of
    that session's: the first list stays."""
    queue = names((LIST, "a"), ("", None), (LIST, "a"))
    assert tidy(queue, 10, 10_000) == []


def test_only_a_payload_that_is_the_whole_list_and_nothing_more_replaces_one() -> None:
    todos = {"todos": [{"content": "a", "status": "pending", "activeForm": "Doing a"}]}
    plan = {"plan": [{"step": "a", "status": "pending"}]}
    assert replaces_whole_plan("claude-todowrite", todos)
    assert replaces_whole_plan("codex-plan", plan)
    assert not replaces_whole_plan("codex-plan", {**plan, "explanation": "a note"})
    assert not replaces_whole_plan("vscode-todos", {"operation": "read"})
    assert not replaces_whole_plan("claude-tasks", {"tool_name": "TaskCreate"})
    assert not replaces_whole_plan("codex-plan", {"plan": "not a list"})  # refused


def test_a_team_stores_spool_is_named_by_its_place_not_its_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def key(url: str, workspace: str = "") -> str:
        monkeypatch.setenv("PLANSIGHT_DB", url)
        monkeypatch.setenv("PLANSIGHT_WORKSPACE", workspace)
        return spool_key(tmp_path)

    same = key("postgresql://alice:old@db.example/plans?sslmode=require")
    assert key("postgresql://alice:n?w@db.example/plans?sslmode=require") == same
    assert key("postgresql://alice:old@db.example/plans?sslmode=disable") != same
    assert key("postgresql://alice:old@other.example/plans?sslmode=require") != same
    assert key("postgresql://alice:old@db.example/plans?sslmode=require", "team-b") != same
    monkeypatch.setenv("XDG_SESSION_ID", "99")
    assert key("postgresql://alice:old@db.example/plans?sslmode=require") == same
