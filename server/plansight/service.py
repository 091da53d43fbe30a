"""Every request of the contract, run against a store: the one place the core, the store
and the wire meet. The language server, the CLI and the MCP server all go through here."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from plansight.agents import read_payload
from plansight.context_round import context_round, person_changes
from plansight.core.changes import LoggedChange, describe_changes, snapshot
from plansight.core.context import ContextText
from plansight.core.errors import FieldError, RequestRefused, VersionConflict
from plansight.core.importing import import_markdown
from plansight.core.incoming import Replacement
from plansight.core.ingest import ingest
from plansight.core.limits import title_problem
from plansight.core.markdown import to_markdown
from plansight.core.model import FINISHED, STAMP_FIELDS, Origin, Plan, utc_now
from plansight.core.netchange import user_changes as net_change
from plansight.core.ops import apply_ops
from plansight.core.record import EMPTY_RECORD, plan_from_record
from plansight.core.settings import Settings
from plansight.core.summary import summarize
from plansight.core.write import write_todos
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
    WriteParams,
)
from plansight.protocol.shape import WireShape
from plansight.protocol.text import clean_content
from plansight.protocol.transport import MAX_DEPTH, too_deep
from plansight.store.base import KEPT_SESSIONS, ChangeEvent, SessionSummary, TodoStore
from plansight.store.copying import CopyReport, copy_sessions
from plansight.wire import Json, change_json, session_info_json, state_json

# `history` without a `limit`: every change whose plan is kept.
HISTORY_LIMIT = 1000


@dataclass(slots=True)
class Outcome:
    """What a changing request did, for each face to render once: the plan it left
    (committed, or as it was when nothing changed), what the agent is told, and what a
    push says (`plansight/didChange`: the plan's state with origin, completed, removed)."""

    plan: Plan  # as it is when returned: render before the session changes again
    summary: str
    errors: list[str]  # the ops that were skipped, in words
    changed: bool
    origin: Origin
    completed: list[dict[str, str]]  # {id, content, phase} of each task it completed
    removed: list[dict[str, str]]  # and of each unfinished task it removed

    @property
    def is_error(self) -> bool:
        return bool(self.errors)

    def members(self) -> Json:
        """What the contract's ApplyResult adds to the plan's TodoState."""
        return change_json(self.summary, self.errors, self.completed, self.removed, self.changed)

    @property
    def result(self) -> Json:
        """The whole ApplyResult as the contract's JSON (`plansight apply --json`)."""
        return {**state_json(self.plan), **self.members()}


class PlanService:
    def __init__(
        self, store: TodoStore, settings: Settings | None = None, kept_sessions: int = KEPT_SESSIONS
    ) -> None:
        self.store = store
        self.settings = settings or Settings()
        self.kept_sessions = kept_sessions  # a property of the store, not of a client

    # ------------------------------------------------------------ the store

    @property
    def location(self) -> str:
        """Where the store is, as it may be shown (a URL without its password)."""
        return self.store.path

    def close(self) -> None:
        self.store.close()

    def copy_into(self, target: PlanService) -> CopyReport:
        """Copy every session of this store, with its history, into `target`, a team store
        (`plansight migrate`); the target then keeps its `kept_sessions` updated last."""
        return copy_sessions(self.store, target.store, target.kept_sessions)

    # ------------------------------------------------------------ reads

    def load(self, session: str) -> Plan:
        """The session as committed (empty at version 0 when unknown). Do not mutate it."""
        return self.store.load(session)

    def summaries(self) -> list[SessionSummary]:
        """Every session in brief, most recently updated first."""
        return self.store.summaries()

    def person_changes(self, session: str) -> tuple[int, list[str]]:
        """One more context round: its count and what a person changed since the last."""
        return person_changes(self.store, session)

    def context_round(self, session: str) -> tuple[ContextText, list[str]]:
        """The context text (with the service's reminder setting) and the lines of what a
        person changed, once: one counted round."""
        return context_round(self.store, session, self.settings.reminder_after_rounds)

    def get(self, params: GetParams) -> Json:
        return state_json(self.store.load(params.session))

    def sessions(self) -> Json:
        return {"sessions": [session_info_json(info) for info in self.store.summaries()]}

    def export(self, params: ExportParams) -> Json:
        plan = self.store.load(params.session)
        if params.format == "json":
            return {"text": json.dumps(state_json(plan), indent=2, ensure_ascii=False) + "\n"}
        return {"text": to_markdown(plan)}

    def context(self, params: ContextParams) -> Json:
        ctx, _ = context_round(self.store, params.session, self.settings.reminder_after_rounds)
        return {"text": ctx.text, "reminder": ctx.reminder}

    def user_changes(self, session: str) -> list[str]:
        """What a person changed in the session since the agent last looked, once: for
        agents whose loop cannot call `context` (an MCP tool result carries it)."""
        logged = self.store.unseen_changes(session)
        return net_change(logged, lambda version: self.store.snapshot(session, version))

    def history(self, params: HistoryParams) -> Json:
        session = params.session
        events = self.store.history(session, params.limit or HISTORY_LIMIT)
        return {
            "events": [
                {
                    "version": e.version,
                    "origin": e.origin,
                    "method": e.method,
                    "at": e.at,
                    "changes": self._words(session, e),
                }
                for e in events
            ]
        }

    def _words(self, session: str, change: LoggedChange) -> list[str]:
        """What a change did, in words: the plan before it against the plan after it."""
        after = self.store.snapshot(session, change.version)
        before = (
            EMPTY_RECORD
            if change.version == 1
            else self.store.snapshot(session, change.version - 1)
        )
        if before is None or after is None:
            return change.changes
        old = plan_from_record(session, before)
        return describe_changes(snapshot(old), plan_from_record(session, after))

    # ------------------------------------------------------------ changes

    def apply(self, params: ApplyParams, request: Json) -> Outcome:
        def run(plan: Plan, now: str, auto_started: list[str]) -> list[str]:
            return apply_ops(plan, params.ops, self.settings, now, auto_started)

        return self._change(
            "plansight/apply", params.session, params.origin, request, params.base_version, run
        )

    def write(self, params: WriteParams, request: Json) -> Outcome:
        def run(plan: Plan, now: str, auto_started: list[str]) -> list[str]:
            write_todos(plan, params.todos, self.settings, now)
            return []

        # A TodoWrite caller always hears "updated", as Claude Code's tool says it.
        return self._change(
            "plansight/write",
            params.session,
            params.origin,
            request,
            params.base_version,
            run,
            always_updated=True,
        )

    def clear(self, params: ClearParams, request: Json) -> Outcome:
        def run(plan: Plan, now: str, auto_started: list[str]) -> list[str]:
            plan.phases = []
            return []

        return self._change("plansight/clear", params.session, params.origin, request, None, run)

    def import_markdown(self, params: ImportParams, request: Json) -> Outcome:
        def run(plan: Plan, now: str, auto_started: list[str]) -> list[str]:
            return import_markdown(plan, params.markdown, self.settings, now, auto_started)

        return self._change("plansight/import", params.session, params.origin, request, None, run)

    def restore(self, params: RestoreParams, request: Json) -> Outcome:
        def run(plan: Plan, now: str, auto_started: list[str]) -> list[str]:
            record = self.store.snapshot(params.session, params.version)
            if record is None or params.version > plan.version:
                raise RequestRefused(
                    [
                        FieldError(
                            "version",
                            f"Version {params.version} is not in the history of this session",
                        )
                    ]
                )
            old = plan_from_record(plan.session, record)
            plan.title = old.title
            plan.phases = old.phases
            # An id never names two tasks: the counter does not go back.
            plan.next_id = max(plan.next_id, old.next_id)
            return []

        return self._change("plansight/restore", params.session, params.origin, request, None, run)

    def ingest(self, params: IngestParams, request: Json) -> Outcome:
        """An agent's own plan payload (`params.format`), mapped by its adapter."""
        # Read before the store is touched: a payload of the wrong shape changes nothing.
        incoming = read_payload(params.format, params.payload)
        title = _clean_title(params.title, self.settings)
        notices: list[str] = []

        def run(plan: Plan, now: str, auto_started: list[str]) -> list[str]:
            done = ingest(plan, incoming, self.settings, now, auto_started)
            notices.extend(done.notices)
            if params.title is not None:  # it wins over a markdown `# Title`
                plan.title = title
            return done.errors

        return self._change(
            "plansight/ingest",
            params.session,
            params.origin,
            request,
            params.base_version,
            run,
            always_updated=isinstance(incoming, Replacement),
            notices=notices,
        )

    def _change(
        self,
        method: str,
        session: str,
        origin: Origin,
        request: Json,
        base_version: int | None,
        run: Callable[[Plan, str, list[str]], list[str]],
        always_updated: bool = False,
        notices: list[str] | None = None,
    ) -> Outcome:
        """`run(plan, now, auto_started)` changes the plan and returns its error lines; it
        adds to `auto_started` the ids of tasks the server started by itself (not a
        person's doing, whatever the origin)."""
        deep = too_deep(request)
        if deep is not None:  # the event log keeps the request: bounded, as JSON can write it
            raise RequestRefused([FieldError(deep, f"nested deeper than {MAX_DEPTH} levels")])
        with self.store.edit(session, origin, self.kept_sessions) as edit:
            plan = edit.plan
            if base_version is not None and base_version != plan.version:
                raise VersionConflict(plan.version)
            before = plan.fingerprint()
            statuses = {task.id: task.status for task in plan.tasks()}
            stamps = _stamps(plan)
            unfinished = {
                task.id: (task.content, phase.name)
                for phase, task in plan.tasks_with_phase()
                if task.status not in FINISHED
            }
            # A person's change is told to the agent in words; history makes the words of
            # other changes when it is read, from the plans it keeps (cheaper writes).
            changes_before = snapshot(plan) if origin == "user" else None
            now = utc_now()
            auto_started: list[str] = []
            errors = run(plan, now, auto_started)
            changed = plan.fingerprint() != before
            if not changed:
                # Ops may have moved a task and back, or added and removed one: nothing
                # is committed, so neither may the times or the id counter move.
                _restore(plan, stamps)
            completed = [
                {"id": task.id, "content": task.content, "phase": phase.name}
                for phase, task in plan.tasks_with_phase()
                if task.status == "completed" and statuses.get(task.id) != "completed"
            ]
            present = {task.id for task in plan.tasks()}
            removed = [
                {"id": task_id, "content": content, "phase": phase}
                for task_id, (content, phase) in unfinished.items()
                if task_id not in present
            ]
            if changed:
                changes = (
                    describe_changes(changes_before, plan) if changes_before is not None else []
                )
                edit.commit(
                    ChangeEvent(origin, method, request, completed, changes, removed, auto_started)
                )
        headline = "Todo list updated" if changed or always_updated else "Todo list unchanged"
        summary = _with_notices(summarize(plan, errors, headline, removed), notices or [])
        return Outcome(plan, summary, errors, changed, origin, completed, removed)


# Every request that changes a plan: the shape of its params and the service's method,
# the one table each face answers them from.
ChangeRun = Callable[[PlanService, Any, Json], Outcome]
CHANGES: dict[str, tuple[type[WireShape], ChangeRun]] = {
    "plansight/apply": (ApplyParams, PlanService.apply),
    "plansight/write": (WriteParams, PlanService.write),
    "plansight/clear": (ClearParams, PlanService.clear),
    "plansight/import": (ImportParams, PlanService.import_markdown),
    "plansight/restore": (RestoreParams, PlanService.restore),
    "plansight/ingest": (IngestParams, PlanService.ingest),
}


def _clean_title(raw: str | None, settings: Settings) -> str | None:
    """A title as the session keeps it (one clean line; empty: no title), or a refusal."""
    if raw is None:
        return None
    title = clean_content(raw)
    if problem := title_problem(title, settings):
        raise RequestRefused([FieldError("title", problem)])
    return title or None


def _with_notices(summary: str, notices: list[str]) -> str:
    """What a lenient request repaired, said right under the progress line."""
    if not notices:
        return summary
    lines = summary.split("\n")
    at = 2 if lines[0].startswith("Errors: ") else 1
    return "\n".join(lines[:at] + notices + lines[at:])


Stamps = tuple[int, dict[str, tuple[Any, ...]]]


_stamps_of = attrgetter(*STAMP_FIELDS)


def _stamps(plan: Plan) -> Stamps:
    """What a change can move that the fingerprint does not see."""
    if len(STAMP_FIELDS) == 1:  # attrgetter of one name gives the value, not a tuple
        return plan.next_id, {t.id: (_stamps_of(t),) for t in plan.tasks()}
    return plan.next_id, {t.id: _stamps_of(t) for t in plan.tasks()}


def _restore(plan: Plan, stamps: Stamps) -> None:
    plan.next_id, times = stamps
    for task in plan.tasks():
        for name, value in zip(STAMP_FIELDS, times[task.id], strict=True):
            setattr(task, name, value)
