"""`plansight/context` with `full: true` (v3): the whole list as a summary draws it, for an
agent whose context was compacted, resumed or cleared; the reminders as without it; a
long plan's finished phases one line each."""

from __future__ import annotations

from plansight.core.context import FULL_LIST_BUDGET
from plansight.protocol.requests import ContextParams
from plansight.service import PlanService

from .conftest import Json, Request

REMINDER = "<reminder>Update your todos.</reminder>"


def full(service: PlanService, **params: object) -> Json:
    return service.context(ContextParams.validate({"full": True, **params}))


def test_full_draws_every_phase_and_task_and_the_current_tasks_notes(
    apply: Request, service: PlanService
) -> None:
    apply(
        {
            "op": "init",
            "list": [
                {"phase": "Build", "items": [{"content": "Compile", "status": "completed"}]},
                {
                    "phase": "Check",
                    "items": [
                        {"content": "Run tests", "activeForm": "Running tests", "notes": ["-x"]},
                        {"content": "Lint", "notes": ["not shown: not current"]},
                        {"content": "Ask for keys", "status": "blocked"},
                        {"content": "Old idea", "status": "abandoned"},
                    ],
                },
                {"phase": "Ship", "items": [{"content": "Tag", "blockedBy": ["Lint"]}]},
            ],
        }
    )
    result = full(service)
    assert result == {
        "text": "\n".join(
            [
                "Todo list: 1/6 completed, 1 abandoned, 1 blocked, 4 remaining.",
                "Current: Running tests",
                "  Note: -x",
                "Build:",
                "  [x] Compile",
                "Check:",
                "  [>] Run tests",
                "  [ ] Lint",
                "  [!] Ask for keys",
                "  [-] Old idea",
                "Ship:",
                '  [ ] Tag (waits for "Lint")',
            ]
        ),
        "reminder": False,
    }
    # Without `full`, as before: the counts and the current task.
    short = service.context(ContextParams())["text"]
    assert "Compile" not in short and "Current task: Running tests" in short


def test_full_keeps_the_reminders_and_the_persons_changes(
    apply: Request, service: PlanService
) -> None:
    apply({"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]})
    assert full(service)["reminder"] is False
    apply({"op": "append", "phase": "P", "items": ["from the person"]}, origin="user")
    told = full(service)["text"]
    assert "  [ ] from the person" in told
    assert told.endswith(
        '<system-reminder>The user changed the todo list: added "from the person" to '
        'phase "P". Take this into account and do not undo it.</system-reminder>'
    )
    third = full(service)
    assert third["reminder"] is True and third["text"].endswith(REMINDER)
    assert "  [>] a" in third["text"]


def test_full_of_an_empty_list_says_so(service: PlanService) -> None:
    assert full(service) == {"text": "The todo list is empty.", "reminder": False}


def test_a_titled_plan_names_its_title_first(
    import_markdown: Request, service: PlanService
) -> None:
    import_markdown("# Rate limits\n\n## P\n\n- [ ] a\n")
    lines = full(service)["text"].splitlines()
    assert lines[:3] == [
        "Plan: Rate limits",
        "Todo list: 0/1 completed, 1 remaining.",
        "Current: a",
    ]


def two_hundred_tasks(finished_phases: int) -> list[Json]:
    """A plan of 200 tasks of about 40 characters in 10 phases, the first ones done."""
    areas = ["rate limiter", "session store", "history", "tree view", "importer"]
    verbs = ["Write", "Test", "Refactor", "Document", "Review"]
    return [
        {
            "phase": f"Phase {p + 1}: the {areas[p % 5]}",
            "items": [
                {
                    "content": f"{verbs[i % 5]} the {areas[(i + p) % 5]} for case {p * 20 + i}",
                    "status": "completed" if p < finished_phases else "pending",
                }
                for i in range(20)
            ],
        }
        for p in range(10)
    ]


def test_a_200_task_plan_fits_whole_until_its_finished_phases_are_one_line(
    apply: Request, service: PlanService
) -> None:
    apply({"op": "init", "list": two_hundred_tasks(finished_phases=0)})
    whole = full(service)["text"]
    lines = whole.splitlines()
    assert sum(line.startswith("  [") for line in lines) == 200
    assert len(whole) < 2 * FULL_LIST_BUDGET  # about 2,300 tokens (docs/protocol.md)

    apply({"op": "init", "list": two_hundred_tasks(finished_phases=4)})
    text = full(service)["text"]
    lines = text.splitlines()
    # Past the budget, a phase whose tasks all ended is one line; the rest stays whole.
    assert "Phase 1: the rate limiter: all 20 completed" in lines
    assert sum(line.startswith("  [") for line in lines) == 120
    assert "  [>] Write the importer for case 80" in lines
    assert len(text) <= FULL_LIST_BUDGET


def test_a_finished_phase_with_abandoned_tasks_says_how_many(
    apply: Request, service: PlanService
) -> None:
    phases = two_hundred_tasks(finished_phases=9)
    phases[0]["items"][0]["status"] = "abandoned"
    apply({"op": "init", "list": phases})
    lines = full(service)["text"].splitlines()
    assert "Phase 1: the rate limiter: all 20 finished (19 completed, 1 abandoned)" in lines
    assert lines[1] == "Current: Write the importer for case 180"
    assert lines[-21:-19] == ["Phase 10: the importer:", "  [>] Write the importer for case 180"]
