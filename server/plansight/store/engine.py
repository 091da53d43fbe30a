"""The steps of a change's transaction, written once for every backend.

A backend is a dialect: it opens the write transaction and locks the session (SQLite's
`BEGIN IMMEDIATE`, PostgreSQL's `SELECT ... FOR UPDATE` on the session's row), says each
step below in its own SQL on its own connection, commits or rolls back, announces the
change (PostgreSQL's NOTIFY; SQLite's watchers see the file move) and turns its faults
into `StoreError`. The engine decides the steps and their order, the same for all:

1. lock the session and take its copy (the rows it was last written as);
2. hand it out for the edit (`PendingEdit`);
3. on a committed change: stamp the version, write the session's head, its phases and
   the task rows that differ, log the event with the plan kept for history (whole or
   a change against the version before, `rules.stores_whole_plan`), let go of the plans
   no stored version needs (`rules.plans_let_go`), announce it, and prune the sessions
   beyond those a store holds when the session is new;
4. move the agent's base and its seen cursor and context rounds as the edit says
   (`PendingEdit.moves_base`, `.cursor`, set by the service: `agent_view.py` decides;
   with nothing committed, only the session row's `agent_base`: no version, no event,
   no push);
5. commit; then the backend's own bookkeeping (copies cached, watchers told of prunes).

A `context` round (and an MCP reply that carries what a person changed) runs its own
steps in its own transaction (`count_round`): the cursor read, the changes after it, the
cursor moved to the session's version and the agent's base with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from plansight.checkouts import Checkout, checkout_text
from plansight.core.changes import LoggedChange
from plansight.core.model import Origin, Plan, utc_now
from plansight.core.record import Record
from plansight.store import rows
from plansight.store.base import ChangeEvent, PendingEdit, SeenCursor
from plansight.store.rules import (
    agents_own_change,
    plans_let_go,
    stamp_commit,
    stores_whole_plan,
)
from plansight.store.session_cache import SessionCopy
from plansight.store.snapshots import change_record


class _Keep(Enum):
    CHECKOUT = "keep"


# `WriteSteps.write_head`: the session's checkout stays as it was (a person's change).
KEEP_CHECKOUT = _Keep.CHECKOUT
Checked = str | None | _Keep  # a checkout's text, none, or KEEP_CHECKOUT


@dataclass(slots=True)
class Locked:
    """A session locked for change, as the write transaction read it."""

    copy: SessionCopy
    agent_base: int  # the version its agent last saw (0: never)
    new: bool  # no version committed yet: the commit makes it
    last_plan_stored: bool  # its newest version's plan is kept: a change can be kept against it


@dataclass(slots=True)
class Written:
    """What a write transaction did, for the backend's bookkeeping after it."""

    session: str
    copy: SessionCopy | None = None  # None until the session was locked
    committed: bool = False  # a new version was written
    pruned: list[str] = field(default_factory=list)  # sessions pruned to make room


class WriteSteps(Protocol):
    """One write transaction of a backend: each step in its SQL, on its connection."""

    def lock(self, session: str) -> Locked:
        """Lock `session` against other writers and read it (a new one included)."""

    def batch(self) -> AbstractContextManager[None]:
        """The steps that follow, sent together where the backend can (one round trip)."""

    def write_head(
        self, plan: Plan, agent_base: int, now: str, new: bool, checkout: Checked
    ) -> None:
        """The session's row: version, next id, title, update time, agent base, and the
        checkout (`checkouts.checkout_text`) of an agent's change (`KEEP_CHECKOUT`: as it
        was, a person's change). One statement: it was a second `UPDATE` of the row."""

    def write_phases(self, session: str, names: list[str]) -> None:
        """The phases' names in order, replacing those written before."""

    def delete_tasks(self, session: str, ids: list[str]) -> None: ...

    def upsert_tasks(self, session: str, task_rows: list[rows.TaskRow]) -> None: ...

    def log_event(self, row: rows.EventRow) -> None:
        """Append an event row (`rows.EVENT_COLUMNS`)."""

    def let_plans_go(self, session: str, first: int, last: int) -> None:
        """Forget the plans kept with versions `first` to `last` (the events stay)."""

    def set_agent_base(self, session: str, version: int) -> None: ...

    def drop_unborn(self, session: str) -> None:
        """A new session's lock when nothing was committed: nothing of it may stay."""

    def reset_rounds(self, session: str) -> None:
        """The session's `context` rounds start again."""

    def mark_told(self, session: str, version: int) -> None:
        """Every change up to `version` counts as told to the agent; rounds start again."""

    def mark_seen_by_agent(self, session: str, version: int) -> None:
        """The agent's own change at `version` is no news to it: seen up to it unless a
        person's change waits to be told; rounds start again."""

    def announce(self, session: str, version: int) -> None:
        """Tell other processes, at commit, that `session` is at `version`."""

    def prune(self, keep: str, max_sessions: int) -> list[str]:
        """Drop the sessions beyond the `max_sessions` updated last (`keep` among them)
        with their history and context rounds; returns their names."""


class RoundSteps(Protocol):
    """A `context` round's steps, in a backend's SQL, inside its write transaction."""

    def head_version(self, session: str) -> int | None:
        """The session's version (None: it does not exist), behind any writer of it."""

    def seen_cursor(self, session: str) -> tuple[int, int]:
        """The session's consecutive `context` rounds and its seen version (0, 0: none)."""

    def changes_after(self, session: str, version: int) -> list[LoggedChange]:
        """The session's changes after `version`, oldest first."""

    def write_cursor(self, session: str, rounds: int, version: int) -> None:
        """The rounds and the seen version; the agent's base moves to `version` too."""


class Dialect(Protocol):
    """A backend as the engine drives it: its transactions and its bookkeeping."""

    writer: str  # tells this store's commits from other processes'
    checkout: Checkout | None  # the git checkout of the process's root (`open_store`)

    def writing(self, written: Written) -> AbstractContextManager[WriteSteps]:
        """A write transaction: committed when the block is left, rolled back (and
        `written` forgotten) by an exception; faults leave as `StoreError`."""

    def after_commit(self, written: Written) -> None:
        """The backend's bookkeeping once `written` is committed."""


class StoreEngine:
    """Runs a change's transaction over a dialect, step by step (see the module)."""

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect

    @contextmanager
    def edit(self, session: str, origin: Origin, max_sessions: int) -> Iterator[PendingEdit]:
        """`TodoStore.edit`. Whose change it is does not move the agent's base or seen
        cursor by itself: the edit says that (`moves_base`, `cursor`)."""
        written = Written(session)
        with self._dialect.writing(written) as steps:
            locked = steps.lock(session)
            written.copy = locked.copy
            edit = PendingEdit(locked.copy.plan, locked.agent_base)
            yield edit
            # The session's checkout: that of its last agent change.
            checkout = (
                checkout_text(self._dialect.checkout)
                if agents_own_change(origin)
                else KEEP_CHECKOUT
            )
            with steps.batch():
                self._finish(steps, locked, edit, max_sessions, written, checkout)
        self._dialect.after_commit(written)

    @staticmethod
    def count_round(
        steps: RoundSteps, session: str, count: bool, keep: bool
    ) -> tuple[int, list[LoggedChange]]:
        """Mark the session's changes seen (with `count`, one more round): returns the
        rounds and the changes the agent had not heard of. Without `keep` (a store that
        cannot be written) nothing is written; a session that does not exist gets no
        row either: reading creates nothing."""
        head = steps.head_version(session)
        rounds, seen = steps.seen_cursor(session)
        if count:
            rounds += 1
        logged = steps.changes_after(session, seen)
        if head is not None and keep:
            # The agent is told (or has seen) the session as it is now.
            steps.write_cursor(session, rounds, head)
        return rounds, logged

    def _finish(
        self,
        steps: WriteSteps,
        locked: Locked,
        edit: PendingEdit,
        max_sessions: int,
        written: Written,
        checkout: Checked,
    ) -> None:
        session = locked.copy.plan.session
        committed = edit.event is not None
        # The version the edit leaves, or the base where it was.
        base_after = locked.copy.plan.version + committed if edit.moves_base else edit.agent_base
        if edit.event is not None:
            written.pruned = self._write(
                steps, locked, edit.event, max_sessions, base_after, checkout
            )
            written.committed = True
        elif base_after != locked.agent_base:
            steps.set_agent_base(session, base_after)
        elif locked.new:
            steps.drop_unborn(session)
        version = locked.copy.plan.version
        if edit.cursor is SeenCursor.TOLD:
            steps.mark_told(session, version)
        elif edit.cursor is SeenCursor.OWN_CHANGE:
            steps.mark_seen_by_agent(session, version)
        elif edit.cursor is SeenCursor.RESTART:
            steps.reset_rounds(session)

    def _write(
        self,
        steps: WriteSteps,
        locked: Locked,
        event: ChangeEvent,
        max_sessions: int,
        agent_base: int,
        checkout: Checked,
    ) -> list[str]:
        """Write the changed plan and log `event`; returns the sessions pruned to make
        room for a new one."""
        copy = locked.copy
        plan = copy.plan
        session = plan.session
        now = utc_now()
        stamp_commit(plan, now)
        steps.write_head(plan, agent_base, now, locked.new, checkout)
        written = rows.plan_rows(plan, copy.written)
        if written.phases_changed:
            steps.write_phases(session, written.phase_names)
        if written.gone:
            steps.delete_tasks(session, written.gone)
        if written.changed:
            steps.upsert_tasks(session, written.changed)
        texts = copy.written.texts
        kept: Record | str
        if stores_whole_plan(plan.version, locked.last_plan_stored):
            kept, texts = rows.plan_text(plan, written.places, written.rows, copy.written)
        else:
            kept = change_record(
                plan.title, plan.next_id, written.phase_names, written.placed, written.gone
            )
        copy.written = rows.WrittenRows(
            written.rows, written.phase_names, written.places, written.marks, texts
        )
        entry = rows.committed_event(plan, event, self._dialect.writer, now)
        steps.log_event(rows.event_row(entry, kept))
        let_go = plans_let_go(plan.version)
        if let_go is not None:
            steps.let_plans_go(session, *let_go)
        steps.announce(session, plan.version)
        return steps.prune(session, max_sessions) if locked.new else []
