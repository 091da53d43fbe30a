"""The change pipeline: one changing request run against a store, in one transaction, as
its policy says (`policies.py`).

Its steps, the same for every request:
1. refuse a request nested too deep (the event log holds it);
2. open the session for change; the base the change is merged from (`AgentView.steering`:
   an agent's stale whole list, a person's stale list that asks to be merged);
3. note what the answer reports against (`_Before`), run the request's change (`Run`);
4. refuse a merge's conflicts; what changed, completed and was removed; commit if anything
   changed (else the times and id counter go back to what they were);
5. what the answer does to the agent's view (`AgentView.answered`), written with it;
6. the answer: the summary with the Kept line and what a lenient run repaired (`Outcome`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from plansight.agent_view import AgentView, told_line
from plansight.core.changes import describe_changes, snapshot
from plansight.core.errors import FieldError, RequestRefused, VersionConflict
from plansight.core.fences import unfenced
from plansight.core.found import CONTENT_AT, ID_AT, STATUS_AT, Found
from plansight.core.model import FINISHED, STAMP_FIELDS, Origin, Plan, Task, utc_now
from plansight.core.nesting import settle, settled_current
from plansight.core.ops import normalize
from plansight.core.settings import Settings
from plansight.core.steering import Limits, Steering, steer
from plansight.core.summary import summarize
from plansight.policies import ChangeCall, ChangePolicy
from plansight.protocol.message_limits import MAX_DEPTH, too_deep
from plansight.store.base import ChangeEvent, TodoStore
from plansight.wire import Json, change_json, state_json

# A change of a plan: (plan, now, auto_started, steering) -> its error lines. It adds to
# `auto_started` the ids of tasks the server started by itself (not a person's doing,
# whatever the origin); with `steering`, the whole list it carries is merged.
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
    # The summary's "Kept the user's changes ..." line, when a merge kept some.
    kept_line: str | None = None
    # It carried the agent's whole list (merged: its Kept line says what it lacked); else
    # ops, which the person's changes since were not merged against.
    whole_list: bool = False

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


class ChangePipeline:
    """Runs the changing requests of one service against its store (see the module)."""

    def __init__(self, store: TodoStore, settings: Settings, session_limit: int) -> None:
        self._store = store
        self.settings = settings  # as the service has them now (a client may change them)
        self.session_limit = session_limit  # sessions the store holds
        self._view = AgentView(store)

    def change(self, policy: ChangePolicy, call: ChangeCall, run: Run) -> Outcome:
        """Run `run` on the session `call` names, as `policy` says."""
        deep = too_deep(call.request)
        if deep is not None:  # the event log holds the request: bounded, as JSON can write it
            raise RequestRefused([FieldError(deep, f"nested deeper than {MAX_DEPTH} levels")])
        with self._store.edit(call.session, call.origin, self.session_limit) as edit:
            plan = edit.plan
            plan.creator = call.origin
            steering = self._view.steering(edit, policy, call)
            if steering is not None:  # a merge never passes the limits
                steering.limits = Limits(self.settings.max_tasks, self.settings.max_phases)
            self._view.before_run(call.session, policy, steering)
            before = _Before(plan, call.origin)
            now = utc_now()
            auto_started: list[str] = []
            errors = run(plan, now, auto_started, steering)
            # (v4) Whatever the request: subtasks with their parents, in document order,
            # each parent's status its subtasks'.
            settle(plan, now)
            if steering is not None and steering.conflicts:
                conflicts = [
                    {"id": c.id, "content": c.content, "field": c.field} for c in steering.conflicts
                ]
                raise VersionConflict(plan.version, conflicts)
            changed, completed, removed = before.after(plan)
            if changed:
                words = before.words(plan)
                event = ChangeEvent(
                    call.origin,
                    policy.method,
                    call.request,
                    completed,
                    words,
                    removed,
                    auto_started,
                    edit.agent_base,
                )
                edit.commit(event)
            self._view.answered(edit, policy, call, steering, changed)
        self._view.after_commit(plan, policy, edit)
        headline = (
            "Todo list updated" if changed or policy.always_updated else "Todo list unchanged"
        )
        # What the Kept line and the notices quote is plan text too (`core/fences.py`).
        kept_line = told_line(steering)
        kept_line = unfenced(kept_line) if kept_line is not None else None
        told = [kept_line] if kept_line is not None else []
        summary = unfenced(
            _with_notices(
                summarize(plan, errors, headline, removed, before.current),
                told + call.notices,
            )
        )
        return Outcome(
            plan,
            summary,
            errors,
            changed,
            call.origin,
            completed,
            removed,
            kept_line,
            policy.whole_list,
        )


def whole_list(
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

    def run(plan: Plan, now: str, auto_started: list[str], steering: Steering | None) -> list[str]:
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


class _Before:
    """The plan as a change found it, as far as its answer reports against it: what the
    change did is read from the tasks it touched when it left every task in its place,
    else from the whole plan against what was found (`core/found.py`)."""

    __slots__ = ("changes_before", "current", "found")

    def __init__(self, plan: Plan, origin: Origin) -> None:
        self.found = Found(plan)
        self.current: Task | None = None  # the plan's current task after the change
        # A person's change is told to the agent in words; history makes the words of
        # other changes when it is read, from the plans it keeps (cheaper writes).
        self.changes_before = snapshot(plan) if origin == "user" else None

    def after(self, plan: Plan) -> tuple[bool, list[dict[str, str]], list[dict[str, str]]]:
        """Whether the change changed the plan, the tasks it completed and the unfinished
        ones it removed."""
        touched = self.found.touched_in_place(plan)
        if touched is None:
            return self._after_whole(plan)
        found = self.found
        self.current = settled_current(plan)  # settled by the pipeline
        changed = (
            plan.title != found.title
            or any(task.seen() != task.found_seen for _, task in touched)
            or (self.current.id if self.current is not None else None) != found.current()
        )
        if not changed:
            # Ops may have changed a task and back: nothing is committed, so neither
            # may the times or the id counter move.
            plan.next_id = found.next_id
            for _, task in touched:
                _put_back(task, task.found_stamps)
        completed = [
            {"id": task.id, "content": task.content, "phase": phase.name}
            for phase, task in touched
            if task.status == "completed" and task.found_seen[STATUS_AT] != "completed"
        ]
        return changed, completed, []  # every task found is still there

    def _after_whole(self, plan: Plan) -> tuple[bool, list[dict[str, str]], list[dict[str, str]]]:
        """`after` read from the whole plan against the values of what was found."""
        found = self.found
        fingerprint = plan.fingerprint()
        changed = fingerprint != found.fingerprint()
        self.current = settled_current(plan)  # settled by the pipeline
        if not changed:
            # Ops may have moved a task and back, or added and removed one: nothing
            # is committed, so neither may the times or the id counter move.
            stamps = {task.found_seen[ID_AT]: task.found_stamps for _, task in found.tasks()}
            plan.next_id = found.next_id
            for task in plan.tasks():
                _put_back(task, stamps[task.id])
        statuses = {task.found_seen[ID_AT]: task.found_seen[STATUS_AT] for _, task in found.tasks()}
        completed = [
            {"id": task.id, "content": task.content, "phase": phase.name}
            for phase, task in plan.tasks_with_phase()
            if task.status == "completed" and statuses.get(task.id) != "completed"
        ]
        present = {task.id for task in plan.tasks()}
        removed = [
            {"id": seen[ID_AT], "content": seen[CONTENT_AT], "phase": name}
            for name, seen in ((name, task.found_seen) for name, task in found.tasks())
            if seen[STATUS_AT] not in FINISHED and seen[ID_AT] not in present
        ]
        return changed, completed, removed

    def words(self, plan: Plan) -> list[str]:
        """What a person's change did, in words (none for an agent's: see above)."""
        if self.changes_before is None:
            return []
        return describe_changes(self.changes_before, plan)


def _with_notices(summary: str, notices: list[str]) -> str:
    """What a lenient request repaired, said right under the progress line."""
    if not notices:
        return summary
    lines = summary.split("\n")
    at = 2 if lines[0].startswith("Errors: ") else 1
    return "\n".join(lines[:at] + notices + lines[at:])


def _put_back(task: Task, stamps: tuple[Any, ...]) -> None:
    """The task's stamps as they were (a change that changed nothing moves no time)."""
    for name, value in zip(STAMP_FIELDS, stamps, strict=True):
        if getattr(task, name) != value:
            setattr(task, name, value)
