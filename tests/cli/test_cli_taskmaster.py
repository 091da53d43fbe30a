"""`plansight import` of a Taskmaster `tasks.json` (protocol 4, issue 32): its tasks and
their subtasks arrive nested, statuses, priorities and dependencies mapped, through the
real command line and store."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import plansight, state

FIXTURE = Path(__file__).parent.parent / "fixtures" / "taskmaster" / "tasks.json"


def test_a_taskmaster_file_imports_as_nested_tasks(tmp_path: Path) -> None:
    db = str(tmp_path / "plans.sqlite3")
    done = plansight("import", "--db", db, str(FIXTURE))
    assert done.returncode == 0, done.stderr + done.stdout

    tasks = [t for p in state(db)["phases"] for t in p["tasks"]]
    by_id = {t["id"]: t for t in tasks}
    rows = [
        (t["content"], t["status"], by_id[t["parent"]]["content"] if t["parent"] else None)
        for t in tasks
    ]
    generation = "Create Task File Generation System"
    assert rows[:2] == [
        ("Implement Task Data Structure", "completed", None),
        ("Implement Basic Task Operations", "in_progress", None),  # `in-progress`
    ]
    assert rows[3:] == [
        ("Design Task File Template Structure", "completed", generation),
        ("Implement Task File Generation Logic", "pending", generation),  # `deferred`
        ("Implement File Naming and Organization System", "abandoned", generation),
    ]
    assert rows[2][0] == generation and rows[2][2] is None
    assert [by_id[i]["content"] for i in tasks[2]["blockedBy"]] == [
        "Implement Task Data Structure",
        "Implement Basic Task Operations",
    ]
    # A subtask's number names its sibling.
    assert [by_id[i]["content"] for i in tasks[4]["blockedBy"]] == [
        "Design Task File Template Structure"
    ]
    assert tasks[0]["priority"] == "high" and tasks[0]["description"].startswith("Design and")


def test_json_that_is_not_taskmaster_is_refused_in_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "plans.sqlite3")
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"master": {"tasks": [{"id": 1, "status": "done"}]}}))
    refused = plansight("import", "--db", db, str(odd))
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith("tasks.0.title: a task needs a title")
    assert "Traceback" not in refused.stderr
