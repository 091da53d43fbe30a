"""The PostgreSQL store: one team database, sessions scoped by workspace, pushes by
LISTEN/NOTIFY.

Writers serialize on the session's row (`SELECT ... FOR UPDATE`), so versions stay
gap-free however many processes and machines write. Each commit sends a NOTIFY carrying
the session and its version; watchers read the committed state. Reads are checked against
the session's version (one small query) and served from a copy when it has not moved.

Its jobs, apart: `database` (the connection, its transactions and faults), `reads` (with
the copies), `writes` (a change's transaction, the `context` rounds, pruning, copying a
store in), `watching` (LISTEN, and reading what a NOTIFY hints at), `connect` (opening a
connection, the driver's errors as `StoreError`), `listen` (the listening connection) and
`schema` (its migrations).
"""

from __future__ import annotations

from plansight.checkouts import Checkout
from plansight.store.engine import StoreEngine
from plansight.store.postgres.database import channel_of
from plansight.store.postgres.watching import PostgresWatching
from plansight.store.postgres.writes import PostgresWriting


class PostgresStore(PostgresWriting, PostgresWatching):
    """A `TodoStore` in a team's PostgreSQL database, for one workspace."""

    def __init__(self, url: str, workspace: str, wait_seconds: float | None = None) -> None:
        super().__init__(url, workspace, wait_seconds)
        self.checkout: Checkout | None = None  # recorded with an agent's change (`open_store`)
        self._engine = StoreEngine(self)


__all__ = ["PostgresStore", "channel_of"]
