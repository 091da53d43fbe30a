"""The wire contract as pydantic models: the one source of truth for names and shapes.

Params models validate what clients send; result models describe what the server sends
and generate the JSON Schema (`plansight schema`). Results themselves are built as plain
dicts by `plansight.wire` because that is much cheaper on every request; a test checks
those dicts against these models.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, AliasChoices, BaseModel, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel

from plansight.protocol.text import clean_name
from plansight.protocol.vocabulary import DEFAULT_SESSION, Origin, Priority, TaskStatus

PROTOCOL_VERSION = 2
DID_CHANGE = "plansight/didChange"
DID_PRUNE = "plansight/didPrune"

# Cleaned as a content is (one line, no control or bidi characters, trimmed): a name is
# printed by the CLI and shown by editors like any task.
SessionName = Annotated[
    str, StringConstraints(min_length=1, max_length=200), AfterValidator(clean_name)
]


class WireModel(BaseModel):
    # strict: a field of the wrong JSON type fails the schema instead of being coerced.
    # defer_build: a model's validator is built when first used, not at import, so a
    # process pays only for the models it uses (start-up, one-shot commands).
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        strict=True,
        defer_build=True,
    )


# ---------------------------------------------------------------- requests


class ItemSpec(WireModel):
    content: str
    active_form: str | None = Field(
        None, validation_alias=AliasChoices("activeForm", "active_form")
    )
    status: TaskStatus | None = None
    notes: list[str] | None = None
    description: str | None = None
    priority: Priority | None = None
    blocked_by: list[str] | None = None
    owner: str | None = None


Item = str | ItemSpec


class PhaseSpec(WireModel):
    phase: str | None = None
    items: list[Item] | None = None


class InitOp(WireModel):
    op: Literal["init"]
    # `list` on the wire; renamed here so it does not shadow the builtin in the class body.
    phases: list[PhaseSpec] | None = Field(None, alias="list")


class StartOp(WireModel):
    op: Literal["start"]
    task: str | None = None
    id: str | None = None


class DoneOp(WireModel):
    op: Literal["done"]
    task: str | None = None
    id: str | None = None
    phase: str | None = None


class DropOp(WireModel):
    op: Literal["drop"]
    task: str | None = None
    id: str | None = None
    phase: str | None = None


class RmOp(WireModel):
    op: Literal["rm"]
    task: str | None = None
    id: str | None = None
    phase: str | None = None


class AppendOp(WireModel):
    op: Literal["append"]
    phase: str | None = None
    items: list[Item] | None = None


class NoteOp(WireModel):
    op: Literal["note"]
    task: str | None = None
    id: str | None = None
    text: str | None = None


class BlockOp(WireModel):
    op: Literal["block"]
    task: str | None = None
    id: str | None = None
    reason: str | None = None


class UpdateOp(WireModel):
    """Only the fields it names change: `model_fields_set` tells a null from a field left out."""

    op: Literal["update"]
    task: str | None = None
    id: str | None = None
    content: str | None = None
    active_form: str | None = Field(
        None, validation_alias=AliasChoices("activeForm", "active_form")
    )
    description: str | None = None
    priority: Priority | None = None
    owner: str | None = None
    status: TaskStatus | None = None
    blocked_by: list[str] | None = None
    add_files: list[str] | None = None


OP_MODELS = (InitOp, StartOp, DoneOp, DropOp, BlockOp, RmOp, AppendOp, NoteOp, UpdateOp)
# The op names, from the models' `op` literals: the one list the rest derives from.
OP_NAMES: tuple[str, ...] = tuple(
    model.model_fields["op"].annotation.__args__[0]  # type: ignore[union-attr]
    for model in OP_MODELS
)

Op = Annotated[
    InitOp | StartOp | DoneOp | DropOp | BlockOp | RmOp | AppendOp | NoteOp | UpdateOp,
    Field(discriminator="op"),
]


class SessionParams(WireModel):
    session: SessionName = DEFAULT_SESSION


class ApplyParams(SessionParams):
    ops: Annotated[list[Op], Field(min_length=1)]
    base_version: int | None = None
    origin: Origin = "agent"


class WriteItem(WireModel):
    content: str
    active_form: str = Field(validation_alias=AliasChoices("activeForm", "active_form"))
    status: TaskStatus
    id: str | None = None
    phase: str | None = None
    notes: list[str] | None = None
    description: str | None = None
    priority: Priority | None = None
    blocked_by: list[str] | None = None
    owner: str | None = None


class WriteParams(SessionParams):
    todos: list[WriteItem]
    base_version: int | None = None
    origin: Origin = "agent"


class GetParams(SessionParams):
    pass


class SessionsParams(WireModel):
    pass


class ClearParams(SessionParams):
    origin: Origin = "agent"


class ExportParams(SessionParams):
    format: Literal["markdown", "json"] = "markdown"


class ImportParams(SessionParams):
    markdown: str
    origin: Origin = "agent"


class ContextParams(SessionParams):
    pass


class HistoryParams(SessionParams):
    limit: Annotated[int, Field(ge=1)] | None = None


class RestoreParams(SessionParams):
    version: int
    origin: Origin = "agent"


# Every agent format `plansight/ingest` reads (one adapter each in `plansight.agents`).
Format = Literal[
    "claude-todowrite",
    "claude-tasks",
    "codex-plan",
    "gemini-todos",
    "opencode-todos",
    "acp-plan",
    "vscode-todos",
    "roo-todos",
    "markdown",
]
FORMATS: tuple[str, ...] = get_args(Format)


class IngestParams(SessionParams):
    format: Format
    # Exactly what the agent's plan tool or plan event carries; its adapter reads it.
    payload: dict[str, Any]
    title: str | None = None
    base_version: int | None = None
    origin: Origin = "agent"


# ---------------------------------------------------------------- results


class TaskModel(WireModel):
    id: str
    content: str
    active_form: str
    status: TaskStatus
    notes: list[str]
    description: str
    priority: Priority | None
    blocked_by: list[str]
    waiting: bool
    owner: str | None
    files: list[str]
    external_id: str | None
    created_at: str
    updated_at: str
    started_at: str | None
    completed_at: str | None


class ProgressModel(WireModel):
    completed: int
    abandoned: int
    blocked: int
    total: int
    percent: int


class PhaseModel(WireModel):
    name: str
    tasks: list[TaskModel]
    progress: ProgressModel


class TodoState(WireModel):
    session: str
    title: str | None
    version: int
    phases: list[PhaseModel]
    progress: ProgressModel
    current: TaskModel | None
    updated_at: str | None


class Completion(WireModel):
    id: str
    content: str
    phase: str


class ApplyResult(TodoState):
    summary: str
    errors: list[str]
    is_error: bool
    completed_tasks: list[Completion]
    removed_tasks: list[Completion]
    changed: bool


class SessionInfo(WireModel):
    session: str
    title: str | None
    version: int
    progress: ProgressModel
    current: TaskModel | None
    updated_at: str | None


class SessionsResult(WireModel):
    sessions: list[SessionInfo]


class TextResult(WireModel):
    text: str


class ContextResult(WireModel):
    text: str
    reminder: bool


class HistoryEvent(WireModel):
    version: int
    origin: Origin
    method: str
    at: str
    changes: list[str]


class HistoryResult(WireModel):
    events: list[HistoryEvent]


class DidChangeParams(TodoState):
    origin: Origin
    completed_tasks: list[Completion]
    removed_tasks: list[Completion]


REQUESTS: dict[str, tuple[type[WireModel], type[WireModel]]] = {
    "plansight/apply": (ApplyParams, ApplyResult),
    "plansight/write": (WriteParams, ApplyResult),
    "plansight/get": (GetParams, TodoState),
    "plansight/sessions": (SessionsParams, SessionsResult),
    "plansight/clear": (ClearParams, ApplyResult),
    "plansight/export": (ExportParams, TextResult),
    "plansight/import": (ImportParams, ApplyResult),
    "plansight/context": (ContextParams, ContextResult),
    "plansight/history": (HistoryParams, HistoryResult),
    "plansight/restore": (RestoreParams, ApplyResult),
    "plansight/ingest": (IngestParams, ApplyResult),
}
METHODS: tuple[str, ...] = tuple(REQUESTS)


class DidPruneParams(WireModel):
    """Sessions that left the store (pruned by any process): editors drop them."""

    sessions: list[str]


NOTIFICATIONS: dict[str, type[WireModel]] = {
    DID_CHANGE: DidChangeParams,
    DID_PRUNE: DidPruneParams,
}


def json_schema() -> dict[str, Any]:
    """The JSON Schema of every request's params and result and of every notification."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "requests": {
            method: {
                "params": params.model_json_schema(by_alias=True),
                "result": result.model_json_schema(by_alias=True, mode="serialization"),
            }
            for method, (params, result) in REQUESTS.items()
        },
        "notifications": {
            method: {"params": params.model_json_schema(by_alias=True, mode="serialization")}
            for method, params in NOTIFICATIONS.items()
        },
    }
