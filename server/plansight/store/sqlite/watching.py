"""Watching the SQLite store for other processes' commits: woken by the file-system events
of its folder where there are any (`file_events`), else polling; each commit of another
process becomes a notice, each session gone a prune."""

from __future__ import annotations

import os

from plansight.store.base import ChangeNotice
from plansight.store.sqlite.faults import faults
from plansight.store.sqlite.file import SqliteFile
from plansight.store.sqlite.file_events import open_events

# Without file-system events, a commit elsewhere reaches a watcher within this (plus the
# time to send it); with them, at once, and the store is still looked at this often in
# case an event was missed (the folder itself replaced, say).
POLL_SECONDS = 0.05
EVENTS_FALLBACK_SECONDS = 5.0


class SqliteWatching(SqliteFile):
    """Other processes' commits to the file, as notices and prunes."""

    def watch_from_now(self) -> None:
        self._watching = True
        self.poll()
        self._notices.clear()
        self._pruned.clear()

    def poll(self) -> list[ChangeNotice]:
        if self._events is not None:
            self._events.drain()  # before looking: an event after this wakes us again
        with faults():
            db = self._attach(create=False)
            if db is None:
                self._lose_all()
                if self._events is not None:  # its folder may go too: watch it anew
                    self._events.close()
                    self._events = None
            else:
                with self._snapshot(db):
                    self._sync(db)
        notices, self._notices = self._notices, []
        return notices

    def watch_handle(self) -> tuple[int | None, float]:
        """The store folder's file-system events where there are any (its folder may not
        exist yet: tried again on every call until it does), else a poll."""
        if self._events is None:
            self._events = open_events(os.path.dirname(os.path.abspath(self.path)))
            if self._events is None:
                return None, POLL_SECONDS
        return self._events.fileno(), EVENTS_FALLBACK_SECONDS

    def pruned(self) -> list[str]:
        pruned, self._pruned = self._pruned, []
        return pruned

    def _lose_all(self) -> None:
        """The file is gone: every session it held is gone with it."""
        if self._watching:
            self._pruned.extend(sorted(self._known))
        self._known.clear()
