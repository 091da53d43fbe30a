"""`plansight/ingest` through the service: every recorded payload mapped into the plan,
and the full replacement's rules (what a task keeps, where a new one goes, leniency,
no auto-start, refusals that change nothing)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from plansight.core.errors import FieldError, RequestRefused, VersionConflict
from plansight.core.settings import Settings
from plansight.protocol.requests import ApplyParams, ContextParams, GetParams, IngestParams
from plansight.service import PlanService
from plansight.validation import validation_errors

from .fixtures import fixture, payload

Json = dict[str, Any]


def ingest(service: PlanService, format_name: str, data: Json, **params: Any) -> Json:
    request = {"format": format_name, "payload": data, **params}
    return service.ingest(IngestParams.validate(request), request).result


def recorded(service: PlanService, name: str, **params: Any) -> Json:
    return ingest(service, fixture(name)["format"], payload(name), **params)


def apply(service: PlanService, *ops: Json) -> Json:
    request = {"ops": list(ops)}
    return service.apply(ApplyParams.validate(request), request).result


def rows(state: Json) -> list[tuple[str, str, str]]:
    return [(p["name"], t["content"], t["status"]) for p in state["phases"] for t in p["tasks"]]


def codex(*steps: tuple[str, str], explanation: str | None = None) -> Json:
    plan: Json = {"plan": [{"step": step, "status": status} for step, status in steps]}
    if explanation is not None:
        plan["explanation"] = explanation
    return plan


# ---------------------------------------------------------------- each recorded payload


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "claude-todowrite",
            [
                ("Read the failing test", "completed"),
                ("Fix the date parser", "in_progress"),
                ("Run the test suite", "pending"),
            ],
        ),
        (
            "codex-plan",
            [
                ("Reproduce the failing parser test", "completed"),
                ("Handle dates without a time zone", "in_progress"),
                ("Run the whole test suite", "pending"),
            ],
        ),
        (
            "opencode-todos",
            [
                ("Find where sessions expire", "completed"),
                ("Refresh the token before it expires", "in_progress"),
                ("Log the refresh", "pending"),
                ("Rewrite the auth module", "abandoned"),
            ],
        ),
        (
            "acp-plan",
            [
                ("Check for syntax errors", "completed"),
                ("Identify potential type issues", "in_progress"),
                ("Review error handling patterns", "pending"),
                ("Suggest improvements", "pending"),
            ],
        ),
        (
            "acp-plan-update",
            [
                ("Check for syntax errors", "completed"),
                ("Identify potential type issues", "completed"),
                ("Review error handling patterns", "in_progress"),
                ("Suggest improvements", "abandoned"),
            ],
        ),
        (
            "vscode-todos",
            [
                ("Add the settings page", "completed"),
                ("Validate the email field", "in_progress"),
                ("Write the settings tests", "pending"),
            ],
        ),
        (
            "roo-todos",
            [
                ("Analyze requirements", "completed"),
                ("Design architecture", "completed"),
                ("Implement core logic", "in_progress"),
                ("Write tests", "pending"),
                ("Update documentation", "pending"),
            ],
        ),
    ],
)
def test_a_recorded_payload_becomes_the_plan(
    service: PlanService, name: str, expected: list[tuple[str, str]]
) -> None:
    result = recorded(service, name, session="s")
    assert rows(result) == [("Todos", content, status) for content, status in expected]
    assert result["version"] == 1 and result["changed"] and not result["isError"]
    assert result["summary"].startswith("Todo list updated: ")
    assert rows(service.get(GetParams(session="s"))) == rows(result)


def test_claude_todowrite_keeps_its_active_forms(service: PlanService) -> None:
    result = recorded(service, "claude-todowrite")
    assert result["current"]["activeForm"] == "Fixing the date parser"
    assert "Current: Fixing the date parser" in result["summary"]


def test_codex_explanation_is_a_note_of_the_step_in_progress_once(service: PlanService) -> None:
    first = recorded(service, "codex-plan")
    again = recorded(service, "codex-plan")
    note = "The parser test fails on dates without a time zone."
    assert first["current"]["notes"] == [note]
    assert again["current"]["notes"] == [note] and not again["changed"]
    moved = ingest(
        service,
        "codex-plan",
        codex(
            ("Reproduce the failing parser test", "completed"),
            ("Handle dates without a time zone", "completed"),
            ("Run the whole test suite", "in_progress"),
            explanation="Fixed; now the whole suite.",
        ),
    )
    assert moved["current"]["notes"] == ["Fixed; now the whole suite."]
    handled = next(
        t for t in moved["phases"][0]["tasks"] if t["status"] == "completed" and t["notes"]
    )
    assert handled["notes"] == [note]


def test_an_explanation_with_no_step_in_progress_is_not_kept(service: PlanService) -> None:
    result = ingest(service, "codex-plan", codex(("a", "pending"), explanation="Why"))
    assert [t["notes"] for t in result["phases"][0]["tasks"]] == [[]]


def test_markdown_imports_and_may_auto_start(service: PlanService) -> None:
    result = recorded(service, "markdown")
    assert rows(result) == [
        ("Build", "Add the route", "completed"),
        ("Build", "Bind the form", "in_progress"),
        ("Build", "Validate the email", "pending"),
        ("Release", "Write the changelog", "pending"),
        ("Release", "Record a demo video", "abandoned"),
    ]
    text = "## Build\n- [x] Add the route\n- [ ] Bind the form\n"
    started = ingest(service, "markdown", {"text": text})
    assert rows(started)[1] == ("Build", "Bind the form", "in_progress")  # auto-start


def test_markdown_that_cannot_be_read_is_an_error_result(service: PlanService) -> None:
    result = ingest(service, "markdown", {"text": "- [?] What\n"})
    assert result["isError"] and result["errors"] == ['Line 1: unknown marker "[?]"']
    assert result["version"] == 0


def test_vscode_read_changes_nothing(service: PlanService) -> None:
    recorded(service, "vscode-todos")
    result = recorded(service, "vscode-todos-read")
    assert not result["changed"] and result["version"] == 1
    assert len(rows(result)) == 3


# ---------------------------------------------------------------- the replacement's rules


def test_a_task_keeps_its_id_times_notes_and_phase(service: PlanService) -> None:
    apply(
        service,
        {
            "op": "init",
            "list": [
                {"phase": "Explore", "items": ["Read the code"]},
                {"phase": "Build", "items": ["Write the fix", "Run tests"]},
            ],
        },
        {"op": "note", "task": "Write the fix", "text": "mind the locale"},
    )
    before = {t["content"]: t for p in service.get(GetParams())["phases"] for t in p["tasks"]}
    result = ingest(
        service,
        "codex-plan",
        codex(
            ("Read the code", "completed"),
            ("Write the fix", "in_progress"),
            ("Run tests", "pending"),
        ),
    )
    after = {t["content"]: t for p in result["phases"] for t in p["tasks"]}
    for content in before:
        assert after[content]["id"] == before[content]["id"]
        assert after[content]["createdAt"] == before[content]["createdAt"]
    assert after["Write the fix"]["notes"] == ["mind the locale"]
    assert after["Read the code"]["startedAt"] == before["Read the code"]["startedAt"]
    assert rows(result) == [
        ("Explore", "Read the code", "completed"),
        ("Build", "Write the fix", "in_progress"),
        ("Build", "Run tests", "pending"),
    ]


def test_a_new_task_goes_to_the_phase_of_the_task_before_it(service: PlanService) -> None:
    apply(
        service,
        {
            "op": "init",
            "list": [
                {"phase": "Explore", "items": ["Read the code"]},
                {"phase": "Build", "items": ["Write the fix"]},
                {"phase": "Ship", "items": ["Release"]},
            ],
        },
    )
    result = ingest(
        service,
        "codex-plan",
        codex(
            ("Check the logs", "pending"),  # first: the first phase
            ("Read the code", "completed"),
            ("Ask the owner", "pending"),  # after "Read the code": Explore
            ("Write the fix", "pending"),
            ("Run tests", "pending"),  # after "Write the fix": Build
        ),
    )
    # Ship is left empty: dropped. Tasks follow the payload's order within a phase.
    assert rows(result) == [
        ("Explore", "Check the logs", "pending"),
        ("Explore", "Read the code", "completed"),
        ("Explore", "Ask the owner", "pending"),
        ("Build", "Write the fix", "pending"),
        ("Build", "Run tests", "pending"),
    ]


def test_phases_keep_their_order_whatever_the_payload_order(service: PlanService) -> None:
    apply(
        service,
        {
            "op": "init",
            "list": [{"phase": "A", "items": ["a1"]}, {"phase": "B", "items": ["b1"]}],
        },
    )
    result = ingest(service, "codex-plan", codex(("b1", "pending"), ("a1", "pending")))
    assert rows(result) == [("A", "a1", "pending"), ("B", "b1", "pending")]


def test_several_in_progress_leave_the_first_and_the_summary_says_so(
    service: PlanService,
) -> None:
    result = ingest(
        service,
        "codex-plan",
        codex(("a", "pending"), ("b", "in_progress"), ("c", "in_progress"), ("d", "in_progress")),
    )
    assert [status for _, _, status in rows(result)] == [
        "pending",
        "in_progress",
        "pending",
        "pending",
    ]
    assert not result["isError"] and result["errors"] == []
    lines = result["summary"].splitlines()
    assert lines[0] == "Todo list updated: 0/4 completed"
    assert lines[1] == 'Only one task can be in progress: kept "b", set back to pending: "c", "d"'


def test_ingest_never_auto_starts(service: PlanService) -> None:
    result = ingest(service, "codex-plan", codex(("a", "pending"), ("b", "pending")))
    assert result["current"] is None
    assert [status for _, _, status in rows(result)] == ["pending", "pending"]


def test_an_empty_list_clears(service: PlanService) -> None:
    recorded(service, "codex-plan")
    result = ingest(service, "codex-plan", {"plan": []})
    assert result["phases"] == [] and result["summary"].startswith("Todo list cleared.")


def test_the_same_payload_twice_commits_once(service: PlanService) -> None:
    assert recorded(service, "acp-plan")["version"] == 1
    again = recorded(service, "acp-plan")
    assert again["version"] == 1 and not again["changed"]


def test_contents_are_cleaned_and_refused_by_path(service: PlanService) -> None:
    result = ingest(service, "codex-plan", codex(("  Fix\tthe\nparser  ", "pending")))
    assert rows(result) == [("Todos", "Fix the parser", "pending")]
    with pytest.raises(RequestRefused) as caught:
        ingest(service, "codex-plan", codex(("ok", "pending"), (" \n", "pending")))
    assert caught.value.errors == [FieldError("payload.plan.1.step", "Content must not be empty")]


def test_limits_refuse_and_change_nothing(service: PlanService) -> None:
    service.settings = Settings(max_tasks=2, max_content_length=10)
    ingest(service, "codex-plan", codex(("a", "pending")))
    with pytest.raises(RequestRefused) as caught:
        ingest(service, "codex-plan", codex(("a", "pending"), ("b", "pending"), ("c", "pending")))
    assert caught.value.errors == [FieldError("payload.plan", "Too many tasks (3, the limit is 2)")]
    too_long = {"todoList": [{"id": 1, "title": "x" * 11, "status": "completed"}]}
    with pytest.raises(RequestRefused) as caught:
        ingest(service, "vscode-todos", too_long)
    assert caught.value.errors[0].path == "payload.todoList.0.title"
    with pytest.raises(RequestRefused) as caught:
        ingest(service, "roo-todos", {"todos": "[x] short\n\n[ ] far too long"})
    assert caught.value.errors[0].path == "payload.todos.2"
    assert rows(service.get(GetParams())) == [("Todos", "a", "pending")]
    assert service.get(GetParams())["version"] == 1


def test_a_refused_payload_changes_nothing(service: PlanService) -> None:
    recorded(service, "claude-todowrite")
    bad = payload("claude-todowrite")
    bad["todos"][2]["status"] = "done"
    with pytest.raises(RequestRefused) as caught:
        ingest(service, "claude-todowrite", bad)
    assert caught.value.errors[0].path == "payload.todos.2.status"
    assert service.get(GetParams())["version"] == 1


def test_an_unknown_format_is_refused_at_format() -> None:
    with pytest.raises(ValidationError) as caught:
        IngestParams.validate({"format": "cursor-todos", "payload": {}})
    [error] = validation_errors(caught.value)
    assert error["path"] == "format"
    assert "claude-todowrite" in error["message"] and "markdown" in error["message"]
    with pytest.raises(ValidationError) as caught:
        IngestParams.validate({"format": "codex-plan", "payload": [1]})
    assert [e["path"] for e in validation_errors(caught.value)] == ["payload"]


def test_base_version_guards_the_replacement(service: PlanService) -> None:
    recorded(service, "codex-plan")
    with pytest.raises(VersionConflict):
        recorded(service, "acp-plan", baseVersion=0)
    assert recorded(service, "acp-plan", baseVersion=1)["version"] == 2


def test_an_agent_ingest_resets_the_context_rounds(service: PlanService) -> None:
    recorded(service, "codex-plan")
    for _ in range(3):
        last = service.context(ContextParams())
    assert last["reminder"]
    recorded(service, "roo-todos")
    assert not service.context(ContextParams())["reminder"]


def test_a_person_s_ingest_is_told_to_the_agent(service: PlanService) -> None:
    recorded(service, "codex-plan")
    service.context(ContextParams())
    ingest(
        service,
        "codex-plan",
        codex(("Reproduce the failing parser test", "completed")),
        origin="user",
    )
    text = service.context(ContextParams())["text"]
    assert "<system-reminder>" in text and "Run the whole test suite" in text


# ---------------------------------------------------------------- protocol 2 fields


def task_of(state: Json, content: str) -> Json:
    return next(t for p in state["phases"] for t in p["tasks"] if t["content"] == content)


def test_gemini_blocked_and_cancelled(service: PlanService) -> None:
    result = recorded(service, "gemini-todos")
    assert [status for _, _, status in rows(result)] == [
        "completed",
        "in_progress",
        "blocked",
        "abandoned",
        "pending",
    ]
    assert result["progress"]["blocked"] == 1


def test_priorities_descriptions_and_external_ids_are_kept(service: PlanService) -> None:
    acp = recorded(service, "acp-plan", session="acp")
    assert [t["priority"] for t in acp["phases"][0]["tasks"]] == ["high", "medium", "medium", "low"]
    vscode = recorded(service, "vscode-todos", session="vscode")
    validate = task_of(vscode, "Validate the email field")
    assert validate["externalId"] == "2"
    assert validate["description"] == (
        "Reject addresses without a domain; show the error under the field."
    )
    # Codex carries no priority: a later plan leaves the ones there were.
    steps = [
        ("Check for syntax errors", "completed"),
        ("Identify potential type issues", "completed"),
    ]
    again = ingest(service, "codex-plan", codex(*steps), session="acp")
    assert [t["priority"] for t in again["phases"][0]["tasks"]] == ["high", "medium"]


def test_a_task_renamed_under_its_external_id_keeps_its_id_and_notes(service: PlanService) -> None:
    first = recorded(service, "vscode-todos")
    before = task_of(first, "Validate the email field")
    request = {"ops": [{"op": "note", "id": before["id"], "text": "RFC 5322 is too lax"}]}
    service.apply(ApplyParams.validate(request), request)
    renamed = payload("vscode-todos")
    renamed["todoList"][1]["title"] = "Validate the email and phone fields"
    result = ingest(service, "vscode-todos", renamed)
    after = task_of(result, "Validate the email and phone fields")
    assert (after["id"], after["externalId"], after["notes"]) == (
        before["id"],
        "2",
        ["RFC 5322 is too lax"],
    )
    assert after["activeForm"] == "Validate the email and phone fields"
    assert result["removedTasks"] == []


def test_removed_unfinished_tasks_are_listed_and_named(service: PlanService) -> None:
    recorded(service, "codex-plan")
    result = ingest(
        service, "codex-plan", codex(("Reproduce the failing parser test", "completed"))
    )
    assert [t["content"] for t in result["removedTasks"]] == [
        "Handle dates without a time zone",
        "Run the whole test suite",
    ]
    assert result["summary"].splitlines()[1] == (
        'Removed 2 unfinished tasks: "Handle dates without a time zone", "Run the whole test suite"'
    )


def test_one_task_in_progress_per_owner(service: PlanService) -> None:
    apply(
        service,
        {"op": "init", "list": [{"phase": "Team", "items": ["lead task", "helper task"]}]},
        {"op": "update", "task": "helper task", "owner": "helper"},
    )
    result = ingest(
        service,
        "codex-plan",
        codex(
            ("lead task", "in_progress"),
            ("helper task", "in_progress"),
            ("another lead task", "in_progress"),
        ),
    )
    assert rows(result) == [
        ("Team", "lead task", "in_progress"),
        ("Team", "helper task", "in_progress"),
        ("Team", "another lead task", "pending"),
    ]
    assert result["summary"].splitlines()[1] == (
        'Only one task can be in progress: kept "lead task", set back to pending: "another lead task"'
    )


def test_a_removed_task_is_no_longer_waited_for(service: PlanService) -> None:
    apply(
        service,
        {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]},
        {"op": "update", "task": "b", "blockedBy": ["a"]},
    )
    result = ingest(service, "codex-plan", codex(("b", "pending")))
    assert task_of(result, "b")["blockedBy"] == []


def test_title_sets_the_session_title(service: PlanService) -> None:
    result = recorded(service, "codex-plan", title="  Fix the\tdate parser ")
    assert result["title"] == "Fix the date parser"
    # A title changes the session even when the payload does not.
    again = recorded(service, "codex-plan", title="Dates")
    assert again["changed"] and again["title"] == "Dates"
    assert recorded(service, "codex-plan")["title"] == "Dates"  # no title: kept
    assert recorded(service, "codex-plan", title="")["title"] is None


def test_title_wins_over_the_markdown_title(service: PlanService) -> None:
    # The recorded checklist starts with `# Ship the settings page`.
    assert recorded(service, "markdown", title="Settings")["title"] == "Settings"


def test_a_title_too_long_is_refused_at_title(service: PlanService) -> None:
    service.settings = Settings(max_title_length=5)
    with pytest.raises(RequestRefused) as caught:
        recorded(service, "codex-plan", title="Too long a title")
    assert [e.path for e in caught.value.errors] == ["title"]
    assert service.get(GetParams())["version"] == 0


def test_an_agent_id_names_one_task(service: PlanService) -> None:
    twice = {
        "todoList": [
            {"id": 1, "title": "a", "status": "not-started"},
            {"id": 1, "title": "b", "status": "not-started"},
        ]
    }
    result = ingest(service, "vscode-todos", twice)
    assert [t["externalId"] for t in result["phases"][0]["tasks"]] == ["1", None]
    service.settings = Settings(max_content_length=5)
    too_long = {"todos": [{"id": "x" * 6, "content": "a", "status": "pending", "priority": "low"}]}
    with pytest.raises(RequestRefused) as caught:
        ingest(service, "opencode-todos", too_long)
    assert [e.path for e in caught.value.errors] == ["payload.todos.0.id"]


def test_markdown_reverses_a_dependency_in_one_replacement(service: PlanService) -> None:
    ingest(service, "markdown", {"text": '## P\n- [ ] b\n- [ ] a\n  Waits for: "b"\n'})
    result = ingest(service, "markdown", {"text": '## P\n- [ ] b\n  Waits for: "a"\n- [ ] a\n'})
    assert not result["isError"], result["errors"]
    waits = {t["content"]: t["blockedBy"] for p in result["phases"] for t in p["tasks"]}
    ids = {t["content"]: t["id"] for p in result["phases"] for t in p["tasks"]}
    assert waits == {"b": [ids["a"]], "a": []}
