"""Every request of the contract, run against a store: the one place the core, the store
and the wire meet. The language server, the CLI and the MCP server all go through here."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from plansight.core.changes import describe_changes, snapshot
from plansight.core.context import context_text
from plansight.core.errors import VersionConflict
from plansight.core.importing import import_markdown
from plansight.core.markdown import to_markdown
from plansight.core.model import Origin, Plan, utc_now
from plansight.core.ops import apply_ops
from plansight.core.settings import Settings
from plansight.core.summary import summarize
from plansight.core.write import write_todos
from plansight.protocol import (
    ApplyParams,
    ClearParams,
    ContextParams,
    ExportParams,
    GetParams,
    ImportParams,
    WriteParams,
)
from plansight.store.base import ChangeEvent, TodoStore
from plansight.wire import Json, session_info_json, state_json


@dataclass(slots=True)
class Outcome:
    """What a changing request did: the result to answer with and the state to push."""

    result: Json
    changed: bool
    origin: Origin
    completed: list[dict[str, str]]
    plan: Plan | None = None  # the plan `result` was made from, as it is when returned


class PlanService:
    def __init__(self, store: TodoStore, settings: Settings | None = None) -> None:
        self.store = store
        self.settings = settings or Settings()

    # ------------------------------------------------------------ reads

    def get(self, params: GetParams) -> Json:
        return state_json(self.store.load(params.session))

    def sessions(self) -> Json:
        return {"sessions": [session_info_json(plan) for plan in self.store.sessions()]}

    def export(self, params: ExportParams) -> Json:
        plan = self.store.load(params.session)
        if params.format == "json":
            return {"text": json.dumps(state_json(plan), indent=2, ensure_ascii=False) + "\n"}
        return {"text": to_markdown(plan)}

    def context(self, params: ContextParams) -> Json:
        rounds, user_changes = self.store.context_round(params.session)
        plan = self.store.load(params.session)
        ctx = context_text(plan, rounds, user_changes, self.settings.reminder_after_rounds)
        return {"text": ctx.text, "reminder": ctx.reminder}

    def user_changes(self, session: str) -> list[str]:
        """What a person changed in the session since the agent last looked, once: for
        agents whose loop cannot call `context` (an MCP tool result carries it)."""
        return self.store.context_round(session)[1]

    # ------------------------------------------------------------ changes

    def apply(self, params: ApplyParams, request: Json) -> Outcome:
        def run(plan: Plan, now: str) -> list[str]:
            return apply_ops(plan, params.ops, self.settings, now)

        return self._change(
            "plansight/apply", params.session, params.origin, request, params.base_version, run
        )

    def write(self, params: WriteParams, request: Json) -> Outcome:
        def run(plan: Plan, now: str) -> list[str]:
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
        def run(plan: Plan, now: str) -> list[str]:
            plan.phases = []
            return []

        return self._change("plansight/clear", params.session, params.origin, request, None, run)

    def import_markdown(self, params: ImportParams, request: Json) -> Outcome:
        def run(plan: Plan, now: str) -> list[str]:
            return import_markdown(plan, params.markdown, self.settings, now)

        return self._change("plansight/import", params.session, params.origin, request, None, run)

    def _change(
        self,
        method: str,
        session: str,
        origin: Origin,
        request: Json,
        base_version: int | None,
        run: Callable[[Plan, str], list[str]],
        always_updated: bool = False,
    ) -> Outcome:
        with self.store.edit(session, origin, self.settings.max_sessions) as edit:
            plan = edit.plan
            if base_version is not None and base_version != plan.version:
                raise VersionConflict(plan.version)
            before = plan.fingerprint()
            statuses = {task.id: task.status for task in plan.tasks()}
            stamps = _stamps(plan)
            changes_before = snapshot(plan) if origin == "user" else None
            now = utc_now()
            errors = run(plan, now)
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
            if changed:
                changes = (
                    describe_changes(changes_before, plan) if changes_before is not None else []
                )
                edit.commit(ChangeEvent(origin, method, request, completed, changes))
        headline = "Todo list updated" if changed or always_updated else "Todo list unchanged"
        result = state_json(plan)
        result.update(
            summary=summarize(plan, errors, headline),
            errors=errors,
            isError=bool(errors),
            completedTasks=completed,
            changed=changed,
        )
        return Outcome(result, changed, origin, completed, plan)


Stamps = tuple[int, dict[str, tuple[str, str | None, str | None]]]


def _stamps(plan: Plan) -> Stamps:
    """What a change can move that the fingerprint does not see."""
    times = {t.id: (t.updated_at, t.started_at, t.completed_at) for t in plan.tasks()}
    return plan.next_id, times


def _restore(plan: Plan, stamps: Stamps) -> None:
    plan.next_id, times = stamps
    for task in plan.tasks():
        task.updated_at, task.started_at, task.completed_at = times[task.id]
