"""What must hold of every answer and every state, whatever a client sent."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import unicodedata
from pathlib import Path
from typing import Any

from plansight.protocol.models import REQUESTS, DidChangeParams

Json = dict[str, Any]


def knob(name: str, default: int) -> int:
    """A scale setting from the environment (the nightly-style run turns them up), never
    below the CI default."""
    return max(default, int(os.environ.get(name, default)))


TODO_STATE_KEYS = {"session", "title", "version", "phases", "progress", "current", "updatedAt"}
APPLY_RESULT_KEYS = TODO_STATE_KEYS | {
    "summary",
    "errors",
    "isError",
    "completedTasks",
    "removedTasks",
    "changed",
}
RESULT_KEYS: dict[str, set[str]] = {
    "plansight/apply": APPLY_RESULT_KEYS,
    "plansight/write": APPLY_RESULT_KEYS,
    "plansight/clear": APPLY_RESULT_KEYS,
    "plansight/import": APPLY_RESULT_KEYS,
    "plansight/ingest": APPLY_RESULT_KEYS,
    "plansight/get": TODO_STATE_KEYS,
    "plansight/sessions": {"sessions"},
    "plansight/export": {"text"},
    "plansight/context": {"text", "reminder"},
    "plansight/history": {"events"},
    "plansight/restore": APPLY_RESULT_KEYS,
    "plansight/undo": APPLY_RESULT_KEYS,
}
TASK_KEYS = {
    "id",
    "content",
    "activeForm",
    "status",
    "notes",
    "description",
    "priority",
    "blockedBy",
    "waiting",
    "owner",
    "files",
    "externalId",
    "createdAt",
    "updatedAt",
    "startedAt",
    "completedAt",
    "createdBy",  # (v3)
    "parent",  # (v4)
}
# What the store holds of a task: all but what is derived from the plan.
STORED_TASK_KEYS = TASK_KEYS - {"waiting"}

INVALID_PARAMS = -32602
CONTENT_MODIFIED = -32801
METHOD_NOT_FOUND = -32601
INVALID_REQUEST = -32600
PARSE_ERROR = -32700
INTERNAL_ERROR = -32603

BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)
# What would tell a client about the machine or the code behind the server.
LEAK_MARKERS = (
    "Traceback",
    'File "',
    "site-packages",
    '.py"',
    ".py,",
    "/home/",
    "/root",
    "/tmp/",
    "/usr/",
    "/work/",
    "/proc/",
    "sqlite3.",
)


def leaks(text: str, extra: tuple[str, ...] = ()) -> list[str]:
    return [marker for marker in (*LEAK_MARKERS, *extra) if marker and marker in text]


def assert_no_leak(message: Json, extra: tuple[str, ...] = ()) -> None:
    """An error's message and data carry no traceback and no path."""
    text = json.dumps(message.get("error"), ensure_ascii=False)
    found = leaks(text, extra)
    assert not found, f"error leaks {found}: {text[:500]}"


def assert_error_shape(message: Json) -> Json:
    error = message["error"]
    assert set(message) == {"jsonrpc", "id", "error"}, message
    assert isinstance(error["code"], int) and isinstance(error["message"], str), error
    assert error["message"], error
    if error["code"] == INVALID_PARAMS and "data" in error:
        entries = error["data"]["errors"]
        assert isinstance(entries, list)
        for entry in entries:
            assert isinstance(entry["path"], str) and isinstance(entry["message"], str), entry
    if error["code"] == CONTENT_MODIFIED:
        assert isinstance(error["data"]["currentVersion"], int), error
    assert error["code"] != INTERNAL_ERROR, f"internal error (a bug): {error}"
    return error


def assert_result_shape(method: str, result: Any) -> None:
    """The result has exactly the contract's keys and validates against its model."""
    assert isinstance(result, dict), result
    assert set(result) == RESULT_KEYS[method], (method, sorted(result))
    REQUESTS[method][1].model_validate(result)


def assert_did_change_shape(params: Json) -> None:
    assert set(params) == TODO_STATE_KEYS | {"origin", "completedTasks", "removedTasks"}, sorted(
        params
    )
    DidChangeParams.model_validate(params)


# ---------------------------------------------------------------- sanitizing


def _bad_char(char: str) -> bool:
    # U+2028 and U+2029 may stay: the contract turns only \r\n, \r, \n and tabs into
    # spaces, and they survive the markdown round trip.
    return unicodedata.category(char) in ("Cc", "Cs") or char in BIDI_CONTROLS


def assert_clean_line(text: str, what: str) -> None:
    """Content, activeForm and phase names: one trimmed line without control characters."""
    assert text, f"empty {what}"
    assert text == text.strip(), f"{what} not trimmed: {text!r}"
    bad = [c for c in text if _bad_char(c)]
    assert not bad, f"{what} keeps {bad!r}: {text!r}"


def assert_clean_note(note: str) -> None:
    assert note, "empty note"
    for line in note.split("\n"):
        assert line and line == line.rstrip(), f"note line not clean: {note!r}"
        bad = [c for c in line if _bad_char(c)]
        assert not bad, f"note keeps {bad!r}: {note!r}"


# ---------------------------------------------------------------- states

TASK_ID = re.compile(r"^t([1-9][0-9]*)$")


def task_number(task_id: str) -> int:
    match = TASK_ID.match(task_id)
    assert match, f"task id {task_id!r} is not of the t<n> form"
    return int(match.group(1))


def assert_state(state: Json) -> None:
    """A TodoState that keeps the contract's promises."""
    in_progress = []
    ids: set[str] = set()
    completed = abandoned = blocked = total = 0
    for phase in state["phases"]:
        assert_clean_line(phase["name"], "phase name")
        assert set(phase) == {"name", "tasks", "progress"}
        # (v4) A subtask follows its parent, in its phase (document order); progress,
        # `current` and one-in-progress count leaves only.
        parents = {task["parent"] for task in phase["tasks"] if task["parent"] is not None}
        seen_here: set[str] = set()
        for task in phase["tasks"]:
            assert set(task) == TASK_KEYS, sorted(task)
            assert task["id"] not in ids, f"duplicate id {task['id']}"
            ids.add(task["id"])
            assert task["parent"] is None or task["parent"] in seen_here, task["parent"]
            seen_here.add(task["id"])
            task_number(task["id"])
            assert_clean_line(task["content"], "content")
            assert_clean_line(task["activeForm"], "activeForm")
            for note in task["notes"]:
                assert_clean_note(note)
            if task["id"] in parents:
                continue
            total += 1
            status = task["status"]
            if status == "in_progress":
                in_progress.append(task)
                assert task["startedAt"] is not None
            if status == "completed":
                completed += 1
            if status == "abandoned":
                abandoned += 1
            if status == "blocked":
                blocked += 1
            assert (task["completedAt"] is not None) == (status in ("completed", "abandoned"))
    owners = [task["owner"] for task in in_progress]
    assert len(owners) == len(set(owners)), f"{len(in_progress)} tasks in progress"
    assert (state["current"] is None) == (not in_progress)
    assert state["current"] is None or state["current"] in in_progress
    percent = 100 * completed // total if total else 0
    assert state["progress"] == {
        "completed": completed,
        "abandoned": abandoned,
        "blocked": blocked,
        "total": total,
        "percent": percent,
    }
    assert (state["updatedAt"] is None) == (state["version"] == 0)


def task_ids(state: Json) -> dict[str, str]:
    """id -> content."""
    return {task["id"]: task["content"] for phase in state["phases"] for task in phase["tasks"]}


def outline(state: Json) -> list[tuple[str, list[tuple[str, str, tuple[str, ...]]]]]:
    """What export and import promise to keep: phases, contents, statuses and notes."""
    return [
        (
            phase["name"],
            [(t["content"], t["status"], tuple(t["notes"])) for t in phase["tasks"]],
        )
        for phase in state["phases"]
    ]


def auto_started(state: Json) -> Any:
    """The outline of `state` as an import normalizes it: when no task without an owner is
    in progress, the first pending one without an owner that waits for nothing starts
    (the autoStart default)."""
    tasks = [t for phase in state["phases"] for t in phase["tasks"]]
    if any(t["status"] == "in_progress" and t["owner"] is None for t in tasks):
        return outline(state)
    first = next(
        (
            t["id"]
            for t in tasks
            if t["status"] == "pending" and t["owner"] is None and not t["waiting"]
        ),
        None,
    )
    return [
        (
            phase["name"],
            [
                (
                    t["content"],
                    "in_progress" if t["id"] == first else t["status"],
                    tuple(t["notes"]),
                )
                for t in phase["tasks"]
            ],
        )
        for phase in state["phases"]
    ]


# ---------------------------------------------------------------- the store itself


def store_state(db_path: Path, session: str) -> Json:
    """The session as the SQLite file holds it, read with plain SQL (not the server's
    code), in the shape of a TodoState's `session`, `version`, `phases`, `updatedAt`. A
    store not created yet (nothing was ever changed) holds nothing, and so does a file whose
    first change was cut off by a kill before its schema was committed."""
    empty: Json = {"session": session, "version": 0, "phases": [], "updatedAt": None}
    if not Path(db_path).exists():
        return empty
    db = sqlite3.connect(db_path, isolation_level=None, timeout=30)
    try:
        db.execute("PRAGMA busy_timeout=30000")
        db.execute("BEGIN")
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'sessions'").fetchone():
            return empty
        head = db.execute(
            "SELECT version, updated_at FROM sessions WHERE name = ?", (session,)
        ).fetchone()
        names = [
            row[0]
            for row in db.execute(
                "SELECT name FROM phases WHERE session = ? ORDER BY position", (session,)
            )
        ]
        phases: list[Json] = [{"name": name, "tasks": []} for name in names]
        for row in db.execute(
            "SELECT id, phase_position, content, active_form, status, notes, created_at, "
            "updated_at, started_at, completed_at, description, priority, blocked_by, owner, "
            "files, external_id, created_by, parent FROM tasks WHERE session = ? "
            "ORDER BY phase_position, position",
            (session,),
        ):
            phases[row[1]]["tasks"].append(
                {
                    "id": row[0],
                    "content": row[2],
                    "activeForm": row[3],
                    "status": row[4],
                    "notes": json.loads(row[5]),
                    "createdAt": row[6],
                    "updatedAt": row[7],
                    "startedAt": row[8],
                    "completedAt": row[9],
                    "description": row[10],
                    "priority": row[11],
                    "blockedBy": json.loads(row[12]),
                    "owner": row[13],
                    "files": json.loads(row[14]),
                    "externalId": row[15],
                    "createdBy": row[16],
                    "parent": row[17],
                }
            )
        db.execute("COMMIT")
    finally:
        db.close()
    version, updated_at = head if head else (0, None)
    return {"session": session, "version": version, "phases": phases, "updatedAt": updated_at}


def stored_part(state: Json) -> Json:
    """What `store_state` reads back of a state: derived members (progress, waiting) left out."""
    phases = [
        {
            "name": phase["name"],
            "tasks": [
                {k: v for k, v in t.items() if k in STORED_TASK_KEYS} for t in phase["tasks"]
            ],
        }
        for phase in state["phases"]
    ]
    return {
        "session": state["session"],
        "version": state["version"],
        "phases": phases,
        "updatedAt": state["updatedAt"],
    }


def integrity(db_path: Path) -> str:
    db = sqlite3.connect(db_path, isolation_level=None, timeout=30)
    try:
        db.execute("PRAGMA busy_timeout=30000")
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        db.close()
