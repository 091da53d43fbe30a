"""Each request of the contract bound to the `PlanService` method that answers it: the
one place a request's method name meets the code that runs it, and what every face
calls (`lsp/server.py`, `cli/changing.py`, `mcp/calls.py`).

The registry (`protocol/registry.py`) keeps each request's name, shapes and faces; it
sits below the service and cannot name its methods. Here each is named as code,
`PlanService.apply` and not `"apply"`: go-to-definition follows it, and mypy checks
where each binding is declared that its method takes the params shape it is bound with
and answers what its kind answers (a read: the result's JSON; a change: an `Outcome`).
`tests/test_registry.py` checks that every request of the registry is bound once, with
its params shape.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from plansight.protocol.requests import (
    ApplyParams,
    ClearParams,
    ContextParams,
    ExportParams,
    GetParams,
    HistoryParams,
    ImportParams,
    IngestParams,
    RestoreParams,
    SessionsParams,
    UndoParams,
    WriteParams,
)
from plansight.protocol.shape import WireShape
from plansight.service import Outcome, PlanService
from plansight.wire import Json

P = TypeVar("P", bound=WireShape)
Answer = TypeVar("Answer", covariant=True)


@dataclass(frozen=True, slots=True)
class Read(Generic[P]):
    """A request that reads: `run(service, params)` answers its result's JSON."""

    method: str
    params: type[P]
    run: Callable[[PlanService, P], Json]

    def answer(self, service: PlanService, raw: Json) -> Json:
        """`raw` (the request's decoded params) validated as its shape, then run."""
        return self.run(service, self.params.validate(raw))


@dataclass(frozen=True, slots=True)
class Change(Generic[P]):
    """A request that changes a plan: `run(service, params, raw)` answers an `Outcome`
    (`raw`, the params as sent: the history holds them)."""

    method: str
    params: type[P]
    run: Callable[[PlanService, P, Json], Outcome]

    def answer(self, service: PlanService, raw: Json) -> Outcome:
        """`raw` (the request's decoded params) validated as its shape, then run."""
        return self.run(service, self.params.validate(raw), raw)


class Bound(Protocol[Answer]):
    """What a face calls: a `Read` or a `Change` whatever its params shape (each checked
    where it is declared, below), so no face handles a shape it cannot name.

    The tables are typed by it, and not as `Change[Any]`: each binding is inferred in the
    table's type as context, and an `Any` there (or a `params` member here, which would
    make it `WireShape`) would stop mypy checking the method against its shape."""

    @property
    def method(self) -> str: ...

    def answer(self, service: PlanService, raw: Json) -> Answer: ...


def _by_method(*bindings: Bound[Answer]) -> dict[str, Bound[Answer]]:
    table = {binding.method: binding for binding in bindings}
    if len(table) != len(bindings):
        raise ImportError("a request is bound twice")
    return table


READS: dict[str, Bound[Json]] = _by_method(
    Read("plansight/get", GetParams, PlanService.get),
    Read("plansight/sessions", SessionsParams, PlanService.sessions),
    Read("plansight/export", ExportParams, PlanService.export),
    Read("plansight/context", ContextParams, PlanService.context),
    Read("plansight/history", HistoryParams, PlanService.history),
)

CHANGES: dict[str, Bound[Outcome]] = _by_method(
    Change("plansight/apply", ApplyParams, PlanService.apply),
    Change("plansight/write", WriteParams, PlanService.write),
    Change("plansight/clear", ClearParams, PlanService.clear),
    Change("plansight/import", ImportParams, PlanService.import_markdown),
    Change("plansight/restore", RestoreParams, PlanService.restore),
    Change("plansight/ingest", IngestParams, PlanService.ingest),
    Change("plansight/undo", UndoParams, PlanService.undo),
)
