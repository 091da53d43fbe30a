"""Every request of the contract, its ops and its items: the one source of their names and
shapes. Plain dataclasses (see `plansight.protocol.shape`): the core and the service take
them, the faces validate a client's JSON into them with `Shape.validate(raw)`, and the
JSON Schema (`plansight schema`) is generated from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, get_args, get_type_hints

# Re-exported: the ingest formats are announced at `initialize`, before this module loads.
from plansight.protocol.methods import FORMATS as FORMATS
from plansight.protocol.methods import Format as Format
from plansight.protocol.shape import Bounds, Labelled, Tagged, WireShape
from plansight.protocol.text import MAX_NAME_LENGTH, clean_name
from plansight.protocol.vocabulary import DEFAULT_SESSION, Origin, Priority, TaskStatus

# Cleaned as a content is (one line, no control or bidi characters, trimmed): a name is
# printed by the CLI and shown by editors like any task.
SessionName = Annotated[str, Bounds(min_length=1, max_length=MAX_NAME_LENGTH, after=clean_name)]

# Every shape is `@dataclass(kw_only=True, eq=False)`: compared by identity and mutable,
# the cheapest dataclasses to make (each one costs the one-shot commands' start-up); a
# request is never compared or changed anyway.

# ---------------------------------------------------------------- items


@dataclass(kw_only=True, eq=False)
class ItemSpec(WireShape):
    records_named: ClassVar[bool] = True
    content: str
    active_form: str | None = None
    status: TaskStatus | None = None
    notes: list[str] | None = None
    description: str | None = None
    priority: Priority | None = None
    blocked_by: list[str] | None = None
    owner: str | None = None
    subtasks: list[Item] | None = None  # (v4) the item's subtasks, nested as written


Item = Annotated[str | ItemSpec, Labelled()]


@dataclass(kw_only=True, eq=False)
class PhaseSpec(WireShape):
    phase: str | None = None
    items: list[Item] | None = None


@dataclass(kw_only=True, eq=False)
class WriteItem(WireShape):
    records_named: ClassVar[bool] = True
    content: str
    active_form: str
    status: TaskStatus
    id: str | None = None
    phase: str | None = None
    notes: list[str] | None = None
    description: str | None = None
    priority: Priority | None = None
    blocked_by: list[str] | None = None
    owner: str | None = None
    # (v4) The id or exact content of an earlier item: this one is its subtask. Left out:
    # the task keeps its parent; null: the top level.
    parent: str | None = None


# ---------------------------------------------------------------- ops


@dataclass(kw_only=True, eq=False)
class InitOp(WireShape):
    wire_names: ClassVar[dict[str, str]] = {"phases": "list"}  # `list` would shadow the builtin
    op: Literal["init"]
    phases: list[PhaseSpec] | None = None


@dataclass(kw_only=True, eq=False)
class StartOp(WireShape):
    op: Literal["start"]
    task: str | None = None
    id: str | None = None


@dataclass(kw_only=True, eq=False)
class DoneOp(WireShape):
    op: Literal["done"]
    task: str | None = None
    id: str | None = None
    phase: str | None = None


@dataclass(kw_only=True, eq=False)
class DropOp(WireShape):
    op: Literal["drop"]
    task: str | None = None
    id: str | None = None
    phase: str | None = None


@dataclass(kw_only=True, eq=False)
class BlockOp(WireShape):
    op: Literal["block"]
    task: str | None = None
    id: str | None = None
    reason: str | None = None


@dataclass(kw_only=True, eq=False)
class RmOp(WireShape):
    op: Literal["rm"]
    task: str | None = None
    id: str | None = None
    phase: str | None = None


@dataclass(kw_only=True, eq=False)
class AppendOp(WireShape):
    op: Literal["append"]
    phase: str | None = None
    items: list[Item] | None = None
    parent: str | None = None  # (v4) a task (id, else exact content): its last subtasks


@dataclass(kw_only=True, eq=False)
class NoteOp(WireShape):
    op: Literal["note"]
    task: str | None = None
    id: str | None = None
    text: str | None = None


@dataclass(kw_only=True, eq=False)
class UpdateOp(WireShape):
    """Only the fields it names change: a field sent as null is cleared, one left out stays."""

    records_named: ClassVar[bool] = True

    op: Literal["update"]
    task: str | None = None
    id: str | None = None
    content: str | None = None
    active_form: str | None = None
    description: str | None = None
    priority: Priority | None = None
    owner: str | None = None
    status: TaskStatus | None = None
    blocked_by: list[str] | None = None
    add_files: list[str] | None = None
    notes: list[str] | None = None  # replaces the task's notes: edit or delete one


@dataclass(kw_only=True, eq=False)
class MoveOp(WireShape):
    """(v4) One task with its subtasks, put before or after a sibling, under a task
    (`parent: null`: the top level), or at the end of a phase: exactly one of the four."""

    records_named: ClassVar[bool] = True  # `parent: null` says the top level

    op: Literal["move"]
    task: str | None = None
    id: str | None = None
    before: str | None = None
    after: str | None = None
    parent: str | None = None
    phase: str | None = None


AnyOp = InitOp | StartOp | DoneOp | DropOp | BlockOp | RmOp | AppendOp | NoteOp | UpdateOp | MoveOp
Op = Annotated[AnyOp, Tagged("op")]
OP_SHAPES: tuple[type[WireShape], ...] = get_args(AnyOp)
# The op names, from the shapes' `op` literals: the one list the rest derives from.
OP_NAMES: tuple[str, ...] = tuple(get_args(get_type_hints(shape)["op"])[0] for shape in OP_SHAPES)

# ---------------------------------------------------------------- params


@dataclass(kw_only=True, eq=False)
class SessionParams(WireShape):
    session: SessionName = DEFAULT_SESSION


@dataclass(kw_only=True, eq=False)
class ApplyParams(SessionParams):
    ops: Annotated[list[Op], Bounds(min_length=1)]
    base_version: int | None = None
    origin: Origin = "agent"


@dataclass(kw_only=True, eq=False)
class WriteParams(SessionParams):
    todos: list[WriteItem]
    base_version: int | None = None
    origin: Origin = "agent"
    # A person's stale edit (`baseVersion` older than the current version) is merged
    # with what changed since, or refused with the conflicts.
    merge: bool | Literal["mine"] = False


@dataclass(kw_only=True, eq=False)
class GetParams(SessionParams):
    pass


@dataclass(kw_only=True, eq=False)
class SessionsParams(WireShape):
    pass


@dataclass(kw_only=True, eq=False)
class ClearParams(SessionParams):
    origin: Origin = "agent"


@dataclass(kw_only=True, eq=False)
class ExportParams(SessionParams):
    format: Literal["markdown", "json"] = "markdown"


@dataclass(kw_only=True, eq=False)
class ImportParams(SessionParams):
    markdown: str
    origin: Origin = "agent"
    base_version: int | None = None
    merge: bool | Literal["mine"] = False  # as `write`'s


@dataclass(kw_only=True, eq=False)
class ContextParams(SessionParams):
    full: bool = False  # the whole list, for an agent whose context was compacted


@dataclass(kw_only=True, eq=False)
class HistoryParams(SessionParams):
    limit: Annotated[int, Bounds(ge=1)] | None = None


@dataclass(kw_only=True, eq=False)
class RestoreParams(SessionParams):
    version: int
    origin: Origin = "agent"


@dataclass(kw_only=True, eq=False)
class UndoParams(SessionParams):
    origin: Origin = "agent"


@dataclass(kw_only=True, eq=False)
class IngestParams(SessionParams):
    format: Format
    # Exactly what the agent's plan tool or plan event carries; its adapter reads it.
    payload: dict[str, Any]
    title: str | None = None
    base_version: int | None = None
    origin: Origin = "agent"
