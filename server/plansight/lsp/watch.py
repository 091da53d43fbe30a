"""Pushing changes that other processes commit to the same store, and the sessions that
leave it.

The store says what to wait on (`watch_handle`): file-system events on a SQLite store's
folder, the LISTEN socket of a PostgreSQL store, else a short sleep between looks. The
watcher knows nothing of the server: it is given the store to watch and what to do with
each change and each prune.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from plansight.store.base import ChangeNotice, TodoStore
from plansight.store.store_error import StoreError

log = logging.getLogger(__name__)


async def watch_store(
    store: TodoStore,
    on_change: Callable[[ChangeNotice], None],
    on_prune: Callable[[list[str]], None],
) -> None:
    """Until cancelled: each change another process commits (the newest per session) goes
    to `on_change`, each set of pruned sessions to `on_prune`."""
    loop = asyncio.get_running_loop()
    # The first look does not wait: what was committed since the store was opened, before
    # there was anything to wait on, is pushed now, not at the next look.
    first = True
    while True:
        try:
            fd, longest = store.watch_handle()
            if first:
                first = False
            elif fd is None:
                await asyncio.sleep(longest)
            else:
                await _readable(loop, fd, longest)
            latest = {}
            for notice in store.poll():
                latest[notice.session] = notice  # one push per session carries the newest state
            # Prunes first: a session pruned and made again is dropped, then pushed anew (a
            # push of a session since pruned is left out, see `push_notice`).
            pruned = store.pruned()
            if pruned:
                on_prune(pruned)
            for notice in latest.values():
                on_change(notice)
        except asyncio.CancelledError:
            raise
        except StoreError as exc:
            # Disk full, locked, gone: said once a second at most, tried again.
            log.warning("cannot watch the store: %s", exc.reason)
            await asyncio.sleep(1)
        except Exception:
            log.exception("watching the store failed; trying again")
            await asyncio.sleep(1)


async def _readable(loop: asyncio.AbstractEventLoop, fd: int, longest: float) -> None:
    """Until `fd` has something to read, or `longest` seconds. A timer wakes it, not
    `asyncio.wait_for`, which makes a task per wait: this runs after each of the server's
    own commits too (their log writes are events), and the wake costs half as much."""
    ready = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, wake)
    timer = loop.call_later(longest, wake)
    try:
        await ready
    finally:
        timer.cancel()
        loop.remove_reader(fd)
