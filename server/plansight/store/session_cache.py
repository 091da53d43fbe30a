"""The sessions a store holds in memory: the ones used last, each as committed with the
rows it was written as (so a commit writes only the rows that differ). Memory follows what
is asked for, not what is stored."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from plansight.core.model import Phase, Plan
from plansight.store.rows import TaskRow, WrittenRows, task_of

# How many sessions a store holds in memory (the ones used last).
CACHED_SESSIONS = 32


@dataclass(slots=True)
class SessionCopy:
    """A session as committed, with the rows it was written as."""

    plan: Plan
    written: WrittenRows


def empty_copy(session: str) -> SessionCopy:
    """A session the store does not hold (version 0)."""
    return SessionCopy(Plan(session), WrittenRows({}, []))


def copy_of(
    session: str, head: Sequence[Any], phase_names: list[str], task_rows: Iterable[TaskRow]
) -> SessionCopy:
    """A session read back: `head` is its version, next id, update time and title, then
    its phases' names in order and its task rows in plan order."""
    version, next_id, updated_at, title = head
    phases = [Phase(name) for name in phase_names]
    rows: dict[str, TaskRow] = {}
    for row in task_rows:
        task = task_of(row)
        rows[task.id] = tuple(row)
        phases[row[0]].tasks.append(task)
    plan = Plan(session, version, phases, next_id, updated_at, title)
    return SessionCopy(plan, WrittenRows(rows, phase_names))


class SessionCache:
    """A bounded cache of session copies, the least recently used leaving first."""

    def __init__(self, size: int = CACHED_SESSIONS) -> None:
        self._size = size
        self._copies: OrderedDict[str, SessionCopy] = OrderedDict()

    def get(self, session: str) -> SessionCopy | None:
        """The copy held of `session`, now the most recently used."""
        copy = self._copies.get(session)
        if copy is not None:
            self._copies.move_to_end(session)
        return copy

    def hold(self, copy: SessionCopy) -> None:
        """Hold `copy` as the most recently used. A session the store does not hold is
        not cached: reading unknown names must not grow anything."""
        if copy.plan.version == 0:
            return
        session = copy.plan.session
        self._copies[session] = copy
        self._copies.move_to_end(session)
        while len(self._copies) > self._size:
            self._copies.popitem(last=False)

    def forget(self, session: str) -> None:
        self._copies.pop(session, None)

    def clear(self) -> None:
        self._copies.clear()

    def versions(self) -> Iterator[tuple[str, int]]:
        """Each kept session and the version it is a copy of."""
        for session, copy in list(self._copies.items()):
            yield session, copy.plan.version

    def __len__(self) -> int:
        return len(self._copies)
