"""Every request of the contract, run against a store: the one place the core, the store
and the wire meet. The language server, the CLI and the MCP server all go through here."""

from __future__ import annotations

import dataclasses
import json

from plansight.agents import read_payload
from plansight.agents.taskmaster import checklist_of
from plansight.context_round import context_round
from plansight.core.changes import LoggedChange, describe_changes, snapshot
from plansight.core.context import ContextText, change_phrases
from plansight.core.errors import FieldError, RequestRefused
from plansight.core.fences import unfenced
from plansight.core.importing import replace_from_markdown
from plansight.core.incoming import MarkdownPlan, Replacement
from plansight.core.ingest import ingest
from plansight.core.limits import title_problem
from plansight.core.markdown import to_markdown
from plansight.core.model import Origin, Plan
from plansight.core.netchange import held_changes, person_changes
from plansight.core.ops import apply_ops
from plansight.core.record import EMPTY_RECORD, Record, plan_from_record, plan_record
from plansight.core.replace import replace_tasks
from plansight.core.settings import Settings
from plansight.core.steering import KEPT_LINE, Steering
from plansight.core.undo import NOTHING_TO_UNDO, undo_target
from plansight.core.write import write_todos
from plansight.pipeline import ChangePipeline, Outcome, Run, whole_list
from plansight.policies import (
    APPLY,
    APPLY_INIT,
    CLEAR,
    FORK,
    IMPORT,
    INGEST_CHECKLIST,
    INGEST_EVENTS,
    INGEST_LIST,
    RESTORE,
    UNDO,
    WRITE,
    ChangeCall,
    ChangePolicy,
)
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
from plansight.store.base import SESSION_LIMIT, SessionSummary, TodoStore
from plansight.store.copying import CopyReport, copy_sessions
from plansight.store.rules import history_lists
from plansight.wire import Json, session_info_json, state_json

# The faces take a change's answer from here, as the service's.
__all__ = ["HISTORY_LIMIT", "Outcome", "PlanService"]

# `history` without a `limit`: every change whose plan is stored.
HISTORY_LIMIT = 1000
# What a forked conversation's copy of the plan is titled after (`PlanService.fork`).
FORK_SUFFIX = " (fork)"


class PlanService:
    def __init__(
        self, store: TodoStore, settings: Settings | None = None, session_limit: int = SESSION_LIMIT
    ) -> None:
        self.store = store
        # Every changing request runs through it, with the agent's view of each session
        # (the plan each agent last saw, as this service committed it: a merge from it
        # reads no history).
        self._changes = ChangePipeline(store, settings or Settings(), session_limit)

    @property
    def settings(self) -> Settings:
        return self._changes.settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self._changes.settings = settings  # the language server's, when a client's change

    @property
    def session_limit(self) -> int:
        """How many sessions the store holds: a property of the store, not of a client."""
        return self._changes.session_limit

    @session_limit.setter
    def session_limit(self, limit: int) -> None:
        self._changes.session_limit = limit

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
        changes its history holds."""
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

    def person_news(self, session: str, outcome: Outcome) -> tuple[str | None, list[str]]:
        """What the answer to an agent's change tells it of a person's changes, once: the
        Kept line, and the other changes since it last looked. A whole list's Kept line is
        its merge's. Ops (Claude Code's Task tools, `todo`) were not merged against the
        person's changes, and the agent's own list never hears of them (Claude Code keeps
        its tasks itself): those since it last looked that the plan still holds (its op
        did not undo them) are its Kept line, worded as a merge's."""
        if outcome.whole_list or outcome.kept_line is not None:
            return outcome.kept_line, self.person_changes(session)
        logged = self.store.unseen_changes(session)
        if not logged:
            return None, []
        now = self.store.load(session)
        held, others = held_changes(
            logged, lambda version: self.store.snapshot(session, version), now
        )
        return (unfenced(KEPT_LINE + change_phrases(held)) if held else None), others

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
    # Each request names its policy (`policies.py`), its call's facts and its run; the
    # pipeline (`pipeline.py`) does the rest.

    def apply(self, params: ApplyParams, request: Json) -> Outcome:
        settings = self._settings_for(params.origin)

        def run(
            plan: Plan, now: str, auto_started: list[str], steering: Steering | None
        ) -> list[str]:
            return apply_ops(plan, params.ops, settings, now, auto_started, steering)

        # An `init` op sends the whole list.
        policy = APPLY_INIT if any(op.op == "init" for op in params.ops) else APPLY
        return self._changes.change(
            policy, ChangeCall(params.session, params.origin, request, params.base_version), run
        )

    def write(self, params: WriteParams, request: Json) -> Outcome:
        def replace(plan: Plan, now: str) -> list[str]:
            write_todos(plan, params.todos, self.settings, now)
            return []

        call = ChangeCall(
            params.session, params.origin, request, params.base_version, merge=params.merge
        )
        return self._changes.change(WRITE, call, whole_list(replace, None, refused_at="todos"))

    def clear(self, params: ClearParams, request: Json) -> Outcome:
        def run(
            plan: Plan, now: str, auto_started: list[str], steering: Steering | None
        ) -> list[str]:
            plan.phases = []
            return []

        return self._changes.change(CLEAR, ChangeCall(params.session, params.origin, request), run)

    def _settings_for(self, origin: Origin) -> Settings:
        """Only an agent's change may make the server start a task."""
        if origin == "agent" or not self.settings.auto_start:
            return self.settings
        return dataclasses.replace(self.settings, auto_start=False)

    def import_markdown(self, params: ImportParams, request: Json) -> Outcome:
        settings = self._settings_for(params.origin)
        markdown = checklist_of(params.markdown)  # a Taskmaster tasks.json, or markdown

        # A person's document: a line edited where it stands keeps its task (its id, notes).
        in_place = params.origin == "user"

        def replace(plan: Plan, now: str) -> list[str]:
            return replace_from_markdown(plan, markdown, settings, now, edits_in_place=in_place)

        call = ChangeCall(
            params.session, params.origin, request, params.base_version, merge=params.merge
        )
        return self._changes.change(IMPORT, call, whole_list(replace, settings.auto_start))

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

        return self._changes.change(
            RESTORE, ChangeCall(params.session, params.origin, request), run
        )

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

        return self._changes.change(FORK, ChangeCall(session, "agent", request), run)

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

        return self._changes.change(UNDO, ChangeCall(params.session, params.origin, request), run)

    def _undo_record(self, session: str) -> Record | None:
        """The plan an undo of `session` brings back, or None: nothing to undo."""
        target = undo_target(self.store.history(session, HISTORY_LIMIT))
        if target is None:
            return None
        return EMPTY_RECORD if target == 0 else self.store.snapshot(session, target)

    def ingest(
        self,
        params: IngestParams,
        request: Json,
        unheard: bool = False,
        title_if_untitled: bool = False,
    ) -> Outcome:
        """An agent's own plan payload (`params.format`), mapped by its adapter. `unheard`:
        the answer reaches no agent (a hook event applied late), so a Kept line in it
        tells nobody (`ChangeCall.unheard`). `title_if_untitled`: `params.title` names a
        session that has no title yet (a hook's, from the conversation's first prompt),
        decided in the change's own transaction: a title set meanwhile, by a person or by
        a parallel hook of the same conversation, stays."""
        # Read before the store is touched: a payload of the wrong shape changes nothing.
        incoming = read_payload(params.format, params.payload)
        title = _clean_title(params.title, self.settings)
        settings = self._settings_for(params.origin)
        call = ChangeCall(
            params.session, params.origin, request, params.base_version, unheard=unheard
        )

        def replace(plan: Plan, now: str) -> list[str]:
            if isinstance(incoming, MarkdownPlan):
                return replace_from_markdown(
                    plan,
                    incoming.text,
                    settings,
                    now,
                    refused_at="payload.text",
                    agents_checklist=params.origin == "agent",
                )
            assert isinstance(incoming, Replacement)
            call.notices.extend(replace_tasks(plan, incoming, settings, now))
            return []

        def events(
            plan: Plan, now: str, auto_started: list[str], steering: Steering | None
        ) -> list[str]:
            done = ingest(plan, incoming, settings, now, auto_started)
            call.notices.extend(done.notices)
            return done.errors

        policy: ChangePolicy = INGEST_EVENTS
        change: Run = events
        if isinstance(incoming, MarkdownPlan):  # the one format that may auto-start
            policy, change = INGEST_CHECKLIST, whole_list(replace, settings.auto_start)
        elif isinstance(incoming, Replacement):
            policy, change = INGEST_LIST, whole_list(replace, None, refused_at="payload")

        def run(
            plan: Plan, now: str, auto_started: list[str], steering: Steering | None
        ) -> list[str]:
            errors = change(plan, now, auto_started, steering)
            if params.title is not None and not (title_if_untitled and plan.title is not None):
                plan.title = title  # it wins over a markdown `# Title`
            return errors

        return self._changes.change(policy, call, run)


def _go_back(plan: Plan, record: Record) -> None:
    """Make `plan` the plan a stored version holds (restore, undo)."""
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
