"""The hook's dealings with the plan store: ingest a plan tool call, add edited files to
the task in progress, read the context an agent is told.

The store is the one of the event's `cwd` (its workspace root, as every Plansight command
finds it; `PLANSIGHT_DB` overrides). It is opened with a short lock wait: a hook gives up
rather than keep the agent waiting. A change the store refused for a fault that passes
(busy, out of reach) leaves as `NotStoredYet`, and is spooled; any other storage fault
leaves as the store's StoreError, which the hook logs as giving up.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

from plansight.paths import workspace_root
from plansight.protocol.shape import WireShape

if TYPE_CHECKING:
    from plansight.core.errors import RequestRefused
    from plansight.protocol.requests import Format
    from plansight.service import PlanService


# A store another process keeps locked is given up on after 0.5 s: a few hooks of one
# agent writing at once (parallel tool calls) each hold it for milliseconds, and a run on
# an idle machine takes 40 to 250 ms. (Here, not in `hook/run.py`, which imports this
# module: the two would import each other.)
STORE_BUSY_SECONDS = 0.5


# Faults that pass: a lock held too long, a team store out of reach (a network, a VPN,
# a restart). An event they refuse is spooled; a read-only store or a full disk is the
# person's to change, and the event is given up on as before.
PASSING_FAULTS = frozenset({"busy", "unavailable"})


class NotStoredYet(Exception):
    """The store refused the change before anything was written, for a fault that passes
    (`PASSING_FAULTS`): the event can be spooled and applied later (`hook/spool.py`)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@contextmanager
def _before_commit() -> Iterator[None]:
    """A store fault here has written nothing (`StoreError`: nothing was changed)."""
    from plansight.store.store_error import StoreError

    try:
        yield
    except StoreError as exc:
        if exc.reason in PASSING_FAULTS:
            raise NotStoredYet(exc.reason, str(exc)) from None
        raise


def _service(cwd: str) -> PlanService:
    """The service over the store of `cwd`'s workspace, opened as every face opens it
    (`open_store`): `PLANSIGHT_DB` may be a file or a team store's `postgresql://` URL."""
    from plansight.service import PlanService
    from plansight.store import open_store
    from plansight.store.location import store_location

    root = workspace_root(cwd)
    store = open_store(store_location(None, root), root, None, busy_seconds=STORE_BUSY_SECONDS)
    return PlanService(store)


def ingest_plan(
    cwd: str, session: str, fmt: Format, payload: Any, title: str | None, heard: bool = True
) -> tuple[str, str | None]:
    """Ingest one plan tool call into `session`. Returns what happened, for the log, and
    what to tell the agent with its tool's result: the summary's line of the person's
    changes the merge kept (fenced), and what else a person changed since the agent last
    looked. `title` is set only on a session that has none yet.

    The request is made here, not validated from JSON: the hook checks its few values by
    hand (the session name as the contract cleans it, a payload that is an object), so no
    validator is built on the agent's time. Not `heard`: a spooled event applied late,
    whose answer reaches no agent, so nothing counts as told (it is told later)."""
    from plansight.core.context import person_change_reminder
    from plansight.core.errors import RequestRefused
    from plansight.protocol.requests import IngestParams

    if not isinstance(payload, dict):
        return "refused (payload: not a JSON object)", None
    with _before_commit():
        service = _service(cwd)
    try:
        try:
            with _before_commit():
                params = IngestParams(session=session, format=fmt, payload=payload, title=title)
                outcome = service.ingest(
                    params, _logged(params), unheard=not heard, title_if_untitled=True
                )
        except RequestRefused as exc:
            # The agent's own tool accepted it; Plansight refusing it must not hurt the agent.
            return f"refused ({_reason(exc)})", None
        done = f"version {outcome.plan.version}" + (
            f" errors {outcome.errors}" if outcome.errors else ""
        )
        if not heard:
            return done + (" kept, to be told" if outcome.kept_line else ""), None
        # Looked at after the ingest: a look before would count as telling the agent,
        # so its list, made before it was told, would not be merged from the base it was
        # made from. Counted as no round: a plan tool call is never a reason to remind it.
        # The Kept line counts as telling the person's changes it names: not said twice.
        # Ops (Claude Code's Task tools) get a Kept line too: the person's changes since
        # that the plan still holds, which Claude Code's own task list never has.
        kept, changes = service.person_news(session, outcome)
        told = [kept_reminder(kept)] if kept is not None else []
        if changes:
            # What a person changed, and nothing of the plan's state: the agent's other
            # plan tool calls of the same step (their hooks run at once) may commit after
            # this answer is made and before it is read, so "No task is in progress" or a
            # count may be false by then; what a person did stays true (issue 29).
            told.append(person_change_reminder(changes))
        return done + (" kept" if kept else ""), "\n".join(told) or None
    finally:
        service.close()


def add_files(cwd: str, session: str, paths: list[str]) -> str:
    """Add the workspace-relative form of `paths` to the files of the session's task in
    progress (the `update` op's `addFiles`); returns what happened, for the log."""
    from plansight.hook.files import workspace_relative

    relative = workspace_relative(paths, cwd, str(workspace_root(cwd)))
    if not relative:
        return "no file in the workspace"
    with _before_commit():
        service = _service(cwd)
    try:
        with _before_commit():
            current = service.load(session).current()
            if current is None:
                return "no task in progress"
            from plansight.protocol.requests import ApplyParams, UpdateOp

            update = UpdateOp.named_fields(op="update", id=current.id, add_files=relative)
            params = ApplyParams(session=session, ops=[update])
            outcome = service.apply(params, _logged(params))
        return f"files of {current.id}: version {outcome.plan.version}"
    finally:
        service.close()


def context_for_agent(cwd: str, session: str, always: bool, whole: bool = False) -> str | None:
    """The `plansight/context` text when a person changed the plan since the agent last
    looked or the reminder is due (or `always`, for a plan that is not empty), else None;
    `whole`: the text of `context` with `full: true`, every task, for a context that lost
    the plan. Reads the store through the service: no models to build on a planned
    session's prompt."""
    service = _service(cwd)  # the default settings: the reminder every 3 rounds
    try:
        context, changes = service.context_round(session, full=whole)
        if changes or context.reminder or (always and not service.load(session).is_empty()):
            return context.text
        return None
    finally:
        service.close()


def unfinished_plan(cwd: str, session: str) -> bool:
    """Whether `session` has a task that is neither completed nor abandoned."""
    from plansight.core.model import FINISHED

    service = _service(cwd)
    try:
        return any(task.status not in FINISHED for task in service.load(session).tasks())
    finally:
        service.close()


def is_planned(cwd: str, session: str) -> bool:
    """Whether `session` has a task."""
    service = _service(cwd)
    try:
        return not service.load(session).is_empty()
    finally:
        service.close()


def fork_plan(cwd: str, parent: str, session: str) -> str:
    """Copy `parent`'s plan into the empty `session` (`PlanService.fork`); returns what
    happened, for the log. A store fault leaves as NotStoredYet or StoreError: nothing
    was written."""
    with _before_commit():
        service = _service(cwd)
    try:
        with _before_commit():
            request = {"parent": parent, "session": session}
            outcome = service.fork(parent, session, request)
        return f"forked {parent}: version {outcome.plan.version}"
    finally:
        service.close()


def kept_reminder(line: str) -> str:
    """The Kept line, whole, fenced as the hook's other context is, with what to do."""
    return (
        f"<system-reminder>{line}. Your todo list has them now: keep them when you next"
        " update it, and do not undo them.</system-reminder>"
    )


def _logged(params: WireShape) -> dict[str, Any]:
    """The request as the event log holds it: the JSON a client would have sent."""
    return cast(dict[str, Any], json.loads(json.dumps(params, default=WireShape.sent)))


def _reason(exc: RequestRefused) -> str:
    return exc.message
