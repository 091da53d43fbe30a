"""The store interface everything above it is written against.

A backend keeps sessions, their tasks in order, and an append-only log of every committed
change, and tells its owner about changes other processes committed. SQLite implements it
(polling `PRAGMA data_version`), and PostgreSQL (LISTEN/NOTIFY), unchanged above.

Every method may raise `plansight.store.store_error.StoreError` (with its `reason`) when the
storage cannot be used now; nothing is changed then. Reads never create anything: a
store that does not exist yet reads as empty, and the first change creates it.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from plansight.checkouts import Checkout
from plansight.core.changes import LoggedChange
from plansight.core.model import Origin, Plan, Progress, Task, progress_of

__all__ = [
    "ChangeEvent",
    "ChangeNotice",
    "LoggedChange",
    "LoggedEvent",
    "SeenCursor",
    "SessionEdit",
    "SessionSummary",
    "TodoStore",
    "summary_of",
]

# A store keeps its most recently updated sessions, this many (the contract's figure);
# older ones are pruned with their history.
SESSION_LIMIT = 200


@dataclass(slots=True)
class ChangeEvent:
    """One committed change, as the event log holds it."""

    origin: Origin
    method: str
    request: dict[str, Any]
    completed: list[dict[str, str]] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)  # what changed, in words (history)
    removed: list[dict[str, str]] = field(default_factory=list)
    auto_started: list[str] = field(default_factory=list)  # ids the server itself started
    # The version the session's agent had seen when the change was made (steering's
    # base): with it the log replays a merged change as it was made.
    agent_base: int | None = None


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """One committed change as the event log holds it, whole: for audits, replay and
    copying a session into another store (`plansight migrate`)."""

    session: str
    version: int
    origin: Origin
    method: str
    request: dict[str, Any]
    completed: list[dict[str, str]]
    changes: list[str]
    removed: list[dict[str, str]]
    auto_started: list[str]
    writer: str  # which store instance committed it
    at: str
    agent_base: int | None = None  # see ChangeEvent


@dataclass(frozen=True, slots=True)
class ChangeNotice:
    """A change another process committed: enough to push `didChange` for it."""

    session: str
    version: int
    origin: Origin
    completed: list[dict[str, str]]
    removed: list[dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """A session in brief, as `plansight/sessions` lists it: no tasks but the current one."""

    session: str
    title: str | None
    version: int
    updated_at: str | None
    progress: Progress
    current: Task | None
    waiting: bool  # the current task waits on unfinished ones
    # The git checkout of its last agent change (None: none known); not in the plan.
    checkout: Checkout | None = None


def summary_of(plan: Plan) -> SessionSummary:
    current = plan.current()
    waiting = current is not None and plan.is_waiting(current)
    return SessionSummary(
        plan.session, plan.title, plan.version, plan.updated_at, progress_of(plan), current, waiting
    )


class SeenCursor(Enum):
    """What an edit does to its session's seen cursor (the changes the agent has heard of)
    and `context` rounds, as the edit's owner says; the store only writes it."""

    STAYS = "stays"  # neither moves
    RESTART = "restart"  # the rounds start again
    # The rounds start again, and the change the edit commits is no news to the agent:
    # seen up to it, unless a person's change waits to be told.
    OWN_CHANGE = "own change"
    TOLD = "told"  # the rounds start again; every change up to the edit's version is told


class SessionEdit(Protocol):
    """A session opened for change inside one transaction."""

    plan: Plan
    # The version the session's agent last saw: of its last own change, or at which it
    # was last told what a person changed (0: never). The plan at it is the steering base.
    agent_base: int
    # What the edit does to the agent's view, as its owner decides it (the service's
    # `agent_view.py`); the store writes it when the block is left. `moves_base`: the
    # agent's base moves to the version the edit leaves, committed or not.
    moves_base: bool
    cursor: SeenCursor  # what happens to the agent's seen cursor and `context` rounds

    def commit(self, event: ChangeEvent) -> None:
        """Record that `plan` changed: bump the version, write it and log `event`."""


class PendingEdit:
    """A `SessionEdit` as a store hands it out: the store writes `event` when the block
    is left, if one was committed."""

    def __init__(self, plan: Plan, agent_base: int = 0) -> None:
        self.plan = plan
        self.agent_base = agent_base
        self.moves_base = False
        self.cursor = SeenCursor.STAYS
        self.event: ChangeEvent | None = None

    def commit(self, event: ChangeEvent) -> None:
        self.event = event


class TodoStore(Protocol):
    path: str

    def load(self, session: str) -> Plan:
        """The session as committed, one committed version (version 0 and empty when
        unknown: reading creates nothing). Do not mutate it."""

    def edit(
        self, session: str, origin: Origin, max_sessions: int
    ) -> AbstractContextManager[SessionEdit]:
        """Open `session` for change under a write lock; leaving the block commits, an
        exception rolls everything back. What the edit does to the agent's base and seen
        cursor is what its owner set on it (`moves_base`, `cursor`): nothing unless told."""

    def sessions(self) -> list[Plan]:
        """Every session, most recently updated first."""

    def summaries(self) -> list[SessionSummary]:
        """Every session in brief, most recently updated first, without reading every
        plan into memory (`summary_of` each of `sessions()` says the same, slowly)."""

    def context_round(self, session: str) -> tuple[int, list[LoggedChange]]:
        """Count one more `context` call: returns the consecutive count and the changes
        committed since the previous call, oldest first. The agent has then seen the
        session's current version (its `agent_base` moves there)."""

    def unseen_changes(self, session: str) -> list[LoggedChange]:
        """The changes committed since the agent last heard of them (by `context_round`
        or this), oldest first, once; counts no round, and writes nothing when there
        are none (every MCP tool call asks). When there are some, the agent is about to be
        told them: its `agent_base` moves to the current version, as `context_round`'s."""

    def history(self, session: str, limit: int) -> list[LoggedChange]:
        """The changes that can be restored (their plan is kept), newest first."""

    def snapshot(self, session: str, version: int) -> dict[str, Any] | None:
        """The plan right after `version` as `core.record` writes it, if it is kept."""

    def events(self, session: str | None = None) -> list[LoggedEvent]:
        """The event log (of `session`, else of every session), oldest first: every
        committed change, kept as long as its session is."""

    def watch_from_now(self) -> None:
        """Forget changes committed so far: `poll` reports only later ones."""

    def poll(self) -> list[ChangeNotice]:
        """Changes committed by other processes since the last poll, oldest first."""

    def watch_handle(self) -> tuple[int | None, float]:
        """When to `poll` next: a file descriptor that turns readable when there may be
        news (None: none to wait on), and the longest wait before polling anyway."""

    def pruned(self) -> list[str]:
        """Sessions that left the store (pruned by any process, or the store removed)
        since the last call, once `watch_from_now` was called."""

    def close(self) -> None: ...
