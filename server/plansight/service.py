"""Every request of the contract, run against a store: the one place the core, the store
and the wire meet. The language server, the CLI and the MCP server all go through here."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from plansight.agent_bases import AgentBases
from plansight.agents import read_payload
from plansight.context_round import context_round
from plansight.core.changes import LoggedChange, describe_changes, snapshot
from plansight.core.context import ContextText
from plansight.core.errors import FieldError, RequestRefused, VersionConflict
from plansight.core.fences import unfenced
from plansight.core.importing import replace_from_markdown
from plansight.core.incoming import MarkdownPlan, Replacement
from plansight.core.ingest import ingest
from plansight.core.limits import title_problem
from plansight.core.markdown import to_markdown
from plansight.core.model import FINISHED, STAMP_FIELDS, Origin, Plan, utc_now
from plansight.core.netchange import person_changes
from plansight.core.ops import apply_ops, normalize
from plansight.core.record import EMPTY_RECORD, Record, plan_from_record, plan_record
from plansight.core.replace import replace_tasks
from plansight.core.settings import Settings
from plansight.core.steering import Limits, Steering, steer
from plansight.core.summary import summarize
from plansight.core.undo import NOTHING_TO_UNDO, UNDO_METHOD, undo_target
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
    SessionsParams,
    UndoParams,
    WriteParams,
)
from plansight.protocol.text import clean_content
from plansight.protocol.transport import MAX_DEPTH, too_deep
from plansight.store.base import SESSION_LIMIT, ChangeEvent, SessionEdit, SessionSummary, TodoStore
from plansight.store.copying import CopyReport, copy_sessions
from plansight.store.rules import history_lists
from plansight.wire import Json, change_json, session_info_json, state_json

# `history` without a `limit`: every change whose plan is kept.
HISTORY_LIMIT = 1000
# The event log's method of a plan copied into a forked conversation's session (no
# request of the contract: the hook makes it, `PlanService.fork`), and the fork's title.
FORK_METHOD = "plansight/fork"
FORK_SUFFIX = " (fork)"


# A change of a plan: (plan, now, auto_started, steering) -> its error lines.
Run = Callable[[Plan, str, list[str], Steering | None], list[str]]


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
    # (v3) The summary's "Kept the user's changes ..." line, when a merge kept some.
    kept_line: str | None = None

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
        self, store: TodoStore, settings: Settings | None = None, session_limit: int = SESSION_LIMIT
    ) -> None:
        self.store = store
        self.settings = settings or Settings()
        self.session_limit = session_limit  # a property of the store, not of a client
        # (v3) The plan each agent last saw, as this service committed it: a merge from it
        # reads no history.
        self._bases = AgentBases()

    # ------------------------------------------------------------ the store

    @property
    def location(self) -> str:
        """Where the store is, as it may be shown (a URL without its password)."""
        return self.store.path

    def close(self) -> None:
        self.store.close()

    def copy_into(self, target: PlanService) -> CopyReport:
        """Copy every session of this store, with its history, into `target`, a team store
        (`plansight migrate`); the target then keeps its `session_limit` updated last."""
        return copy_sessions(self.store, target.store, target.session_limit)

    # ------------------------------------------------------------ reads

    def load(self, session: str) -> Plan:
        """The session as committed (empty at version 0 when unknown). Do not mutate it."""
        return self.store.load(session)

    def summaries(self) -> list[SessionSummary]:
        """Every session in brief, most recently updated first."""
        return self.store.summaries()

    def agent_session(self) -> str | None:
        """The session an agent changed last (None: no agent changed any), the plan a
        person steers from the terminal (`cli/person.py`). A person's change does not make
        a session the agent's: the newest agent-origin change of each counts, among the
        changes its history keeps."""
        best: tuple[str, str] | None = None  # (when, session)
        for summary in self.store.summaries():  # most recently updated first
            if best is not None and (summary.updated_at or "") < best[0]:
                break  # every change of this session, and of those after it, is older
            for change in self.store.history(summary.session, HISTORY_LIMIT):
                if change.origin == "agent":
                    if best is None or change.at > best[0]:
                        best = (change.at, summary.session)
                    break
        return best[1] if best else None

    def context_round(self, session: str, full: bool = False) -> tuple[ContextText, list[str]]:
        """The context text (with the service's reminder setting; `full`: the whole list)
        and the lines of what a person changed, once: one counted round."""
        return context_round(self.store, session, self.settings.reminder_after_rounds, full)

    def get(self, params: GetParams) -> Json:
        return state_json(self.store.load(params.session))

    def sessions(self, params: SessionsParams | None = None) -> Json:
        return {"sessions": [session_info_json(info) for info in self.store.summaries()]}

    def export(self, params: ExportParams) -> Json:
        plan = self.store.load(params.session)
        if params.format == "json":
            return {"text": json.dumps(state_json(plan), indent=2, ensure_ascii=False) + "\n"}
        return {"text": to_markdown(plan)}

    def context(self, params: ContextParams) -> Json:
        ctx, _ = context_round(
            self.store, params.session, self.settings.reminder_after_rounds, params.full
        )
        return {"text": ctx.text, "reminder": ctx.reminder}

    def person_changes(self, session: str) -> list[str]:
        """What a person changed in the session since the agent last looked, once: for
        agents whose loop cannot call `context` (an MCP tool result carries it)."""
        logged = self.store.unseen_changes(session)
        return person_changes(logged, lambda version: self.store.snapshot(session, version))

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
        settings = self._settings_for(params.origin)
        has_init = any(op.op == "init" for op in params.ops)

        def run(
            plan: Plan, now: str, auto_started: list[str], steering: Steering | None
        ) -> list[str]:
            return apply_ops(plan, params.ops, settings, now, auto_started, steering)

        return self._change(
            "plansight/apply",
            params.session,
            params.origin,
            request,
            params.base_version,
            run,
            steered=has_init,
        )

    def write(self, params: WriteParams, request: Json) -> Outcome:
        def replace(plan: Plan, now: str) -> list[str]:
            write_todos(plan, params.todos, self.settings, now)
            return []

        # A TodoWrite caller always hears "updated", as Claude Code's tool says it.
        return self._change(
            "plansight/write",
            params.session,
            params.origin,
            request,
            params.base_version,
            self._full_replacement(replace, None, refused_at="todos"),
            always_updated=True,
            steered=True,
            merge=params.merge,
            anew=True,
        )

    def clear(self, params: ClearParams, request: Json) -> Outcome:
        def run(
            plan: Plan, now: str, auto_started: list[str], steering: Steering | None
        ) -> list[str]:
            plan.phases = []
            return []

        return self._change("plansight/clear", params.session, params.origin, request, None, run)

    def _settings_for(self, origin: Origin) -> Settings:
        """(v3) Only an agent's change may make the server start a task."""
        if origin == "agent" or not self.settings.auto_start:
            return self.settings
        return dataclasses.replace(self.settings, auto_start=False)

    def _full_replacement(
        self,
        replace: Callable[[Plan, str], list[str]],
        auto_start: bool | None,
        refused_at: str | None = None,
    ) -> Run:
        """A request that sends the whole list: `replace` (the v2 replacement, refusing by
        raising or by returning error lines), then normalization (`auto_start` None: none,
        as `write` and agents' formats had in v2). With `steering`, the replacement runs
        on a copy of the sender's base and is merged (`core.steering`); the merged plan is
        then normalized, one task in progress per owner at least (rule 6). A merge that
        would pass a limit changes nothing: refused as the list would be (InvalidParams at
        `refused_at`, for the strict requests), else an error line as `import` has."""

        def run(
            plan: Plan, now: str, auto_started: list[str], steering: Steering | None
        ) -> list[str]:
            if steering is None:
                errors = replace(plan, now)
            else:
                errors = steer(plan, steering, lambda mine: replace(mine, now), now)
                if errors and refused_at is not None:
                    raise RequestRefused([FieldError(refused_at, line) for line in errors])
            if errors or (steering is not None and steering.conflicts):
                return errors
            if auto_start is not None or steering is not None:
                started = normalize(plan, bool(auto_start), now)
                if started is not None:
                    auto_started.append(started.id)
            return []

        return run

    def _agent_steering(self, edit: SessionEdit) -> Steering | None:
        """How an agent's whole list is merged: from the plan at the version it last saw
        (its base). None, v2 exactly and no history read, when it saw the current version
        and no task is a person's (the fast path)."""
        plan = edit.plan
        if edit.agent_base >= plan.version:
            if not any(task.created_by == "user" for task in plan.tasks()):
                return None
            return Steering(None)
        if edit.agent_base <= 0:
            return Steering(Plan(plan.session))  # it saw nothing: the empty plan
        kept = self._bases.base(plan, edit.agent_base)
        if kept is not None:
            return Steering(kept)
        record = self.store.snapshot(plan.session, edit.agent_base)
        if record is None:
            # The history no longer keeps it: the current plan stands for the base, and a
            # person's tasks are still never removed (rule 4).
            return Steering(None)
        return Steering(plan_from_record(plan.session, record))

    def _stale_edit(self, plan: Plan, base_version: int) -> Steering:
        """A person's stale whole list (`merge: true`): merged from the plan at
        `base_version`, or refused when the history no longer lists it."""
        record = self.store.snapshot(plan.session, base_version) if base_version > 0 else None
        if record is None:
            raise VersionConflict(plan.version)
        return Steering(plan_from_record(plan.session, record), agent=False)

    def import_markdown(self, params: ImportParams, request: Json) -> Outcome:
        settings = self._settings_for(params.origin)

        def replace(plan: Plan, now: str) -> list[str]:
            return replace_from_markdown(plan, params.markdown, settings, now)

        return self._change(
            "plansight/import",
            params.session,
            params.origin,
            request,
            params.base_version,
            self._full_replacement(replace, settings.auto_start),
            steered=True,
            merge=params.merge,
            anew=True,
        )

    def restore(self, params: RestoreParams, request: Json) -> Outcome:
        def run(
            plan: Plan, now: str, auto_started: list[str], steering: Steering | None
        ) -> list[str]:
            listed = history_lists(params.version, plan.version)
            record = self.store.snapshot(params.session, params.version) if listed else None
            if record is None:
                raise RequestRefused(
                    [
                        FieldError(
                            "version",
                            f"Version {params.version} is not in the history of this session",
                        )
                    ]
                )
            _go_back(plan, record)
            return []

        return self._change("plansight/restore", params.session, params.origin, request, None, run)

    def fork(self, parent: str, session: str, request: Json) -> Outcome:
        """Make the empty `session` a copy of `parent`'s plan as it is now (its tasks with
        their ids, statuses, notes, files and agent ids), titled "<title> (fork)": an agent
        conversation forked from another goes on from the plan it forked, on its own. A
        `session` that has a plan already is left as it is (the fork was heard before)."""
        source = plan_record(self.store.load(parent))
        forked = self.settings.max_title_length - len(FORK_SUFFIX)
        title = source.get("title")
        title = f"{title[:forked].rstrip()}{FORK_SUFFIX}" if isinstance(title, str) else None

        def run(
            plan: Plan, now: str, auto_started: list[str], steering: Steering | None
        ) -> list[str]:
            if plan.is_empty() and plan.title is None:
                _go_back(plan, source)
                plan.title = title
            return []

        return self._change(FORK_METHOD, session, "agent", request, None, run)

    def undo(self, params: UndoParams, request: Json) -> Outcome:
        """One step back, as an editor's undo: a second undo right after steps back one
        more change (`core.undo` reads the undo point from the history)."""

        def run(
            plan: Plan, now: str, auto_started: list[str], steering: Steering | None
        ) -> list[str]:
            # Read inside the edit: two undos at once step back two changes, not one twice.
            record = self._undo_record(params.session)
            if record is None:
                return [NOTHING_TO_UNDO]
            _go_back(plan, record)
            return []

        return self._change(UNDO_METHOD, params.session, params.origin, request, None, run)

    def _undo_record(self, session: str) -> Record | None:
        """The plan an undo of `session` brings back, or None: nothing to undo."""
        target = undo_target(self.store.history(session, HISTORY_LIMIT))
        if target is None:
            return None
        return EMPTY_RECORD if target == 0 else self.store.snapshot(session, target)

    def ingest(self, params: IngestParams, request: Json, unheard: bool = False) -> Outcome:
        """An agent's own plan payload (`params.format`), mapped by its adapter. `unheard`:
        the answer reaches no agent (a hook event applied late), so a Kept line in it
        tells nobody (`SessionEdit.unheard`)."""
        # Read before the store is touched: a payload of the wrong shape changes nothing.
        incoming = read_payload(params.format, params.payload)
        title = _clean_title(params.title, self.settings)
        settings = self._settings_for(params.origin)
        notices: list[str] = []

        def replace(plan: Plan, now: str) -> list[str]:
            if isinstance(incoming, MarkdownPlan):
                return replace_from_markdown(plan, incoming.text, settings, now)
            assert isinstance(incoming, Replacement)
            notices.extend(replace_tasks(plan, incoming, settings, now))
            return []

        whole = isinstance(incoming, Replacement | MarkdownPlan)
        # The one format that may auto-start: a checklist imports as `import` does.
        markdown = isinstance(incoming, MarkdownPlan)
        replaced = self._full_replacement(
            replace,
            settings.auto_start if markdown else None,
            refused_at=None if markdown else "payload",
        )

        def run(
            plan: Plan, now: str, auto_started: list[str], steering: Steering | None
        ) -> list[str]:
            if whole:
                errors = replaced(plan, now, auto_started, steering)
            else:
                done = ingest(plan, incoming, settings, now, auto_started)
                notices.extend(done.notices)
                errors = done.errors
            if params.title is not None:  # it wins over a markdown `# Title`
                plan.title = title
            return errors

        return self._change(
            "plansight/ingest",
            params.session,
            params.origin,
            request,
            params.base_version,
            run,
            always_updated=isinstance(incoming, Replacement),
            notices=notices,
            steered=whole,
            anew=whole,
            unheard=unheard,
        )

    def _change(
        self,
        method: str,
        session: str,
        origin: Origin,
        request: Json,
        base_version: int | None,
        run: Run,
        always_updated: bool = False,
        notices: list[str] | None = None,
        steered: bool = False,
        merge: bool = False,
        anew: bool = False,
        unheard: bool = False,
    ) -> Outcome:
        """`run(plan, now, auto_started, steering)` changes the plan and returns its error
        lines; it adds to `auto_started` the ids of tasks the server started by itself (not
        a person's doing, whatever the origin). `steered`: the request may send a whole
        list, which `steering` merges (v3) when an agent's list is stale or a person's
        stale edit asks to be merged (`merge`). `anew`: `run` replaces the whole list with
        new Task objects (it changes none of the tasks it finds)."""
        deep = too_deep(request)
        if deep is not None:  # the event log keeps the request: bounded, as JSON can write it
            raise RequestRefused([FieldError(deep, f"nested deeper than {MAX_DEPTH} levels")])
        with self.store.edit(session, origin, self.session_limit) as edit:
            plan = edit.plan
            plan.creator = origin
            steering: Steering | None = None
            if base_version is not None and base_version != plan.version:
                if not (merge and origin == "user" and base_version < plan.version):
                    raise VersionConflict(plan.version)
                steering = self._stale_edit(plan, base_version)
            elif steered and origin == "agent":
                steering = self._agent_steering(edit)
            if steering is not None:  # a merge never passes the limits
                steering.limits = Limits(self.settings.max_tasks, self.settings.max_phases)
            if not (anew and steering is None):
                # The tasks may change in place: the agent's kept base takes its own.
                self._bases.before_change(session)
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
            errors = run(plan, now, auto_started, steering)
            if steering is not None and steering.conflicts:
                conflicts = [
                    {"id": c.id, "content": c.content, "field": c.field} for c in steering.conflicts
                ]
                raise VersionConflict(plan.version, conflicts)
            kept_line = steering.kept_line if steering is not None and steering.agent else None
            # Telling the agent what was kept brings its view up to date (its base moves).
            edit.told = kept_line is not None and not unheard
            edit.unheard = kept_line is not None and unheard
            # (v4) Any answer to the agent's whole list shows it the version it leaves,
            # committed or not: its base moves there (not for an answer nobody reads).
            edit.seen = (
                steered
                and origin == "agent"
                and not unheard
                and (steering is None or steering.taken)
            )
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
                    ChangeEvent(
                        origin,
                        method,
                        request,
                        completed,
                        changes,
                        removed,
                        auto_started,
                        edit.agent_base,
                    )
                )
        moved = steered and origin == "agent" and (changed or edit.told or edit.seen)
        if moved and not edit.unheard:
            self._bases.keep(plan)  # the agent's base moved to this version
        headline = "Todo list updated" if changed or always_updated else "Todo list unchanged"
        # What the Kept line and the notices quote is plan text too (`core/fences.py`).
        kept_line = unfenced(kept_line) if kept_line is not None else None
        told = [kept_line] if kept_line is not None else []
        summary = unfenced(
            _with_notices(summarize(plan, errors, headline, removed), told + (notices or []))
        )
        return Outcome(plan, summary, errors, changed, origin, completed, removed, kept_line)


def _go_back(plan: Plan, record: Record) -> None:
    """Make `plan` the plan a kept version holds (restore, undo)."""
    old = plan_from_record(plan.session, record)
    plan.title = old.title
    plan.phases = old.phases
    # An id never names two tasks: the counter does not go back.
    plan.next_id = max(plan.next_id, old.next_id)


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
