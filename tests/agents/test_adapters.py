"""Each agent's payload in the core's terms: one adapter per format, its lenient rules
and its refusals (InvalidParams naming the payload path)."""

from __future__ import annotations

from typing import Any

import pytest

from plansight.agents import ADAPTERS, read_payload
from plansight.core.errors import FieldError, RequestRefused
from plansight.core.incoming import (
    IncomingTask,
    MarkdownPlan,
    NothingToChange,
    Replacement,
    TaskCreation,
    TaskDeletion,
    TaskUpdate,
)
from plansight.protocol.requests import FORMATS

from .fixtures import fixture, names, payload


def replacement(format_name: str, data: dict[str, Any]) -> Replacement:
    incoming = read_payload(format_name, data)
    assert isinstance(incoming, Replacement)
    return incoming


def rows(incoming: Replacement) -> list[tuple[str, str]]:
    return [(task.content, task.status) for task in incoming.tasks]


def refusal(format_name: str, data: dict[str, Any]) -> list[FieldError]:
    with pytest.raises(RequestRefused) as caught:
        read_payload(format_name, data)
    return caught.value.errors


# ---------------------------------------------------------------- the one list of formats


def test_every_format_has_one_adapter_and_a_recorded_payload() -> None:
    assert tuple(ADAPTERS) == FORMATS
    recorded = {fixture(name)["format"] for name in names()}
    assert recorded == set(FORMATS)
    for name in names():
        source = fixture(name)["source"]
        assert "npm " in source or "github " in source or "docs/protocol.md" in source, name


# ---------------------------------------------------------------- Claude Code


def test_claude_todowrite_is_the_whole_list_with_its_active_forms() -> None:
    incoming = replacement("claude-todowrite", payload("claude-todowrite"))
    assert incoming.path == "payload.todos"
    assert incoming.tasks[1] == IncomingTask(
        "Fix the date parser",
        "in_progress",
        "payload.todos.1",
        active_form="Fixing the date parser",
    )
    assert rows(incoming) == [
        ("Read the failing test", "completed"),
        ("Fix the date parser", "in_progress"),
        ("Run the test suite", "pending"),
    ]


def test_claude_task_create_takes_its_id_from_the_tool_response() -> None:
    # The fixture is a whole PostToolUse hook event: the extra members are ignored.
    incoming = read_payload("claude-tasks", payload("claude-taskcreate"))
    assert incoming == TaskCreation(
        "1",
        "Add retry to the payment client",
        "payload.tool_input",
        content_key="subject",
        id_path="payload.tool_response.task.id",
        description="Retry idempotent calls to the payment API up to 3 times with backoff.",
        active_form="Adding retry to the payment client",
    )


def test_claude_task_update_names_the_task_by_claudes_id() -> None:
    incoming = read_payload("claude-tasks", payload("claude-taskupdate"))
    assert incoming == TaskUpdate(
        "1", "payload.tool_input", content_key="subject", status="in_progress", owner="main"
    )


def test_claude_task_update_fields_dependencies_and_deletion() -> None:
    call = {
        "tool_name": "TaskUpdate",
        "tool_input": {
            "taskId": "3",
            "subject": "Retry with jitter",
            "description": "Add jitter",
            "activeForm": "Adding jitter",
            "addBlockedBy": ["1"],
            "addBlocks": ["4", "5"],
        },
        "tool_response": {"success": True, "taskId": "3", "updatedFields": ["subject"]},
    }
    assert read_payload("claude-tasks", call) == TaskUpdate(
        "3",
        "payload.tool_input",
        content_key="subject",
        content="Retry with jitter",
        description="Add jitter",
        active_form="Adding jitter",
        add_blocked_by=["1"],
        add_blocks=["4", "5"],
    )
    deleted = {"tool_name": "TaskUpdate", "tool_input": {"taskId": "3", "status": "deleted"}}
    assert read_payload("claude-tasks", deleted) == TaskDeletion("3")


def test_a_task_update_claude_itself_refused_changes_nothing() -> None:
    call = {
        "tool_name": "TaskUpdate",
        "tool_input": {"taskId": "9", "status": "completed"},
        "tool_response": {"success": False, "taskId": "9", "updatedFields": [], "error": "x"},
    }
    assert read_payload("claude-tasks", call) == NothingToChange()


def test_claude_task_calls_refused_by_path() -> None:
    create = payload("claude-taskcreate")
    assert refusal("claude-tasks", {**create, "tool_response": {}}) == [
        FieldError("payload.tool_response.task.id", "Field required (the id Claude gave the task)")
    ]
    assert refusal("claude-tasks", {**create, "tool_name": "TaskList"}) == [
        FieldError("payload.tool_name", 'Expected "TaskCreate" or "TaskUpdate"')
    ]
    update = {"tool_name": "TaskUpdate", "tool_input": {"taskId": "1", "status": "done"}}
    assert refusal("claude-tasks", update) == [
        FieldError(
            "payload.tool_input.status",
            'Unknown status "done": expected one of pending, in_progress, completed, deleted',
        )
    ]
    assert refusal("claude-tasks", {"tool_name": "TaskUpdate", "tool_input": {}}) == [
        FieldError("payload.tool_input.taskId", "Field required")
    ]


def test_a_tool_response_sent_as_json_text_is_read() -> None:
    create = payload("claude-taskcreate")
    text = '{"task": {"id": "7", "subject": "x"}}'
    incoming = read_payload("claude-tasks", {**create, "tool_response": text})
    assert isinstance(incoming, TaskCreation) and incoming.external_id == "7"


# ---------------------------------------------------------------- Codex, Gemini, OpenCode


def test_codex_steps_and_the_explanation() -> None:
    incoming = replacement("codex-plan", payload("codex-plan"))
    assert incoming.note == "The parser test fails on dates without a time zone."
    assert incoming.note_path == "payload.explanation"
    assert incoming.tasks[0].content_key == "step"
    assert rows(incoming) == [
        ("Reproduce the failing parser test", "completed"),
        ("Handle dates without a time zone", "in_progress"),
        ("Run the whole test suite", "pending"),
    ]
    assert replacement("codex-plan", {"plan": []}).note is None


def test_gemini_descriptions_are_contents_and_its_statuses_map() -> None:
    incoming = replacement("gemini-todos", payload("gemini-todos"))
    assert incoming.tasks[0].content_key == "description"
    assert rows(incoming) == [
        ("Initialize a new React project with Vite", "completed"),
        ("Build the prompt form and the preview area", "in_progress"),
        ("Call the image model endpoint", "blocked"),
        ("Add a dark theme", "abandoned"),
        ("Add a Download button", "pending"),
    ]


def test_opencode_priorities_cancelled_and_ids() -> None:
    incoming = replacement("opencode-todos", payload("opencode-todos"))
    # OpenCode's model writes `medium` on every item it has nothing to say of: no priority.
    assert [t.priority for t in incoming.tasks] == ["high", "high", "low", None]
    assert rows(incoming)[3] == ("Rewrite the auth module", "abandoned")
    assert [t.external_id for t in incoming.tasks] == [None] * 4
    with_ids = {"todos": [{"id": "a1", "content": "x", "status": "pending", "priority": "urgent"}]}
    task = replacement("opencode-todos", with_ids).tasks[0]
    # OpenCode's own schema takes any string as a priority: one outside the three is not kept.
    assert (task.external_id, task.priority) == ("a1", None)


# ---------------------------------------------------------------- ACP


def test_acp_v1_plan_keeps_priorities() -> None:
    incoming = replacement("acp-plan", payload("acp-plan"))
    assert incoming.path == "payload.entries"
    assert [t.priority for t in incoming.tasks] == ["high", "medium", "medium", "low"]
    assert rows(incoming)[1] == ("Identify potential type issues", "in_progress")


def test_acp_v2_plan_update() -> None:
    incoming = replacement("acp-plan", payload("acp-plan-update"))
    assert incoming.path == "payload.plan.entries"
    assert incoming.tasks[3].path == "payload.plan.entries.3"
    assert rows(incoming)[2:] == [
        ("Review error handling patterns", "in_progress"),
        ("Suggest improvements", "abandoned"),
    ]
    # ACP v2 allows custom priorities ("_..."): not one of the three, so not kept.
    custom = {"content": "x", "priority": "_urgent", "status": "pending"}
    update = {"sessionUpdate": "plan_update", "plan": {"planId": "p", "entries": [custom]}}
    assert replacement("acp-plan", update).tasks[0].priority is None


def test_acp_refusals() -> None:
    assert refusal("acp-plan", {"sessionUpdate": "agent_message_chunk"}) == [
        FieldError("payload.sessionUpdate", 'Expected "plan" or "plan_update"')
    ]
    markdown = {"type": "markdown", "planId": "p", "markdown": "# x"}
    assert refusal("acp-plan", {"sessionUpdate": "plan_update", "plan": markdown}) == [
        FieldError("payload.plan.type", 'Only "items" plans can be ingested')
    ]
    entry = {"content": "x", "priority": "low", "status": "_paused"}
    assert refusal("acp-plan", {"sessionUpdate": "plan", "entries": [entry, entry]}) == [
        FieldError(
            f"payload.entries.{i}.status",
            'Unknown status "_paused": expected one of pending, in_progress, completed, cancelled',
        )
        for i in (0, 1)
    ]


# ---------------------------------------------------------------- VS Code, Roo, markdown


def test_vscode_titles_ids_and_descriptions() -> None:
    incoming = replacement("vscode-todos", payload("vscode-todos"))
    assert [t.external_id for t in incoming.tasks] == ["1", "2", "3"]
    assert incoming.tasks[1] == IncomingTask(
        "Validate the email field",
        "in_progress",
        "payload.todoList.1",
        content_key="title",
        description="Reject addresses without a domain; show the error under the field.",
        external_id="2",
    )
    assert rows(incoming)[2] == ("Write the settings tests", "pending")
    # Write-only mode sends no operation at all.
    plain = {"todoList": [{"id": 1, "title": "x", "status": "completed"}]}
    assert rows(replacement("vscode-todos", plain)) == [("x", "completed")]


def test_vscode_read_changes_nothing_with_or_without_a_list() -> None:
    assert read_payload("vscode-todos", payload("vscode-todos-read")) == NothingToChange()
    assert read_payload("vscode-todos", {"operation": "read"}) == NothingToChange()


def test_vscode_refusals() -> None:
    todo = {"id": 1, "title": "x", "status": "in_progress"}
    assert refusal("vscode-todos", {"operation": "write", "todoList": [todo]}) == [
        FieldError(
            "payload.todoList.0.status",
            'Unknown status "in_progress": expected one of not-started, in-progress, completed',
        )
    ]
    assert refusal("vscode-todos", {"operation": "erase", "todoList": []}) == [
        FieldError("payload.operation", 'Expected "write" or "read"')
    ]
    assert refusal("vscode-todos", {"todoList": [{**todo, "status": "completed", "id": [1]}]}) == [
        FieldError("payload.todoList.0.id", "Expected a number")
    ]


def test_roo_checklist_lines() -> None:
    incoming = replacement("roo-todos", payload("roo-todos"))
    assert rows(incoming) == [
        ("Analyze requirements", "completed"),
        ("Design architecture", "completed"),
        ("Implement core logic", "in_progress"),  # [-]: in progress, as Roo means it
        ("Write tests", "pending"),
        ("Update documentation", "pending"),
    ]
    sloppy = {"todos": "[X] Done\r\n[~] Doing\n- [ x ] Also done\n[] Later"}
    assert rows(replacement("roo-todos", sloppy)) == [
        ("Done", "completed"),
        ("Doing", "in_progress"),
        ("Also done", "completed"),
        ("Later", "pending"),
    ]


def test_roo_refuses_a_line_that_is_not_an_item() -> None:
    assert refusal("roo-todos", {"todos": "[x] Done\n\nNext I will write tests\n[ ] Tests"}) == [
        FieldError("payload.todos.2", "Line 3 is not a checklist item: Next I will write tests")
    ]
    assert refusal("roo-todos", {"todos": ["[ ] x"]}) == [
        FieldError("payload.todos", "Expected a string")
    ]


def test_markdown_is_the_text() -> None:
    text = payload("markdown")["text"]
    assert read_payload("markdown", payload("markdown")) == MarkdownPlan(text)
    assert refusal("markdown", {"markdown": text}) == [FieldError("payload.text", "Field required")]


# ---------------------------------------------------------------- wrong shapes


@pytest.mark.parametrize(
    ("format_name", "data", "path"),
    [
        ("claude-todowrite", {}, "payload.todos"),
        ("claude-todowrite", {"todos": {"content": "x"}}, "payload.todos"),
        ("claude-todowrite", {"todos": ["x"]}, "payload.todos.0"),
        ("codex-plan", {"plan": [{"status": "pending"}]}, "payload.plan.0.step"),
        ("codex-plan", {"plan": [], "explanation": 3}, "payload.explanation"),
        (
            "gemini-todos",
            {"todos": [{"description": 1, "status": "pending"}]},
            "payload.todos.0.description",
        ),
        ("opencode-todos", {"todos": [{"content": "x"}]}, "payload.todos.0.status"),
        ("acp-plan", {"sessionUpdate": "plan_update", "plan": []}, "payload.plan"),
        ("vscode-todos", {"operation": "write"}, "payload.todoList"),
    ],
)
def test_a_payload_of_the_wrong_shape_is_refused_at_its_path(
    format_name: str, data: dict[str, Any], path: str
) -> None:
    assert [error.path for error in refusal(format_name, data)] == [path]


def test_every_bad_item_is_named_not_only_the_first() -> None:
    todos = [
        {"content": "a", "status": "pending", "activeForm": "A"},
        {"content": "b", "status": "started", "activeForm": "B"},
        {"content": "c", "status": "done", "activeForm": "C"},
    ]
    errors = refusal("claude-todowrite", {"todos": todos})
    assert [e.path for e in errors] == ["payload.todos.1.status", "payload.todos.2.status"]
    todos[1]["status"] = 1
    assert refusal("claude-todowrite", {"todos": todos})[0] == FieldError(
        "payload.todos.1.status",
        "Expected a string: expected one of pending, in_progress, completed",
    )
    assert (
        errors[1].message
        == 'Unknown status "done": expected one of pending, in_progress, completed'
    )
