"""Markdown nesting (protocol 4): a subtask's line two spaces deeper on export; on import
any checklist line deeper than the one above it is its subtask (tabs as four spaces), so
Kiro's, Conductor's and GitHub's nested checklists read as they look; and an exported
nested plan imports back to the same plan."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from plansight.core.importing import replace_from_markdown
from plansight.core.markdown import to_markdown
from plansight.core.model import Phase, Plan
from plansight.core.settings import Settings

from .conftest import Json, Request
from .test_markdown import CONTENT, NOTE

FIXTURES = Path(__file__).parent.parent / "fixtures" / "markdown"
NOW = "2026-11-28T12:00:00Z"


def outline(result: Json) -> list[tuple[str, str, str | None]]:
    """(phase, content, the parent's content) of each task, in the order of the list."""
    rows = []
    for phase in result["phases"]:
        by_id = {t["id"]: t["content"] for t in phase["tasks"]}
        rows.extend((phase["name"], t["content"], by_id.get(t["parent"])) for t in phase["tasks"])
    return rows


def test_a_subtask_is_written_two_spaces_deeper_with_its_lines_under_it() -> None:
    plan = Plan("s")
    top = plan.new_task("Build", NOW, notes=["why"])
    sub = plan.new_task("Compile", NOW, description="the C parts", notes=["one\n- [ ] two"])
    sub.parent = top.id
    leaf = plan.new_task("Link", NOW, priority="high")
    leaf.parent = sub.id
    plan.phases = [Phase("P", [top, sub, leaf])]
    assert to_markdown(plan).split("\n") == [
        "## P",
        "- [ ] Build",
        "  > why",
        "  - [ ] Compile",
        "    the C parts",
        "    > one",
        # A note's line that would read as a task is escaped: it stays the note's.
        "      \\- [ ] two",
        "    - [ ] Link",
        "      Priority: high",
        "",
    ]


def test_kiro_tasks_md_imports_as_it_reads(import_markdown: Request) -> None:
    result = import_markdown((FIXTURES / "kiro-tasks.md").read_text(encoding="utf-8"))
    assert result["errors"] == []
    phase = "Implementation Plan"
    assert outline(result) == [
        (phase, "1. Set up project structure and core interfaces", None),
        (phase, "2. Implement data models and validation", None),
        (phase, "2.1 Create core data model interfaces and types", "2. Implement data models and validation"),
        (phase, "2.2 Implement User model with validation", "2. Implement data models and validation"),
        (phase, "2.3 Implement Document model with relationships", "2. Implement data models and validation"),
        (phase, "2.4 Write unit tests for the data models", "2. Implement data models and validation"),
        (phase, "3. Create storage mechanism", None),
        (phase, "3.1 Implement database connection utilities", "3. Create storage mechanism"),
    ]  # fmt: skip
    tasks = result["phases"][0]["tasks"]
    # The detail bullets are the task's description, under the task they were written under.
    assert tasks[2]["description"].split("\n") == [
        "- Write TypeScript interfaces for all data models",
        "- Implement validation functions for data integrity",
        "- _Requirements: 2.1, 3.3, 1.2_",
    ]


def test_conductor_plan_md_imports_as_it_reads_tabs_as_four_spaces(
    import_markdown: Request,
) -> None:
    result = import_markdown((FIXTURES / "conductor-plan.md").read_text(encoding="utf-8"))
    assert result["errors"] == []
    first, second = (
        "Phase 1: Foundation (Active State & UI Shell)",
        "Phase 2: Font Size Integration",
    )
    rows = outline(result)
    assert [row[0] for row in rows] == [first] * 7 + [second] * 4
    assert rows[1] == (first, rows[1][1], "Task: Implement Active Section State")
    assert rows[4][2] == "Task: Create Properties Panel Shell"
    assert rows[6][2] is None  # the verification task is back at the top
    # Indented by a tab: subtasks all the same.
    assert [row[2] for row in rows[7:]] == [
        None,
        "Task: Integrate Font Size Slider",
        "Task: Integrate Font Size Slider",
        None,
    ]


def test_a_github_task_list_imports_as_it_reads(import_markdown: Request) -> None:
    result = import_markdown((FIXTURES / "github-tasklist.md").read_text(encoding="utf-8"))
    assert result["errors"] == []
    assert outline(result) == [
        ("Todos", "foo", None),
        ("Todos", "bar", "foo"),
        ("Todos", "baz", "foo"),
        ("Todos", "bim", None),
    ]


def test_a_line_nests_under_the_nearest_line_less_indented(import_markdown: Request) -> None:
    result = import_markdown("## P\n- [ ] a\n      - [ ] b\n   - [ ] c\n  - [ ] d\n- [ ] e\n")
    assert outline(result) == [
        ("P", "a", None),
        ("P", "b", "a"),
        ("P", "c", "a"),  # shallower than b, deeper than a
        ("P", "d", "a"),
        ("P", "e", None),
    ]


# A nested plan as (depth, task) rows: each depth at most one more than the one before,
# and no deeper than `maxDepth` allows.
NESTED_TASK = st.fixed_dictionaries(
    {
        "content": CONTENT,
        "status": st.sampled_from(["pending", "in_progress", "completed", "abandoned"]),
        "notes": st.lists(NOTE, max_size=2),
        "description": st.one_of(st.just(""), NOTE),
        "priority": st.sampled_from([None, "high", "low"]),
    }
)
STEPS = st.lists(st.tuples(st.integers(-2, 1), NESTED_TASK), min_size=1, max_size=8)


def nested_plan(phases: list[list[tuple[int, dict[str, Any]]]]) -> Plan:
    plan = Plan("source")
    for number, steps in enumerate(phases):
        tasks, path = [], []  # path: the open parents, outermost first
        for step, fields in steps:
            # Within the default maxDepth: a deeper checklist is refused on import.
            depth = max(0, min(len(path), len(path) + step, Settings().max_depth - 1))
            del path[depth:]
            task = plan.new_task(fields["content"], NOW, notes=fields["notes"])
            task.status = fields["status"]
            task.description, task.priority = fields["description"], fields["priority"]
            task.parent = path[-1].id if path else None
            path.append(task)
            tasks.append(task)
        plan.phases.append(Phase(f"Phase {number}", tasks))
    return plan


def seen(plan: Plan) -> list[Any]:
    rows = []
    for phase in plan.phases:
        at = {task.id: n for n, task in enumerate(phase.tasks)}
        rows.append(
            (phase.name, [
                (t.content, t.status, t.notes, t.description, t.priority, at.get(t.parent or ""))
                for t in phase.tasks
            ])
        )  # fmt: skip
    return rows


@given(phases=st.lists(STEPS, min_size=1, max_size=3))
def test_an_exported_nested_plan_imports_back_to_the_same_plan(
    phases: list[list[tuple[int, dict[str, Any]]]],
) -> None:
    source = nested_plan(phases)
    text = to_markdown(source)
    target = Plan("target")
    assert replace_from_markdown(target, text, Settings(), NOW) == []
    assert seen(target) == seen(source)
    assert to_markdown(target) == text
