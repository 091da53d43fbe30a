"""(v4) A person's `plansight move` and the nesting as `show` draws it: the verb moves a
task with its subtasks before or after a task, under one, to the top level or to a phase,
as the person (undo steps it back); `show` indents a subtask two spaces per level and
gives a parent its completed leaves out of all its leaves. Real store files, the command
run as a person runs it."""

from __future__ import annotations

import json
from typing import Any

from test_cli_person import AGENT, agent_writes, db, plansight

__all__ = ["db"]  # the fixture, shared with the person's other verbs


def outline(db: str) -> list[str]:
    shown = plansight("show", "--session", AGENT, "--format", "json", db=db)
    assert shown.returncode == 0, shown.stderr
    state: dict[str, Any] = json.loads(shown.stdout)
    lines: list[str] = []
    for phase in state["phases"]:
        lines.append(f"# {phase['name']}")
        depth: dict[str | None, int] = {}
        for task in phase["tasks"]:
            depth[task["id"]] = depth.get(task["parent"], -1) + 1
            lines.append("  " * depth[task["id"]] + task["content"])
    return lines


def moved(db: str, *args: str) -> str:
    result = plansight("move", *args, db=db)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_move_puts_a_task_and_its_subtasks_where_the_person_says(db: str) -> None:
    agent_writes(
        db, ("Build", "in_progress"), ("Parse", "pending"), ("Lex", "pending"), ("Docs", "pending")
    )
    moved(db, "Parse", "--under", "Build")
    moved(db, "Lex", "--under", "t2")  # by id, as the other verbs name a task
    assert outline(db) == ["# Todos", "Build", "  Parse", "    Lex", "Docs"]

    moved(db, "Docs", "--before", "Parse")
    assert outline(db) == ["# Todos", "Build", "  Docs", "  Parse", "    Lex"]
    moved(db, "Docs", "--after", "Build")
    assert outline(db) == ["# Todos", "Build", "  Parse", "    Lex", "Docs"]
    moved(db, "Lex", "--top")
    assert outline(db) == ["# Todos", "Build", "  Parse", "Docs", "Lex"]
    moved(db, "Build", "--phase", "Later")
    assert outline(db) == ["# Todos", "Docs", "Lex", "# Later", "Build", "  Parse"]

    history = json.loads(plansight("history", "--session", AGENT, "--json", db=db).stdout)
    latest = history["events"][:4]
    assert [(e["origin"], e["changes"]) for e in latest] == [
        ("user", ['moved "Build" to phase "Later"']),
        ("user", ['moved "Lex" to the top level']),
        # Read off the two versions: last at the top level, whichever flag put it there.
        ("user", ['moved "Docs" to the top level']),
        ("user", ['moved "Docs" before "Parse"']),
    ]


def test_undo_steps_a_persons_move_back(db: str) -> None:
    agent_writes(db, ("A", "in_progress"), ("B", "pending"), ("C", "pending"))
    moved(db, "C", "--under", "A")
    undone = plansight("undo", db=db)
    assert undone.returncode == 0, undone.stderr
    assert outline(db) == ["# Todos", "A", "B", "C"]


def test_show_indents_subtasks_and_counts_a_parents_leaves(db: str) -> None:
    agent_writes(
        db,
        ("Ship", "pending"),
        ("Parse", "completed"),
        ("Test", "pending"),
        ("Unit", "completed"),
        ("E2E", "in_progress"),
    )
    moved(db, "Parse", "--under", "Ship")
    moved(db, "Test", "--under", "Ship")
    moved(db, "Unit", "--under", "Test")
    moved(db, "E2E", "--under", "Test")

    shown = plansight("show", "--session", AGENT, db=db)

    assert shown.returncode == 0, shown.stderr
    lines = [line.rstrip(" │") for line in shown.stdout.splitlines()]
    # Two spaces a level; a parent's completed leaves out of all its leaves.
    assert any(line.endswith("Ship  2/3") for line in lines), lines
    assert "│     ✓ Parse" in lines
    assert any(line.startswith("│     ") and line.endswith("Test  1/2") for line in lines)
    assert "│       ✓ Unit" in lines and "│       ● Doing E2E" in lines


def test_a_bad_move_says_why_and_changes_nothing(db: str) -> None:
    agent_writes(db, ("A", "in_progress"), ("B", "pending"))
    moved(db, "B", "--under", "A")
    before = outline(db)

    under_itself = plansight("move", "A", "--under", "B", db=db)
    no_place = plansight("move", "A", db=db)
    two_places = plansight("move", "A", "--top", "--phase", "P", db=db)
    unknown = plansight("move", "A", "--before", "Nope", db=db)

    assert under_itself.returncode == 1
    assert 'plansight: Task "A" cannot move under itself' in under_itself.stderr
    for refused in (no_place, two_places, unknown):
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "one of the arguments --before --after --under --top --phase" in no_place.stderr
    assert 'no task "Nope"' in unknown.stderr
    assert outline(db) == before
