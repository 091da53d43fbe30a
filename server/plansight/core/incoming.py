"""What an agent's own plan tool says, in the core's terms.

Each agent's adapter (`plansight.agents`) turns its payload into one of these; the core
then applies it (`plansight.core.replace`, `plansight.core.task_change`) without ever
learning the agent's vocabulary. `path` fields say where a value sits in the payload, so
a refusal can name it (`payload.todos.2.content`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from plansight.core.model import STATUSES, Priority, TaskStatus


@dataclass(slots=True)
class IncomingTask:
    """One task of a full list. A field left None keeps what the task had."""

    content: str
    status: TaskStatus
    path: str  # the item in the payload: "payload.todos.2"
    # The payload's name for the content ("step", "title"); "" when the item is the text.
    content_key: str = "content"
    active_form: str | None = None
    description: str | None = None
    priority: Priority | None = None
    owner: str | None = None
    external_id: str | None = None


@dataclass(slots=True)
class Replacement:
    """The agent's whole list: it replaces the session's."""

    tasks: list[IncomingTask]
    path: str  # the list in the payload: "payload.todos"
    note: str | None = None  # added to the task in progress (Codex's `explanation`)
    note_path: str = "payload"
    # The statuses the agent's format can carry (steering rule 7): a task whose status is
    # not one of them and that the list shows as pending keeps it (the format had no other
    # way to keep the task).
    statuses: frozenset[TaskStatus] = frozenset(STATUSES)


@dataclass(slots=True)
class TaskCreation:
    """One task created by the agent, under the agent's own id."""

    external_id: str
    content: str
    path: str  # the tool's input in the payload: "payload.tool_input"
    content_key: str = "content"
    id_path: str = "payload.id"  # where the agent's id sits in the payload
    description: str | None = None
    active_form: str | None = None
    owner: str | None = None
    # (v4) The agent's id of the task it is a subtask of (Gemini's tracker `parentId`).
    parent: str | None = None
    parent_path: str = ""
    blocked_by: list[str] = field(default_factory=list)  # the agent's ids it waits for


@dataclass(slots=True)
class TaskUpdate:
    """One task, named by the agent's own id, changed. None: left as it was."""

    external_id: str
    path: str
    content_key: str = "content"
    content: str | None = None
    description: str | None = None
    active_form: str | None = None
    status: TaskStatus | None = None
    owner: str | None = None
    add_blocked_by: list[str] = field(default_factory=list)  # the agent's ids
    add_blocks: list[str] = field(default_factory=list)  # the agent's ids
    # The whole list of what it waits for, the agent's ids (Gemini's tracker
    # `dependencies`); None: as it was.
    blocked_by: list[str] | None = None


@dataclass(slots=True)
class TaskDeletion:
    external_id: str


@dataclass(slots=True)
class MarkdownPlan:
    """A checklist: imported as `plansight/import` does."""

    text: str


@dataclass(slots=True)
class NothingToChange:
    """A payload that only reads the list (VS Code's `operation: "read"`)."""


Incoming = Replacement | TaskCreation | TaskUpdate | TaskDeletion | MarkdownPlan | NothingToChange
