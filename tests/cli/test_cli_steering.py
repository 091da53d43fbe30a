"""Steering (v3) through the `plansight` command: an agent's stale `write` keeps what a
person changed and says so; a person's stale `import --base-version N --merge` is merged,
or refused naming the conflicts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def plansight(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args], capture_output=True, text=True, timeout=60
    )


def state(db: str) -> dict[str, Any]:
    shown = plansight("show", "--db", db, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    result: dict[str, Any] = json.loads(shown.stdout)
    return result


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "plans.sqlite3")


def todos(*pairs: tuple[str, str]) -> str:
    return json.dumps([{"content": c, "activeForm": f"Doing {c}", "status": s} for c, s in pairs])


def test_an_agents_stale_write_keeps_the_persons_changes_and_says_so(db: str) -> None:
    assert (
        plansight(
            "write", "--db", db, "--todos", todos(("A", "in_progress"), ("B", "pending"))
        ).returncode
        == 0
    )
    ops = [{"op": "append", "phase": "Todos", "items": ["C"]}, {"op": "done", "task": "B"}]
    assert (
        plansight("apply", "--db", db, "--origin", "user", "--ops", json.dumps(ops)).returncode == 0
    )

    stale = plansight("write", "--db", db, "--todos", todos(("A", "in_progress"), ("B", "pending")))

    assert stale.returncode == 0, stale.stderr
    assert stale.stdout.splitlines()[1] == (
        "Kept the user's changes your list does not have: "
        'completed "B"; added "C" to phase "Todos"'
    )
    shown = state(db)
    assert [(t["content"], t["status"], t["createdBy"]) for t in shown["phases"][0]["tasks"]] == [
        ("A", "in_progress", "agent"),
        ("B", "completed", "agent"),
        ("C", "pending", "user"),
    ]


def test_a_persons_stale_import_is_merged_or_refused_with_the_conflicts(
    db: str, tmp_path: Path
) -> None:
    plansight("write", "--db", db, "--todos", todos(("A", "in_progress"), ("B", "pending")))
    plansight("apply", "--db", db, "--ops", json.dumps([{"op": "done", "task": "A"}]))  # v2
    edited = tmp_path / "plan.md"
    edited.write_text("## Todos\n- [/] A\n- [ ] B\n- [ ] D\n", encoding="utf-8")

    merged = plansight(
        "import", "--db", db, "--origin", "user", "--base-version", "1", "--merge", str(edited)
    )

    assert merged.returncode == 0, merged.stderr
    assert [(t["content"], t["status"]) for t in state(db)["phases"][0]["tasks"]] == [
        ("A", "completed"),
        ("B", "in_progress"),
        ("D", "pending"),
    ]
    edited.write_text("## Todos\n- [x] A\n- [!] B\n", encoding="utf-8")  # from version 1 again
    refused = plansight(
        "import", "--db", db, "--origin", "user", "--base-version", "1", "--merge", str(edited)
    )
    assert refused.returncode == 1
    assert '"B" (status)' in refused.stderr
    assert "Traceback" not in refused.stderr


def test_the_kept_line_is_said_once_across_processes(db: str) -> None:
    """Issue 29 item 1, as seen with the CLI: write A,B; the person appends C; the agent
    writes A,B twice, each from a new process. The first answer tells it C was kept; the
    second, whose base (kept in the store) already has C, tells nothing again."""
    agents_copy = todos(("A", "in_progress"), ("B", "pending"))
    plansight("write", "--db", db, "--todos", agents_copy)
    ops = [{"op": "append", "phase": "Todos", "items": ["C"]}]
    plansight("apply", "--db", db, "--origin", "user", "--ops", json.dumps(ops))

    first = plansight("write", "--db", db, "--todos", agents_copy)
    second = plansight("write", "--db", db, "--todos", agents_copy)

    assert first.stdout.splitlines()[1] == (
        'Kept the user\'s changes your list does not have: added "C" to phase "Todos"'
    )
    assert "Kept the user's changes" not in second.stdout
    assert [t["content"] for t in state(db)["phases"][0]["tasks"]] == ["A", "B", "C"]


def test_merge_mine_takes_the_persons_side_of_the_conflicts_only(db: str, tmp_path: Path) -> None:
    """Protocol 4's `merge: "mine"` from the command line (`--merge-mine`, an editor's
    Overwrite): a stale edit whose conflicts `--merge` refuses goes through, each conflict
    taking the person's side, and what others changed that it does not conflict with (a
    task they added) stays instead of being reverted."""
    plansight(
        "write",
        "--db",
        db,
        "--todos",
        todos(("A", "in_progress"), ("B", "pending"), ("C", "pending")),
    )
    others = [{"op": "done", "task": "B"}, {"op": "append", "phase": "Todos", "items": ["D"]}]
    assert plansight("apply", "--db", db, "--ops", json.dumps(others)).returncode == 0
    edited = tmp_path / "plan.md"
    edited.write_text("## Todos\n- [/] A\n- [!] B\n- [x] C\n", encoding="utf-8")  # from v1
    stale = ("import", "--db", db, "--origin", "user", "--base-version", "1")

    refused = plansight(*stale, "--merge", str(edited))
    assert refused.returncode == 1 and '"B" (status)' in refused.stderr
    mine = plansight(*stale, "--merge-mine", str(edited))

    assert mine.returncode == 0, mine.stderr
    assert [(t["content"], t["status"]) for t in state(db)["phases"][0]["tasks"]] == [
        ("A", "in_progress"),
        ("B", "blocked"),  # the conflict: the person's side
        ("C", "completed"),  # the person's own change
        ("D", "pending"),  # the others' change no conflict named: kept
    ]


def test_merge_mine_on_a_stale_write_and_never_with_merge(db: str) -> None:
    plansight("write", "--db", db, "--todos", todos(("A", "in_progress"), ("B", "pending")))
    plansight("apply", "--db", db, "--ops", json.dumps([{"op": "done", "task": "B"}]))
    stale = ("write", "--db", db, "--origin", "user", "--base-version", "1")
    persons = todos(("A", "in_progress"), ("B", "abandoned"))

    both = plansight(*stale, "--merge", "--merge-mine", "--todos", persons)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    mine = plansight(*stale, "--merge-mine", "--todos", persons)

    assert mine.returncode == 0, mine.stderr
    assert [(t["content"], t["status"]) for t in state(db)["phases"][0]["tasks"]] == [
        ("A", "in_progress"),
        ("B", "abandoned"),
    ]
