"""GitHub Copilot's recorded hook events replayed through `plansight hook copilot`.

Copilot CLI's model keeps its plan in the `todos` table of the session's own database
(`~/.copilot/session-state/<id>/session.db`): each replay first runs the recorded query
on such a database, made from the schema Copilot CLI 1.0.102 creates, as Copilot did
before it ran the hook."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from replay import FIXTURES, Replay

from plansight.paths import default_store_path
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore

SESSION_ID = "5990f5fa-d0d0-4325-a51d-a6aa9d1456fc"
SESSION = f"copilot:{SESSION_ID}"
KEPT = "Kept the user's changes your list does not have: "


def _database(machine: Replay, session_id: str = SESSION_ID) -> Path:
    path = machine.home / ".copilot" / "session-state" / session_id / "session.db"
    if not path.exists():
        path.parent.mkdir(parents=True)
        with sqlite3.connect(path) as connection:
            connection.executescript((FIXTURES / "copilot" / "session-db-schema.sql").read_text())
        connection.close()
    return path


def _sql(machine: Replay, name: str, **changes: object) -> dict[str, object]:
    """Copilot's `sql` call: its query on the session database, then its hook event."""
    event = machine.event("copilot", name, **changes)
    with sqlite3.connect(_database(machine)) as connection:
        connection.executescript(event["tool_input"]["query"])
    connection.close()
    run = machine.run("copilot", event)
    assert run.returncode == 0
    return run.reply


def _tasks(machine: Replay, session: str = SESSION) -> dict[str, tuple[str, list[str]]]:
    store = SqliteStore(default_store_path(machine.project))
    try:
        return {t.content: (t.status, list(t.files)) for t in store.load(session).tasks()}
    finally:
        store.close()


def test_a_copilot_cli_session_its_todos_table_and_edits(machine: Replay) -> None:
    assert machine.replay("copilot", "SessionStart") == {}
    assert machine.replay("copilot", "UserPromptSubmit") == {}
    assert _sql(machine, "PostToolUse-sql-insert-todos") == {}
    assert _tasks(machine) == {
        "Reproduce the login bug": ("in_progress", []),
        "Fix the session check": ("pending", []),
    }
    assert _sql(machine, "PostToolUse-sql-update-todos") == {}
    (machine.project / "notes.txt").write_text("hello world\n")
    assert machine.replay("copilot", "PostToolUse-Write") == {}
    assert machine.replay("copilot", "PostToolUse-Edit") == {}
    assert _tasks(machine) == {
        "Reproduce the login bug": ("completed", []),
        "Fix the session check": ("in_progress", ["notes.txt"]),
    }
    store = SqliteStore(default_store_path(machine.project))
    try:
        plan = store.load(SESSION)
        assert plan.title == "Fix the login bug"
        [repro] = [task for task in plan.tasks() if task.content == "Reproduce the login bug"]
        assert repro.description == "Log in twice" and repro.external_id == "repro"
        version = plan.version
    finally:
        store.close()
    # A query on another table of the session database is not the plan.
    assert _sql(machine, "PostToolUse-sql-other-table") == {}
    store = SqliteStore(default_store_path(machine.project))
    try:
        assert store.load(SESSION).version == version
    finally:
        store.close()
    assert "no plan in this call" in machine.log()


def test_copilot_is_told_the_persons_changes_in_its_own_field(machine: Replay) -> None:
    """Copilot CLI reads only a hook's top-level `additionalContext`, VS Code only
    `hookSpecificOutput`'s: the reply carries the Kept line in both."""
    _sql(machine, "PostToolUse-sql-insert-todos")
    store = SqliteStore(default_store_path(machine.project))
    try:
        ops = [{"op": "done", "task": "Fix the session check"}]
        request = {"session": SESSION, "ops": ops, "origin": "user"}
        PlanService(store).apply(ApplyParams.validate(request), request)
    finally:
        store.close()
    touch = "UPDATE todos SET updated_at = datetime('now') WHERE id = 'repro'"
    reply = _sql(machine, "PostToolUse-sql-update-todos", tool_input={"query": touch})
    told = reply["additionalContext"]
    assert isinstance(told, str) and KEPT in told
    assert reply["hookSpecificOutput"] == {
        "hookEventName": "PostToolUse",
        "additionalContext": told,
    }
    assert _tasks(machine)["Fix the session check"] == ("completed", [])


def test_a_failed_or_foreign_sql_call_changes_nothing(machine: Replay) -> None:
    failed = {"result_type": "failure", "text_result_for_llm": "no such table"}
    event = machine.event("copilot", "PostToolUse-sql-insert-todos", tool_result=failed)
    assert machine.run("copilot", event).reply == {}
    # A session id that is not one folder name reads nothing outside the session state.
    stray = machine.event("copilot", "PostToolUse-sql-insert-todos", session_id="../x")
    assert machine.run("copilot", stray).reply == {}
    store = SqliteStore(default_store_path(machine.project))
    try:
        assert [p.session for p in store.sessions()] == []
    finally:
        store.close()


def test_vs_codes_manage_todo_list_arrives(machine: Replay) -> None:
    """VS Code's agent mode (its documented camelCase `sessionId` and `hookEventName`)."""
    for name in ("UserPromptSubmit", "PostToolUse-manage_todo_list"):
        run = machine.run("copilot", machine.event("vscode-copilot", name))
        assert run.returncode == 0 and run.reply == {}
    assert _tasks(machine, "copilot:vscode-session-1") == {
        "Reproduce the login bug": ("in_progress", []),
        "Fix the session check": ("pending", []),
    }
    log = machine.log()
    assert "event=PostToolUse tool=manage_todo_list session=copilot:vscode-session-1" in log


def test_a_resumed_copilot_session_is_told_the_whole_plan(machine: Replay) -> None:
    """`copilot --resume` runs SessionStart with `source` `resume` (the SDK's
    SessionStartHookInput: new | startup | resume): told whole, in both reply fields."""
    machine.replay("copilot", "UserPromptSubmit")
    _sql(machine, "PostToolUse-sql-insert-todos")
    reply = machine.replay("copilot", "SessionStart", source="resume")
    told = reply["additionalContext"]
    assert "[>] Reproduce the login bug" in told and "[ ] Fix the session check" in told
    assert reply["hookSpecificOutput"]["additionalContext"] == told
    counts = machine.replay("copilot", "SessionStart", source="startup")["additionalContext"]
    assert "0/2 completed" in counts and "[ ] Fix the session check" not in counts


def test_copilots_compact_is_answered_with_the_whole_plan_at_the_next_prompt(
    machine: Replay,
) -> None:
    """Issue 31 item 3: Copilot CLI's `/compact` runs `PreCompact` (trigger manual, recorded
    from 1.0.102) and reads nothing back, and no SessionStart follows: the next prompt
    tells the plan whole, once."""
    machine.replay("copilot", "UserPromptSubmit")
    _sql(machine, "PostToolUse-sql-insert-todos")

    assert machine.replay("copilot", "PreCompact-manual") == {}

    told = machine.replay("copilot", "UserPromptSubmit")["additionalContext"]
    assert "[>] Reproduce the login bug" in told and "[ ] Fix the session check" in told
    again = machine.replay("copilot", "UserPromptSubmit")
    assert "[ ] Fix the session check" not in str(again)


def test_copilots_automatic_compaction_is_answered_with_the_whole_plan_at_the_next_prompt(
    machine: Replay,
) -> None:
    """Copilot CLI's own compaction, mid-turn, runs `PreCompact` with trigger "auto"
    (recorded from 1.0.102) and no SessionStart. The compacted history Copilot swaps in
    drops what hooks added to tool results, so a tool result is not where the plan is
    told: the next prompt tells it whole, once."""
    machine.replay("copilot", "UserPromptSubmit")
    _sql(machine, "PostToolUse-sql-insert-todos")

    assert machine.replay("copilot", "PreCompact-auto") == {}

    result = _sql(machine, "PostToolUse-sql-update-todos")
    assert "[x] Reproduce the login bug" not in str(result)
    told = machine.replay("copilot", "UserPromptSubmit")["additionalContext"]
    assert "[x] Reproduce the login bug" in told and "[>] Fix the session check" in told
    again = machine.replay("copilot", "UserPromptSubmit")
    assert "[x] Reproduce the login bug" not in str(again)


def test_copilots_apply_patch_lists_each_file_it_names(machine: Replay) -> None:
    """With GPT-5.1-Codex and later, Copilot CLI edits through its freeform `apply_patch`,
    which reaches hooks as `Edit` with the patch text as the whole tool input (recorded).
    Before, the hook found no `path` in it and logged "no file in the workspace"."""
    machine.replay("copilot", "UserPromptSubmit")
    _sql(machine, "PostToolUse-sql-insert-todos")
    assert machine.replay("copilot", "PostToolUse-apply_patch") == {}
    assert _tasks(machine)["Reproduce the login bug"] == ("in_progress", ["app.py", "new.py"])
    assert "no file in the workspace" not in machine.log()
