"""The SQLite store: WAL mode, one short write transaction per change, an event log.

Reads are served from an in-memory copy of each session, checked against the database
with `PRAGMA data_version`, which only moves when another connection commits; so a
request that changes nothing never touches the disk, and a change writes only the rows
that differ. Whatever is read from the file is read inside one read transaction, so a
copy is always one committed version, never a mix of two.

The file is created by the first change, not before (a server that is only asked to
read leaves no file behind), and it is checked to still be the file at the path on every
call: a store removed or replaced under a running process is reopened at its path.
Faults of the storage (disk full, read-only, locked too long, gone) leave as `StoreError`.

Its jobs, apart: `file` (the connection to the file at the path, and catching up with
other processes' commits), `reads` (with the copies), `writes` (a change's transaction,
the `context` rounds), `watching` (others' commits as notices), `opening` (the guards
around opening the file: folders, links, another program's database, read-only media),
`faults` (SQLite's errors as `StoreError`), `schema` (its migrations) and `file_events`
(inotify on the store's folder).
"""

from __future__ import annotations

import os

from plansight.checkouts import Checkout
from plansight.store.engine import StoreEngine
from plansight.store.sqlite.reads import SqliteReads
from plansight.store.sqlite.watching import SqliteWatching
from plansight.store.sqlite.writes import SqliteWriting


class SqliteStore(SqliteReads, SqliteWriting, SqliteWatching):
    """A `TodoStore` in one SQLite file: its reads, writes and watching over one file."""

    def __init__(self, path: str | os.PathLike[str], busy_timeout: float = 10.0) -> None:
        super().__init__(path, busy_timeout)
        self.checkout: Checkout | None = None  # recorded with an agent's change (`open_store`)
        self._engine = StoreEngine(self)


__all__ = ["SqliteStore"]
