"""Copilot CLI's session database as the model may leave it: the hook reads its todo list
back after every `sql` call that names it, and the model's `sql` can make that file
anything. Each test makes a real SQLite file the way such a query would, then replays
the recorded `sql` event through `plansight hook copilot` (and its warm process)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from replay import Replay
from test_hook_copilot import SESSION, SESSION_ID, _database, _tasks

from plansight.hook import copilot_todos
from plansight.hook.copilot_todos import LEFT_OUT, Unreadable, session_todos
from plansight.paths import default_store_path
from plansight.protocol.requests import HistoryParams
from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore

ENDLESS_VIEW = """
DROP TABLE todos;
CREATE VIEW todos AS
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
  SELECT i AS id, 'todo ' || i AS title, NULL AS description, 'pending' AS status FROM n;
"""
# A hundred million rows sorted by random text: SQLite spills the sort to temporary files.
HUGE_SORT_VIEW = """
DROP TABLE todos;
CREATE VIEW todos AS
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 100000000)
  SELECT i AS id, hex(randomblob(64)) AS title, NULL AS description, 'pending' AS status
  FROM n ORDER BY title;
"""
VIRTUAL_TABLE = """
DROP TABLE todos;
CREATE VIRTUAL TABLE todos USING fts5(id, title, description, status);
INSERT INTO todos VALUES ('a', 'A todo', NULL, 'pending');
"""


def _make(machine: Replay, script: str) -> None:
    with sqlite3.connect(_database(machine)) as connection:
        connection.executescript(script)
    connection.close()


def _touch_todos(machine: Replay) -> dict[str, object]:
    event = machine.event("copilot", "PostToolUse-sql-update-todos")
    run = machine.run("copilot", event)
    assert run.returncode == 0
    return run.reply


def _log_lines(machine: Replay, tool: str) -> list[str]:
    return [line for line in machine.log().splitlines() if f" tool={tool} " in line]


@pytest.mark.parametrize(
    "script", [ENDLESS_VIEW, HUGE_SORT_VIEW, VIRTUAL_TABLE], ids=["endless", "sort", "virtual"]
)
def test_a_todos_that_is_no_table_is_refused_and_the_warm_process_goes_on(
    machine: Replay, tmp_path: Path, script: str
) -> None:
    """Before: the hook never answered (SQLite ran the view for ever, deaf to the alarm),
    the warm process stayed at 100 % of a core, and the sort filled the temporary folder."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    machine.extra_env["TMPDIR"] = str(temporary)
    machine.extra_env["SQLITE_TMPDIR"] = str(temporary)
    assert machine.replay("copilot", "UserPromptSubmit") == {}
    _make(machine, script)
    assert _touch_todos(machine) == {}
    [line] = _log_lines(machine, "sql")
    assert " by=warm " in line
    assert "Copilot's session database: its todos is a" in line, line
    assert "not an ordinary table" in line
    # The warm process is free: it takes the next event itself.
    assert machine.replay("copilot", "PostToolUse-Write") == {}
    [after] = _log_lines(machine, "Write")
    assert " by=warm " in after, after
    assert list(temporary.iterdir()) == []
    assert _tasks(machine) == {}


def test_a_table_with_rows_that_cannot_be_taken_keeps_the_others(machine: Replay) -> None:
    """Before: one NULL title, one unknown status or a 201st row refused the whole list.
    Now each row that can be taken is, and the log and the plan's history say what was
    left out and why."""
    assert machine.replay("copilot", "UserPromptSubmit") == {}
    _make(machine, "INSERT INTO todos (id, title, status) VALUES ('repro', 'Reproduce', 'pending')")
    assert _touch_todos(machine) == {}
    rows = [
        ("repro", "Reproduce the login bug", "Log in twice", "in_progress"),
        ("untitled", None, None, "pending"),
        ("waiting", "Ask about the token", None, "waiting"),
        ("long", "x" * 600, None, "pending"),
    ]
    rows += [(f"t{n}", f"Todo {n}", None, "pending") for n in range(200)]
    script = """
        DROP TABLE todos;  -- made again without its NOT NULL and CHECK
        CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT, description TEXT, status TEXT);
    """
    _make(machine, script)
    with sqlite3.connect(_database(machine)) as connection:
        connection.executemany("INSERT INTO todos VALUES (?, ?, ?, ?)", rows)
        # A row of a megabyte is never read into memory.
        connection.execute("UPDATE todos SET description = zeroblob(1000000) WHERE id = 't0'")
    connection.close()
    assert _touch_todos(machine) == {}
    tasks = _tasks(machine)
    assert tasks["Reproduce the login bug"] == ("in_progress", [])
    assert tasks["Ask about the token"] == ("pending", [])
    assert "Todo 1" in tasks and "Todo 195" in tasks and "Todo 196" not in tasks
    assert len(tasks) == 197
    line = _log_lines(machine, "sql")[-1]
    assert " result=version 2 left_out=the todos past the first 200 (a plan holds 200);" in line
    assert "the todo in row 2: no title" in line
    assert "\"Ask about the token\": unknown status 'waiting', taken as not started" in line
    assert "the todo in row 4: a title over 500 characters" in line
    assert "the todo in row 5: a value over 16384 bytes" in line
    # The plan's history says it too: a note on the task in progress.
    change = _history(machine)[0]
    left_out = line.split(" left_out=")[1].removesuffix(" ok")
    assert f'added a note to "Reproduce the login bug": "{LEFT_OUT}{left_out}"' in change


def _history(machine: Replay) -> list[list[str]]:
    store = SqliteStore(default_store_path(machine.project))
    try:
        events = PlanService(store).history(HistoryParams(session=SESSION))["events"]
    finally:
        store.close()
    return [event["changes"] for event in events]


def test_a_huge_table_gives_its_first_200_todos(machine: Replay) -> None:
    """Half a million rows: the first 200 are read (by rowid, no sort), the rest not at
    all. Before: every row was read into memory, and the list refused as too long."""
    assert machine.replay("copilot", "UserPromptSubmit") == {}
    _make(
        machine,
        """WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 500000)
        INSERT INTO todos (id, title, status) SELECT 't' || i, 'Todo ' || i, 'pending' FROM n;""",
    )
    assert _touch_todos(machine) == {}
    tasks = _tasks(machine)
    assert len(tasks) == 200 and "Todo 200" in tasks and "Todo 201" not in tasks
    [line] = _log_lines(machine, "sql")
    assert "left_out=the todos past the first 200" in line


def test_the_deadline_interrupts_sqlite_itself(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A schema that takes SQLite seconds to read (thousands of large views, written
    straight into `sqlite_master`): the read stops at its deadline, inside SQLite."""
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path))
    path = copilot_todos.session_database(SESSION_ID)
    path.parent.mkdir(parents=True)
    body = " UNION ALL ".join(f"SELECT {n} AS a" for n in range(200))
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE todos (id, title, description, status)")
        connection.execute("PRAGMA writable_schema = ON")
        connection.executemany(
            "INSERT INTO sqlite_master VALUES ('view', ?, ?, 0, ?)",
            ((f"v{n}", f"v{n}", f"CREATE VIEW v{n} AS {body}") for n in range(3000)),
        )
    connection.close()
    with pytest.raises(Unreadable, match=r"not read within 0\.01 s"):
        session_todos(SESSION_ID, seconds=0.01)


def test_the_database_is_never_written(machine: Replay) -> None:
    """Read-only: no journal, no other file, no changed file time is left by the hook."""
    assert machine.replay("copilot", "UserPromptSubmit") == {}
    _make(machine, "INSERT INTO todos (id, title) VALUES ('a', 'A todo')")
    folder = _database(machine).parent
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    assert _touch_todos(machine) == {}
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before
    assert _tasks(machine) == {"A todo": ("pending", [])}
