"""Watching the team store: LISTEN on the workspace's channel; a NOTIFY is a hint of which
sessions to read again (any role of the database can send one), and the tables say what
is so. After a reconnect, the heads are compared to find what was missed while away."""

from __future__ import annotations

import logging
from typing import Any

from plansight.store import rows
from plansight.store.base import ChangeNotice
from plansight.store.postgres.database import PostgresDatabase
from plansight.store.postgres.listen import ChangeListener

log = logging.getLogger(__name__)


class PostgresWatching(PostgresDatabase):
    """Other processes' commits to the workspace, as notices and prunes."""

    def watch_from_now(self) -> None:
        """Start listening: `poll` reports changes committed from here on."""
        if self._listener is None:
            self._listener = ChangeListener(self.url, self.channel, self.path)
        self._listener.open()  # LISTEN first, then read versions: nothing falls between
        heads = self._heads()
        self._seen = {session: version for session, (version, _) in heads.items()}
        self._born = {session: born for session, (_, born) in heads.items()}
        self._due.clear()
        self._pruned.clear()
        self._watching = True

    def watch_handle(self) -> tuple[int | None, float]:
        """What the watcher waits on: the listening socket (None while reconnecting) and
        how long at most before calling `poll` anyway."""
        if self._listener is None:
            return None, 1.0
        fd = self._listener.fileno()
        if fd is None or self._due or self._catch_up:  # reconnecting, or reads to retry
            return fd, self._listener.retry_in()
        # A NOTIFY or the connection's end wakes the watcher; the timeout is a safety net.
        return fd, 60.0

    def poll(self) -> list[ChangeNotice]:
        """Changes other processes committed since the last poll (read as committed from
        the tables), oldest first. After a reconnect, what was missed while away."""
        listener = self._listener
        if listener is None:
            return []
        if listener.fileno() is None:
            if not listener.reconnect():
                return []
            self._catch_up = True
        if self._catch_up:
            # Whatever committed while we were away has no NOTIFY left: compare the heads.
            # A session may have been pruned and made again meanwhile, with a version
            # below the one pushed before: `_report` tells it apart by its row.
            heads = self._heads()
            self._catch_up = False
            for session in [s for s in self._seen if s not in heads]:
                self._gone(session)
            for session, (version, born) in heads.items():
                if version != self._seen.get(session) or self._born.get(session, born) != born:
                    self._due.add(session)
        for payload in listener.drain():
            self._notified(payload)
        return self._report()

    def _notified(self, payload: dict[str, Any]) -> None:
        """A NOTIFY: which sessions to read again. Its version and its prunes are hints
        (the channel is open to every role of the database): the tables say what is so."""
        pruned = payload.get("pruned")
        if isinstance(pruned, list):
            # Our own prunes were counted when they committed (`_seen` no longer has them).
            self._due.update(
                name for name in pruned if isinstance(name, str) and name in self._seen
            )
            return
        session, version = payload.get("s"), payload.get("v")
        if not isinstance(session, str) or not isinstance(version, int):
            return  # not one of ours
        if version <= self._seen.get(session, 0) and session not in self._due:
            # Old news, or a session made again with lower versions: its row says which.
            if self._seen.get(session) is not None and version < self._seen[session]:
                self._due.add(session)
            return
        ours = payload.get("w") == self.writer and self._committed.get(session) == version
        if ours and session not in self._due:
            self._seen[session] = version  # our own commit: nothing to read, nothing to push
        else:  # read with the others' changes before it; our own are left out there
            self._due.add(session)

    def pruned(self) -> list[str]:
        """Sessions pruned (by any process) since the last call, once watching."""
        pruned, self._pruned = self._pruned, []
        return pruned

    def _report(self) -> list[ChangeNotice]:
        """Read each session due from the tables: its head (gone, made again, or moved on)
        and the changes since the version pushed last, oldest first, leaving out our own."""
        if not self._due:
            return []
        notices: list[ChangeNotice] = []
        try:
            db = self._connection()
            for session in sorted(self._due):
                notices += self._read_news(db, session)
        except Exception as exc:
            # What is left in `_due` is read once the database answers again.
            log.warning("cannot read the changes to push: %s", self._failed(exc))
        return notices

    def _read_news(self, db: Any, session: str) -> list[ChangeNotice]:
        key = (self.workspace, session)
        head = db.execute(
            "SELECT version, created_at FROM plansight_sessions WHERE workspace = %s "
            "AND name = %s AND version > 0",
            key,
        ).fetchone()
        seen = self._seen.get(session)
        if head is None:  # pruned (or never was: a forged hint)
            if seen is not None:
                self._gone(session)
            self._due.discard(session)
            return []
        version, born = int(head[0]), str(head[1])
        if seen is not None and (version < seen or self._born.get(session, born) != born):
            # Pruned and made again: editors drop the old one before they get the new.
            self._gone(session)
            seen = None
        notices = [
            rows.notice_of(session, number, origin, completed, removed)
            for number, origin, completed, removed, writer in db.execute(
                "SELECT version, origin, completed, removed, writer FROM plansight_events "
                "WHERE workspace = %s AND session = %s AND version > %s AND version <= %s "
                "ORDER BY version",
                (*key, seen or 0, version),
            )
            if writer != self.writer
        ]
        self._seen[session] = max(version, seen or 0)
        self._born[session] = born
        self._due.discard(session)
        return notices

    def _heads(self) -> dict[str, tuple[int, str]]:
        """Each session of the workspace: its version and when its row was made."""
        try:
            found = (
                self._connection()
                .execute(
                    "SELECT name, version, created_at FROM plansight_sessions "
                    "WHERE workspace = %s AND version > 0",
                    (self.workspace,),
                )
                .fetchall()
            )
        except Exception as exc:
            raise self._failed(exc) from None
        return {name: (int(version), str(born)) for name, version, born in found}
