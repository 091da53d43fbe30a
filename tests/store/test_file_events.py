"""A watching store wakes on the file-system events of another process's commit,
instead of polling for it."""

from __future__ import annotations

import select
import sys
from pathlib import Path

import pytest

from plansight.core.model import Phase, Task, utc_now
from plansight.store.base import ChangeEvent
from plansight.store.sqlite import SqliteStore
from plansight.store.sqlite.watching import EVENTS_FALLBACK_SECONDS, POLL_SECONDS

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def commit(store: SqliteStore, content: str) -> None:
    with store.edit("s", "agent", 200) as edit:
        now = utc_now()
        edit.plan.phases = [Phase("P", [Task("t1", content, content, "pending", [], now, now)])]
        edit.commit(ChangeEvent("agent", "plansight/apply", {}))


def readable(fd: int, seconds: float) -> bool:
    return bool(select.select([fd], [], [], seconds)[0])


def test_without_a_folder_yet_the_store_is_polled(store: SqliteStore) -> None:
    store.watch_from_now()
    assert store.watch_handle() == (None, POLL_SECONDS)


@linux
def test_another_process_commit_wakes_the_watcher_and_is_then_reported(
    store_path: Path, store: SqliteStore
) -> None:
    commit(store, "first")  # makes the folder and the file
    watcher = SqliteStore(store_path)
    try:
        watcher.watch_from_now()
        fd, longest = watcher.watch_handle()
        assert fd is not None and longest == EVENTS_FALLBACK_SECONDS
        assert watcher.poll() == []
        assert not readable(fd, 0)  # nothing happened since: it sleeps
        commit(store, "second")
        assert readable(fd, 10)  # a bound against a hang, not a timing
        [notice] = watcher.poll()
        assert (notice.session, notice.version) == ("s", 2)
        assert not readable(fd, 0)  # drained by the poll that reported it
    finally:
        watcher.close()


@linux
def test_a_watcher_that_looked_too_early_is_woken_again_once_the_commit_shows(
    store_path: Path, store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit writes its frames to the `-wal` file (an event) before SQLite makes them
    visible in the mapped `-shm` index (no event). A watcher that wakes on the write and
    looks before the index moves sees nothing, and must be woken again afterwards, not
    left until its fallback poll five seconds later (a panel that stays stale). Here the
    watcher's early look is played where it can be: its events drained right after the
    write, before anything the writer does next."""
    commit(store, "first")
    watcher = SqliteStore(store_path)
    try:
        watcher.watch_from_now()
        fd, _ = watcher.watch_handle()
        assert fd is not None

        writes_done = store._still_at_path  # the writer's first step after its COMMIT

        def woke_and_looked_early() -> None:
            assert readable(fd, 10)  # woken by the log's write
            watcher._events.drain()  # type: ignore[union-attr]
            writes_done()

        monkeypatch.setattr(store, "_still_at_path", woke_and_looked_early)
        commit(store, "second")
        assert readable(fd, 0)  # woken again, once the commit can be seen
        [notice] = watcher.poll()
        assert (notice.session, notice.version) == ("s", 2)
    finally:
        watcher.close()
