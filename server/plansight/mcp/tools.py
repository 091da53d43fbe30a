"""What the model reads about the plan tools: their names, guidance and input schemas."""

from __future__ import annotations

from typing import Any

from plansight.core.model import PRIORITIES, STATUSES
from plansight.protocol.requests import FORMATS, OP_NAMES

TODO_WRITE = "todo_write"
TODO = "todo"
TODO_READ = "todo_read"
TODO_INGEST = "todo_ingest"

INSTRUCTIONS = """\
Plansight shows your todo list to the user, live, in their editor. Plan any work of 3 or \
more steps with todo_write (or todo), keep exactly one task in_progress, and mark each \
task completed as soon as it is done. The user may edit the list from the editor: \
todo_read shows it as it is now."""

_GUIDANCE = """\
When to use it:
- A task that needs 3 or more distinct steps, or careful planning.
- The user gives several tasks at once (numbered or comma-separated).
- New instructions arrive mid-work: capture them as todos.
- Skip it for a single trivial step or a purely conversational request.

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
An item is a string (its content) or {{"content", "activeForm", "status", "notes", \
"description", "priority", "blockedBy", "owner"}}. blockedBy names the tasks (ids or \
exact contents) it waits for: no cycles.

Operations run in order. A bad one is skipped and reported in the result (an error \
result); the others still apply. After the batch, if no task without an owner is \
in_progress, the first pending one that waits for nothing is started. Each owner keeps \
its own task in_progress. The result is the list after the batch."""

TODO_READ_DESCRIPTION = """\
Read the todo list of this coding session as it is now: progress, the current task with \
its notes, and every task by phase, marked [ ] pending, [>] in_progress, [x] completed, \
[-] abandoned or [!] blocked; a task that waits for another says so. The user can change the list from their editor: read it before resuming \
work, or when the user says they changed the plan."""


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


# Claude Code's TodoWrite input, so a model trained on that tool sends what it knows.
TODO_WRITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "description": "The updated todo list",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string", "minLength": 1},
                    "status": {"type": "string", "enum": list(STATUSES)},
                    "activeForm": {"type": "string", "minLength": 1},
                    # Protocol 2's optional fields; a field left out keeps its value.
                    "description": {"type": "string", "description": "A longer explanation"},
                    "priority": {"type": ["string", "null"], "enum": [*PRIORITIES, None]},
                    "blockedBy": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Ids or contents of the tasks it waits for",
                    },
                    "owner": {
                        "type": ["string", "null"],
                        "description": "The agent or subagent working on it",
                    },
                    "id": {"type": "string", "description": "The task's id, to keep it"},
                    "phase": {"type": "string", "description": "Its phase (default Todos)"},
                    "notes": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["content", "status", "activeForm"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["todos"],
    "additionalProperties": False,
}

_ITEM: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "description": "The task's content"},
        {
            "type": "object",
            "properties": {
                "content": {"type": "string", "description": "Imperative: Run the tests"},
                "activeForm": {
                    "type": "string",
                    "description": "Present continuous: Running the tests",
                },
                "status": {"type": "string", "enum": list(STATUSES)},
                "notes": {"type": "array", "items": {"type": "string"}},
                "description": {"type": "string"},
                "priority": {"type": "string", "enum": list(PRIORITIES)},
                "blockedBy": {"type": "array", "items": {"type": "string"}},
                "owner": {"type": "string"},
            },
            "required": ["content"],
        },
    ]
}

# Flat on purpose: some clients cannot handle `$ref` or `oneOf` in a tool's schema.
TODO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ops": {
            "type": "array",
            "minItems": 1,
            "description": "The operations, applied in order",
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": list(OP_NAMES)},
                    "task": {"type": "string", "description": "The target task's exact content"},
                    "id": {"type": "string", "description": "The target task's id"},
                    "phase": {"type": "string", "description": "A phase name"},
                    "text": {"type": "string", "description": "The note (op note)"},
                    "reason": {"type": "string", "description": "Why (op block)"},
                    "content": {"type": "string", "description": "New content (op update)"},
                    "activeForm": {"type": "string", "description": "New activeForm (op update)"},
                    "description": {"type": "string", "description": "(op update)"},
                    "priority": {
                        "type": ["string", "null"],
                        "enum": [*PRIORITIES, None],
                        "description": "(op update; null clears)",
                    },
                    "owner": {
                        "type": ["string", "null"],
                        "description": "(op update; null clears)",
                    },
                    "status": {
                        "type": "string",
                        "enum": list(STATUSES),
                        "description": "(op update)",
                    },
                    "blockedBy": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Ids or contents of the tasks it waits for (op update)",
                    },
                    "addFiles": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Workspace-relative paths it changed (op update)",
                    },
                    "notes": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "The task's notes, replacing them all (op update)",
                    },
                    "items": {
                        "type": "array",
                        "items": _ITEM,
                        "description": "The tasks to add (op append)",
                    },
                    "list": {
                        "type": "array",
                        "description": "The whole new list (op init)",
                        "items": {
                            "type": "object",
                            "properties": {
                                "phase": {"type": "string"},
                                "items": {"type": "array", "items": _ITEM},
                            },
                            "required": ["phase", "items"],
                        },
                    },
                },
                "required": ["op"],
            },
        }
    },
    "required": ["ops"],
}

TODO_READ_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}

TODO_INGEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "format": {"type": "string", "enum": list(FORMATS), "description": "The payload's format"},
        "payload": {"type": "object", "description": "The agent's plan tool input, unchanged"},
        "title": {"type": "string", "description": "A title for the plan"},
    },
    "required": ["format", "payload"],
}
