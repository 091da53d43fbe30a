"""What the model reads about the plan tools: their names, titles, guidance and the hints
laid over their input schemas. Prose for models, kept here as data; which request each
tool sends and which arguments it takes are the registry's (`protocol/registry.py`), and
the schemas themselves derive from the requests' shapes (`mcp/tool_schemas.py`)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from plansight.mcp.tool_schemas import input_schema
from plansight.protocol.registry import BY_TOOL

TODO_WRITE = "todo_write"
TODO = "todo"
TODO_READ = "todo_read"
TODO_INGEST = "todo_ingest"

INSTRUCTIONS = """\
Plansight shows your todo list to the user, live, in their editor. Plan any work of 3 or \
more steps with todo_write (or todo), keep exactly one task in_progress, and mark each \
task completed as soon as it is done. The user may edit the list from the editor: \
todo_read shows it as it is now. If you already have a plan tool of your own (TodoWrite, \
TaskCreate/TaskUpdate, update_plan, write_todos), keep planning with it: Plansight shows \
that plan too, so use todo_write only when you have none."""

_GUIDANCE = """\
When to use it:
- A task that needs 3 or more distinct steps, or careful planning.
- The user gives several tasks at once (numbered or comma-separated).
- New instructions arrive mid-work: capture them as todos.
- Skip it for a single trivial step or a purely conversational request.
- Skip it when you have a plan tool of your own (TodoWrite, TaskCreate, update_plan, \
write_todos): the user sees that plan already; never keep the same plan in both.

How to keep it:
- Exactly one task is in_progress at a time: mark it in_progress BEFORE starting on it.
- Mark each task completed as soon as it is done. Do not batch completions.
- Only mark completed what is fully done: if tests fail, the work is partial or you are \
blocked, keep it in_progress and add a task for what must be resolved.
- Add the follow-up tasks you discover along the way; remove the ones that are no longer \
relevant.
- content is the imperative form ("Run the tests"); activeForm is the present \
continuous shown while the task runs ("Running the tests")."""

TODO_WRITE_DESCRIPTION = f"""\
Create and update the todo list of this coding session. The user sees it live in their \
editor, so it is how they follow your progress. Send the WHOLE list every time: a task \
left out is removed.

{_GUIDANCE}

Optional per item: "description", "priority" (high, medium, low), "blockedBy" (the ids \
or contents of tasks it waits for), "owner" (the agent working on it, when several share \
the list: one task in_progress per owner), "id" and "phase". A field left out keeps its \
value.

The result is the list as saved, with its progress, and names any unfinished task the \
write removed; an error result says what was wrong and that nothing changed."""

TODO_DESCRIPTION = f"""\
Change the todo list of this coding session with ordered operations instead of resending \
it whole (todo_write does that). The user sees the list live in their editor.

{_GUIDANCE}

Operations (a task is targeted by its exact content in "task", or by its "id"):
- {{"op": "init", "list": [{{"phase": "Build", "items": ["Write the parser", "Test it"]}}]}}: \
replace the whole list, grouped in phases.
- {{"op": "start", "task": "Write the parser"}}: mark it in_progress; any other in_progress \
task goes back to pending.
- {{"op": "done", "task": "Write the parser"}}: mark it completed. With "phase" instead of \
a task, the whole phase; with neither, EVERY task.
- {{"op": "drop", "task": "..."}}: abandon it (it stays, struck through); targets as done.
- {{"op": "rm", "task": "..."}}: remove it; targets as done.
- {{"op": "append", "phase": "Build", "items": ["Update the docs"]}}: add pending tasks to \
a phase, created if missing.
- {{"op": "note", "task": "...", "text": "..."}}: attach a note to a task.
- {{"op": "block", "task": "...", "reason": "..."}}: mark it blocked (waiting on a person \
or something outside); the reason becomes a note. start moves it on.
- {{"op": "update", "task": "...", "priority": "high", "blockedBy": ["Run the build"], \
"addFiles": ["src/app.py"]}}: change only the fields named (content, activeForm, \
description, priority, owner, status, blockedBy, addFiles, notes: the task's notes, \
replacing them); null clears priority or owner.
- {{"op": "move", "task": "Test it", "before": "Write the parser"}}: move a task, with \
its subtasks, and nothing else. Name exactly one place: "before" or "after" a task (it \
becomes that task's sibling, under the same parent), "parent" (it becomes that task's \
last subtask; null: the top level of its phase) or "phase" (the end of that phase).
An item is a string (its content) or {{"content", "activeForm", "status", "notes", \
"description", "priority", "blockedBy", "owner", "subtasks"}}. blockedBy names the tasks \
(ids or exact contents) it waits for: no cycles.

When to nest: a step with parts of its own (a feature with its parser, its tests, its \
docs) gets them as subtasks: an item's "subtasks" (items, nested as written), or a \
task moved under it with "parent". Keep it shallow (4 levels at most) and keep flat \
what has no parts. A parent's status follows its subtasks': start, finish and drop the \
subtasks, not the parent; done or drop on a parent ends all of its subtasks.

Operations run in order. A bad one is skipped and reported in the result (an error \
result); the others still apply. After the batch, if no task without an owner is \
in_progress, the first pending one that waits for nothing is started. Each owner keeps \
its own task in_progress. The result is the list after the batch."""

TODO_READ_DESCRIPTION = """\
Read the todo list of this coding session as it is now: progress, the current task with \
its notes, and every task by phase, marked [ ] pending, [>] in_progress, [x] completed, \
[-] abandoned or [!] blocked; a task that waits for another says so. The user can change the list from their editor: read it before resuming \
work, or when the user says they changed the plan. What the user changed since your last \
call is said once, at the end of the text and in "userChanges"."""


TODO_INGEST_DESCRIPTION = """\
Show a plan written in another agent's own plan format: pass that plan tool's input (or \
plan event) unchanged as "payload" and name its "format". It replaces the todo list of \
this coding session (claude-tasks creates or changes one task). Formats: \
claude-todowrite {todos: [{content, status, activeForm}]}; claude-tasks {tool_name, \
tool_input, tool_response} of TaskCreate or TaskUpdate; codex-plan {explanation?, plan: \
[{step, status}]}; gemini-todos {todos: [{description, status}]}; opencode-todos {todos: \
[{content, status, priority}]}; acp-plan {sessionUpdate: "plan", entries} or \
{sessionUpdate: "plan_update", plan}; vscode-todos {operation?, todoList: [{id, title, \
status}]}; roo-todos {todos: "[ ] one item a line"}; markdown {text}. The result is the \
list as saved; an error result says what was wrong and that nothing changed."""


# Each tool's title and description, in the order the tool list gives them.
TOOL_TEXT: dict[str, tuple[str, str]] = {
    TODO_WRITE: ("Write the todo list", TODO_WRITE_DESCRIPTION),
    TODO: ("Change the todo list", TODO_DESCRIPTION),
    TODO_READ: ("Read the todo list", TODO_READ_DESCRIPTION),
    TODO_INGEST: ("Show a plan in another agent's format", TODO_INGEST_DESCRIPTION),
}

# What the schemas derived from the shapes do not say: descriptions for models, and hints
# that only narrow (a path's steps: a property, `[]` an array's items, a number an anyOf
# member; `nullable`: a null means something there).
_ITEM_HINTS: dict[str, dict[str, Any]] = {
    "0": {"description": "The task's content"},
    "1.content": {"description": "Imperative: Run the tests"},
    "1.activeForm": {"description": "Present continuous: Running the tests"},
}
HINTS: dict[str, dict[str, dict[str, Any]]] = {
    # Claude Code's TodoWrite input, so a model trained on that tool sends what it knows.
    TODO_WRITE: {
        "": {"additionalProperties": False},
        "todos": {"description": "The updated todo list"},
        "todos[]": {"additionalProperties": False},
        "todos[].content": {"minLength": 1},
        "todos[].activeForm": {"minLength": 1},
        # Protocol 2's optional fields; a field left out keeps its value.
        "todos[].description": {"description": "A longer explanation"},
        "todos[].priority": {"nullable": True},
        "todos[].blockedBy": {"description": "Ids or contents of the tasks it waits for"},
        "todos[].owner": {"nullable": True, "description": "The agent or subagent working on it"},
        "todos[].id": {"description": "The task's id, to keep it"},
        "todos[].phase": {"description": "Its phase (default Todos)"},
        # Protocol 4: null puts it at the top level; left out, it keeps its parent.
        "todos[].parent": {
            "nullable": True,
            "description": "The id or content of an earlier item it is a subtask of",
        },
    },
    TODO: {
        "ops": {"description": "The operations, applied in order"},
        "ops[].task": {"description": "The target task's exact content"},
        "ops[].id": {"description": "The target task's id"},
        "ops[].phase": {"description": "A phase name"},
        "ops[].text": {"description": "The note (op note)"},
        "ops[].reason": {"description": "Why (op block)"},
        "ops[].content": {"description": "New content (op update)"},
        "ops[].activeForm": {"description": "New activeForm (op update)"},
        "ops[].description": {"description": "(op update)"},
        "ops[].priority": {"nullable": True, "description": "(op update; null clears)"},
        "ops[].owner": {"nullable": True, "description": "(op update; null clears)"},
        "ops[].status": {"description": "(op update)"},
        "ops[].blockedBy": {"description": "Ids or contents of the tasks it waits for (op update)"},
        "ops[].addFiles": {"description": "Workspace-relative paths it changed (op update)"},
        "ops[].notes": {"description": "The task's notes, replacing them all (op update)"},
        "ops[].items": {"description": "The tasks to add (op append)"},
        "ops[].before": {"description": "Put it right before this task (op move)"},
        "ops[].after": {"description": "Put it right after this task and its subtasks (op move)"},
        "ops[].parent": {
            "nullable": True,
            "description": "Make it this task's last subtask; null: the top level (op move)",
        },
        **{f"ops[].items[].{path}": hint for path, hint in _ITEM_HINTS.items()},
        "ops[].list": {"description": "The whole new list (op init)"},
        "ops[].list[]": {"required": ["phase", "items"]},
        **{f"ops[].list[].items[].{path}": hint for path, hint in _ITEM_HINTS.items()},
    },
    TODO_READ: {"": {"additionalProperties": False}},
    TODO_INGEST: {
        "format": {"description": "The payload's format"},
        "payload": {"description": "The agent's plan tool input, unchanged"},
        "title": {"description": "A title for the plan"},
    },
}

if set(TOOL_TEXT) != set(BY_TOOL) or set(HINTS) != set(BY_TOOL):
    raise ImportError("the MCP tools' prose and the registry's tools differ")


# The derived schemas as generated (`python -m plansight.mcp.tools`): reading them costs
# a millisecond where deriving them costs pydantic's schema building (a few hundred ms on
# a loaded machine) in the way of a client's first `tools/list`, before any store is open.
# tests/mcp/test_mcp_schema.py fails when the file differs from the derivation.
SCHEMAS_FILE = Path(__file__).with_name("tool_schemas.json")


def derived_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's input schema, derived from its request's params shape and its hints."""
    return {name: input_schema(BY_TOOL[name], HINTS[name]) for name in TOOL_TEXT}


@cache
def input_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's input schema, as generated into `SCHEMAS_FILE`."""
    schemas: dict[str, dict[str, Any]] = json.loads(SCHEMAS_FILE.read_text(encoding="utf-8"))
    return schemas


def generated_text() -> str:
    return json.dumps(derived_schemas(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    SCHEMAS_FILE.write_text(generated_text(), encoding="utf-8")
