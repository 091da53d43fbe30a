"""Copilot CLI's plan, read back from its session database.

Copilot CLI (1.0.102) gives its model no plan tool of the usual kind: the model keeps its
todos with the `sql` tool, in the `todos` table (`id`, `title`, `description`, `status`
pending / in_progress / done / blocked) and `todo_deps` of the session's own SQLite file,
`$COPILOT_HOME/session-state/<session id>/session.db` (`~/.copilot` by default). A hook
sees only the query, so after a query that names a todo table the hook reads the whole
list back (read-only) and hands it on as `vscode-todos`, the shape it already has: the id
as `externalId`, the title as the content, the description kept.
"""

from __future__ import annotations

import os
import re
import sqlite3
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


def session_todos(session_id: str) -> dict[str, Any] | None:
    """The session's whole todo list as a `vscode-todos` payload, in the order the model
    added them; None when the session has no database (nothing to read)."""
    if os.sep in session_id or session_id in (os.curdir, os.pardir):
        return None  # a session id names one folder, never a path
    path = session_database(session_id)
    if not path.is_file():
        return None
    try:
        connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=0.5)
    except sqlite3.Error:
        return None
    try:
        rows = connection.execute(
            "SELECT id, title, description, status FROM todos ORDER BY rowid"
        ).fetchall()
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    todos = []
    for todo_id, title, description, status in rows:
        todo: dict[str, Any] = {
            "id": str(todo_id),
            "title": title,
            "status": _STATUSES.get(status, status),
        }
        if description:
            todo["description"] = description
        todos.append(todo)
    return {"todoList": todos}
