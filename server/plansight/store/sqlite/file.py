"""The store's file as one process holds it: the connection to the file now at the path
(reopened when the file was removed or replaced), one read transaction for what is read
together, and catching up with other connections' commits (`PRAGMA data_version`): the
copies they outdated are forgotten and, for a watcher, their events become notices.

The store's state lives here; reading, writing and watching (`reads`, `writes`,
`watching`) each add their methods over it."""

from __future__ import annotations

import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from plansight.store import rows
from plansight.store.base import ChangeNotice
from plansight.store.session_cache import SessionCache
from plansight.store.sqlite.faults import faults
from plansight.store.sqlite.file_events import FileEvents
from plansight.store.sqlite.opening import (
    FileIdentity,
    check_location,
    connect,
    end_read,
    identity_of,
)
from plansight.store.store_error import StoreError

log = logging.getLogger(__name__)

# As often as a watching server polls for other processes' changes.
IDENTITY_RECHECK_SECONDS = 0.05


class SqliteFile:
    """The store's file and the state every job of the store holds over it."""

    def __init__(self, path: str | os.PathLike[str], busy_timeout: float = 10.0) -> None:
        """`busy_timeout`: how long to wait for another process's lock before failing
        (an agent's hook gives up much sooner than an editor's server)."""
        self.path = str(path)
        self._busy_timeout = busy_timeout
        self.writer = secrets.token_hex(8)  # tells our own events from other processes'
        self._db: sqlite3.Connection | None = None
        self._identity: FileIdentity | None = None
        self._cache = SessionCache()  # the sessions used last (a bounded cache, not the store)
        self._data_version = -1
        self._last_seq = 0
        self._notices: list[ChangeNotice] = []
        self._known: set[str] = set()  # sessions in the store as last seen
        self._pruned: list[str] = []
        self._watching = False
        self._events: FileEvents | None = None  # the store folder's, once watching
        self._checked_at = -1.0  # when the file's identity was last checked (monotonic)
        check_location(self.path)
        with faults():
            db = self._attach(create=False)
            if db is not None:
                # Changes committed before this process opened the store are not news.
                self._last_seq = self._max_seq(db)

    # ------------------------------------------------------------ the file

    def _attach(self, create: bool, read: bool = False) -> sqlite3.Connection | None:
        """The connection to the file now at `path`: reopened when the file was removed
        or replaced since it was opened, created only when `create` (None without).

        A `read` trusts a check made in the last IDENTITY_RECHECK_SECONDS (a `stat` costs
        more than a cached `get`): it may show the last state committed to a file removed
        that long ago, never an uncommitted one. Changes always check."""
        now = time.monotonic()
        if read and self._db is not None and now - self._checked_at < IDENTITY_RECHECK_SECONDS:
            return self._db
        identity = identity_of(self.path)
        self._checked_at = now
        if self._db is not None:
            if identity == self._identity:
                return self._db
            log.warning("the plan store was removed or replaced: opening it again")
            # SQLite's -wal beside the path still holds this file's last changes, and
            # would be read as part of whatever file comes next: move them out of it.
            with suppress(sqlite3.Error):
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._detach()
        tries = 3
        while True:
            if identity is None and not create:
                return None
            db = connect(self.path, self._busy_timeout)
            opened = identity_of(self.path)
            # The file may be replaced between the look and the open: then which of the
            # two this connection holds is unknown, and holding the old one would serve
            # its plans as the new file's for ever. Open again until both looks agree
            # (the next change's check catches a file replaced even faster than that).
            tries -= 1
            if identity is None or opened == identity or tries == 0:
                break
            with suppress(sqlite3.Error):
                db.close()
            identity = opened
        self._db, self._identity = db, opened
        self._data_version = -1  # read everything again from this file
        self._last_seq = 0  # every change in a file opened now is news
        return db

    def _detach(self) -> None:
        if self._db is not None:
            with suppress(sqlite3.Error):
                self._db.close()
        self._db = self._identity = None
        self._cache.clear()

    def _still_at_path(self) -> None:
        """A commit into a file no longer at the path is lost to every other process."""
        if identity_of(self.path) != self._identity:
            self._detach()
            raise StoreError(
                "unavailable",
                "The plan store was removed or replaced while this change was written, "
                "so it was not kept",
                advice="try again",
            )

    @contextmanager
    def _snapshot(self, db: sqlite3.Connection) -> Iterator[None]:
        """One read transaction: every SELECT inside sees the same committed version."""
        if db.in_transaction:
            yield
            return
        db.execute("BEGIN")
        try:
            yield
        finally:
            end_read(db)

    @contextmanager
    def _committed(self) -> Iterator[sqlite3.Connection | None]:
        """The file inside one read transaction, caught up with other connections'
        commits (None: there is no store yet). Storage faults leave as StoreError."""
        with faults():
            db = self._attach(create=False)
            if db is None:
                yield None
                return
            with self._snapshot(db):
                self._sync(db)
                yield db

    def _sync(self, db: sqlite3.Connection) -> None:
        """Catch up with commits of other connections, if there were any."""
        data_version = self._read_data_version(db)
        if data_version == self._data_version:
            return
        self._data_version = data_version
        for seq, session, version, origin, completed, removed, writer in db.execute(
            "SELECT seq, session, version, origin, completed, removed, writer FROM events "
            "WHERE seq > ? ORDER BY seq",
            (self._last_seq,),
        ):
            self._last_seq = seq
            if writer != self.writer and self._watching:
                self._notices.append(rows.notice_of(session, version, origin, completed, removed))
        versions = dict(db.execute("SELECT name, version FROM sessions"))
        for session, version in self._cache.versions():
            if versions.get(session, 0) != version:
                self._forget(session)
        if self._watching:
            self._pruned.extend(sorted(self._known.difference(versions)))
        self._known = set(versions)

    def _read_data_version(self, db: sqlite3.Connection) -> int:
        return int(db.execute("PRAGMA data_version").fetchone()[0])

    def _max_seq(self, db: sqlite3.Connection) -> int:
        return int(db.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0])

    def _forget(self, session: str) -> None:
        self._cache.forget(session)

    def close(self) -> None:
        self._detach()
        if self._events is not None:
            self._events.close()
            self._events = None
