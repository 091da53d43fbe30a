"""The wire contract's results and notifications as pydantic models, and each request's
params shape and result model (`REQUESTS`, from `plansight.protocol.registry`).

Result models describe what the server sends and generate the JSON Schema (`plansight
schema`). Results themselves are built as plain dicts by `plansight.wire` because that is
much cheaper on every request; a test checks those dicts against these models.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# Re-exported: the names every face imports with the models.
from plansight.protocol.methods import DID_CHANGE as DID_CHANGE
from plansight.protocol.methods import DID_PRUNE as DID_PRUNE
from plansight.protocol.methods import METHODS as METHODS
from plansight.protocol.methods import PROTOCOL_VERSION as PROTOCOL_VERSION
from plansight.protocol.registry import REQUESTS as REGISTRY
from plansight.protocol.shape import WireShape, camel
from plansight.protocol.vocabulary import (
    FINISHED_STATUSES,
    FOLLOW_IDLE_SECONDS,
    Origin,
    Priority,
    TaskStatus,
)


class WireModel(BaseModel):
    # strict: a field of the wrong JSON type fails the schema instead of being coerced.
    # defer_build: a model's validator is built when first used, not at import, so a
    # process pays only for the models it uses (start-up, one-shot commands).
    model_config = ConfigDict(
        alias_generator=camel,
        populate_by_name=True,
        extra="ignore",
        strict=True,
        defer_build=True,
    )


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
    created_by: Origin
    created_at: str
    updated_at: str
    started_at: str | None
    completed_at: str | None
    parent: str | None


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


class CheckoutModel(WireModel):
    """Where a session's agent works: a linked worktree's folder relative to the main
    working tree's root, else absolute (null: the main working tree, or a checkout whose
    store is its own), and its branch (null: a detached HEAD, or unknown)."""

    worktree: str | None
    branch: str | None


class SessionInfo(WireModel):
    session: str
    title: str | None
    version: int
    progress: ProgressModel
    current: TaskModel | None
    updated_at: str | None
    # The git checkout of the session's last agent change (null: none known).
    checkout: CheckoutModel | None


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


class DeltaPhase(WireModel):
    """A phase of a change delta, in the state's order."""

    name: str
    progress: ProgressModel
    task_ids: list[str] = Field(
        default_factory=list,
        description="The phase's task ids in document order: present only when the phase "
        "is new or its tasks or their order changed; absent, the phase keeps the ids the "
        "client holds.",
    )


class DidChangeDelta(WireModel):
    """`plansight/didChange` to a client that asked for change deltas (docs/protocol.md):
    what changed since `baseVersion`. A client holding another version asks `get`."""

    session: str
    title: str | None
    version: int
    base_version: int
    updated_at: str | None
    progress: ProgressModel
    current: TaskModel | None
    origin: Origin
    completed_tasks: list[Completion]
    removed_tasks: list[Completion]
    # Every phase, in order; a phase the client holds that is not listed has gone.
    phases: list[DeltaPhase]
    # Every task added or changed since baseVersion, whole; a task not listed is unchanged.
    tasks: list[TaskModel]
    removed_ids: list[str]


class ApplyResultDelta(WireModel):
    """The answer of a changing request to a client that asked for change deltas in
    answers too (docs/protocol.md, "Change deltas"): the ApplyResult's members and the
    plan as what changed since `baseVersion`, shaped as `DidChangeDelta`. A client
    holding another version asks `get`."""

    session: str
    title: str | None
    version: int
    base_version: int
    updated_at: str | None
    progress: ProgressModel
    current: TaskModel | None
    summary: str
    errors: list[str]
    is_error: bool
    completed_tasks: list[Completion]
    removed_tasks: list[Completion]
    changed: bool
    # As in DidChangeDelta: every phase, in order; the tasks added or changed; those gone.
    phases: list[DeltaPhase]
    tasks: list[TaskModel]
    removed_ids: list[str]


def _result_model(name: str) -> type[WireModel]:
    model = globals().get(name)
    if not (isinstance(model, type) and issubclass(model, WireModel)):
        raise ImportError(f"the registry names a result model {name!r} that is not here")
    return model


# Each request's params shape and result model, from the registry (`protocol/registry.py`).
REQUESTS: dict[str, tuple[type[WireShape], type[WireModel]]] = {
    request.method: (request.params, _result_model(request.result)) for request in REGISTRY
}


class DidPruneParams(WireModel):
    """Sessions that left the store (pruned by any process): editors drop them."""

    sessions: list[str]


NOTIFICATIONS: dict[str, type[WireModel]] = {
    DID_CHANGE: DidChangeParams,
    DID_PRUNE: DidPruneParams,
}

# Plansight's own extensions of PROTOCOL.md, each asked for by a client at `initialize`
# (`capabilities.experimental.plansight.<name>: true`): what they send instead.
EXTENSION_NOTIFICATIONS: dict[str, dict[str, type[WireModel]]] = {
    "changeDeltas": {DID_CHANGE: DidChangeDelta},
}
# And the results they answer instead: each changing request's, as a delta.
EXTENSION_RESULTS: dict[str, dict[str, type[WireModel]]] = {
    "changeDeltaAnswers": {r.method: ApplyResultDelta for r in REGISTRY if r.changes},
}


# The rules a client applies to what the server sends, as data: the editors generate
# (VS Code) or check (Neovim) their tables from these, so no shim keeps its own copy.
RULES: dict[str, Any] = {
    "finishedStatuses": list(FINISHED_STATUSES),
    "followIdleSeconds": FOLLOW_IDLE_SECONDS,
}


def json_schema() -> dict[str, Any]:
    """The JSON Schema of every request's params and result and of every notification, and
    the clients' rules."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "rules": RULES,
        "requests": {
            method: {"params": params.json_schema(), "result": _sent(result)}
            for method, (params, result) in REQUESTS.items()
        },
        "notifications": _each(NOTIFICATIONS, "params"),
        "extensions": {
            **{
                name: {"notifications": _each(notifications, "params")}
                for name, notifications in EXTENSION_NOTIFICATIONS.items()
            },
            **{
                name: {"requests": _each(results, "result")}
                for name, results in EXTENSION_RESULTS.items()
            },
        },
    }


def _sent(model: type[WireModel]) -> dict[str, Any]:
    """The schema of what the wire carries of `model`: its camelCase names, as sent."""
    return model.model_json_schema(by_alias=True, mode="serialization")


def _each(models: dict[str, type[WireModel]], member: str) -> dict[str, Any]:
    """Each method's `{member: schema}`."""
    return {method: {member: _sent(model)} for method, model in models.items()}
