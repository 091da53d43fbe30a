"""Copilot CLI's plan, read back from its session database.

Copilot CLI (1.0.102) gives its model no plan tool of the usual kind: the model keeps its
todos with the `sql` tool, in the `todos` table (`id`, `title`, `description`, `status`
pending / in_progress / done / blocked) and `todo_deps` of the session's own SQLite file,
`$COPILOT_HOME/session-state/<session id>/session.db` (`~/.copilot` by default). A hook
sees only the query, so after a query that names a todo table the hook reads the list
back and hands it on as `vscode-todos`, the shape it already has: the id as `externalId`,
the title as the content, the description kept.

The model may have made that file anything (`sql` runs whatever it writes): `todos` a
view that never ends or sorts for ever, a virtual table, rows of a gigabyte. So the file is
opened read-only and only an ordinary table named `todos` is read, row by row in rowid
order (no sort, so no temporary file), with a deadline that interrupts SQLite itself and a
bound on the rows and on each value's bytes. A row that cannot be taken is left out, the
others are taken, and what was left out is said: in the hook's log, and in the payload's
`note`, which the ingest adds to the task in progress (the history shows it there).
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

# A query that may have changed the plan: it names `todos` or `todo_deps`.
_TOUCHES_TODOS = re.compile(r"\btodo(?:s|_deps)\b", re.IGNORECASE)
# `blocked` has no `vscode-todos` status: such a todo is shown not started (its own status
# word stays in Copilot's table).
_STATUSES = {
    "pending": "not-started",
    "in_progress": "in-progress",
    "done": "completed",
    "blocked": "not-started",
}
# The most todos taken: a plan holds 200 tasks (`Settings.max_tasks`); the rest are left
# out, and said.
MAX_TODOS = 200
# The longest title taken (`Settings.max_content_length`; a longer one would refuse the
# whole list) and the most bytes SQLite hands back for one value (`SQLITE_LIMIT_LENGTH`:
# a longer value is never read into memory; a description of 4,000 characters fits).
MAX_TITLE = 500
MAX_DESCRIPTION = 4000  # `Settings.max_description_length`
MAX_VALUE_BYTES = 16 * 1024
# What was left out is said in a note on the task in progress (so in the plan's history):
# its words, and its length, well inside `Settings.max_note_length` (4,000).
LEFT_OUT = "Left out of Copilot's todo list: "
MAX_NOTE = 1000
# The whole read, opening included. A real list of 200 todos reads in milliseconds; this
# is far inside the hook's own deadline (9 s), which cannot interrupt SQLite.
READ_SECONDS = 2.0
# SQLite calls the deadline check every this many virtual machine instructions.
_CHECK_EVERY = 1000
# SQLITE_LIMIT_LENGTH (`sqlite3` names it from Python 3.11, with `setlimit`).
_LIMIT_LENGTH = 0
# `todos` as SQLite finds it: names are case-insensitive.
_ORDINARY_TABLE = re.compile(r"\s*CREATE\s+TABLE\b", re.IGNORECASE)


class Unreadable(Exception):
    """The session database holds no todo list this reader may read (said in the log)."""


class TodoList:
    """What was read: the `vscode-todos` payload and a line for each todo left out."""

    __slots__ = ("left_out", "payload")

    def __init__(self, payload: dict[str, Any], left_out: list[str]) -> None:
        self.payload = payload
        self.left_out = left_out


def copilot_home() -> Path:
    return Path(os.environ.get("COPILOT_HOME") or Path.home() / ".copilot")


def session_database(session_id: str) -> Path:
    return copilot_home() / "session-state" / session_id / "session.db"


def touches_todos(tool_input: Any) -> bool:
    """The `sql` call's query names a todo table (other tables are not the plan)."""
    if not isinstance(tool_input, dict):
        return False
    query = tool_input.get("query")
    return isinstance(query, str) and _TOUCHES_TODOS.search(query) is not None


def session_todos(session_id: str, seconds: float = READ_SECONDS) -> TodoList | None:
    """The session's todo list, in the order the model added them; None when the session
    has no database (nothing to read). Raises Unreadable when the file cannot be read as
    Copilot's, in time or at all."""
    if os.sep in session_id or session_id in (os.curdir, os.pardir):
        return None  # a session id names one folder, never a path
    path = session_database(session_id)
    if not path.is_file():
        return None
    deadline = time.monotonic() + seconds
    try:
        connection = sqlite3.connect(
            f"{path.as_uri()}?mode=ro", uri=True, timeout=min(0.5, seconds)
        )
    except sqlite3.Error as exc:
        raise Unreadable(f"cannot open it ({exc})") from None
    try:
        _bound(connection, deadline)
        return _read(connection)
    except sqlite3.Error as exc:
        if time.monotonic() >= deadline:
            raise Unreadable(f"not read within {seconds:g} s") from None
        raise Unreadable(str(exc)) from None
    finally:
        connection.close()


def _bound(connection: sqlite3.Connection, deadline: float) -> None:
    """Make `connection` stop at `deadline`, write nothing, and keep values small."""
    # Returning true interrupts the statement running ("interrupted"): the deadline holds
    # inside SQLite, where the hook's alarm is not heard until SQLite returns.
    connection.set_progress_handler(lambda: time.monotonic() >= deadline, _CHECK_EVERY)
    setlimit = getattr(connection, "setlimit", None)  # Python 3.11+
    if setlimit is not None:
        setlimit(_LIMIT_LENGTH, MAX_VALUE_BYTES)
    for pragma in (
        "query_only = ON",
        "temp_store = MEMORY",  # never a temporary file
        "trusted_schema = OFF",  # no function with side effects from the file's schema
        "cache_size = -2048",  # at most 2 MiB of pages
    ):
        connection.execute(f"PRAGMA {pragma}")


def _read(connection: sqlite3.Connection) -> TodoList:
    found = connection.execute(
        "SELECT type, sql FROM sqlite_master WHERE name = 'todos' COLLATE NOCASE"
    ).fetchall()
    if not found:
        raise Unreadable("it has no todos table")
    kind, sql = found[0]
    if kind != "table" or not isinstance(sql, str) or not _ORDINARY_TABLE.match(sql):
        what = "a virtual table" if kind == "table" else f"a {kind}"
        raise Unreadable(f"its todos is {what}, not an ordinary table")
    # Rowid order is the table's own: read without a sort. A table WITHOUT ROWID has no
    # rowid, and fails here.
    rowids = [
        rowid
        for (rowid,) in connection.execute(
            "SELECT rowid FROM todos ORDER BY rowid LIMIT ?", (MAX_TODOS + 1,)
        )
    ]
    left_out: list[str] = []
    if len(rowids) > MAX_TODOS:  # not counted: a table may hold millions
        left_out.append(f"the todos past the first {MAX_TODOS} (a plan holds {MAX_TODOS})")
        del rowids[MAX_TODOS:]
    todos = []
    for rowid in rowids:
        try:
            row = connection.execute(
                "SELECT id, title, description, status FROM todos WHERE rowid = ?", (rowid,)
            ).fetchone()
        except sqlite3.DataError:  # a value past MAX_VALUE_BYTES ("string or blob too big")
            left_out.append(f"the todo in row {rowid}: a value over {MAX_VALUE_BYTES} bytes")
            continue
        todo, why = _todo(*row) if row is not None else (None, "gone while read")
        if todo is None:
            left_out.append(f"the todo in row {rowid}: {why}")
        else:
            todos.append(todo)
            if why:
                left_out.append(f'"{_shown(todo["title"])}": {why}')
    payload: dict[str, Any] = {"todoList": todos}
    if left_out:
        payload["note"] = _shown(LEFT_OUT + "; ".join(left_out), MAX_NOTE)
    return TodoList(payload, left_out)


def _todo(todo_id: Any, title: Any, description: Any, status: Any) -> tuple[Any, str | None]:
    """One row as a `vscode-todos` item and what of it was not taken (None: all of it);
    the item is None when the row has no title that can be taken."""
    if not isinstance(title, str) or not title.strip():
        return None, "no title"
    if len(title) > MAX_TITLE:
        return None, f"a title over {MAX_TITLE} characters"
    todo: dict[str, Any] = {"title": title, "status": "not-started"}
    if isinstance(todo_id, str | int) and not isinstance(todo_id, bool):
        todo["id"] = str(todo_id)
    why = []
    if isinstance(description, str) and len(description) > MAX_DESCRIPTION:
        why.append(f"a description over {MAX_DESCRIPTION} characters, left out")
    elif isinstance(description, str) and description:
        todo["description"] = description
    if status in _STATUSES:
        todo["status"] = _STATUSES[status]
    else:
        why.append(f"unknown status {_shown(repr(status))}, taken as not started")
    return todo, "; ".join(why) or None


def _shown(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
