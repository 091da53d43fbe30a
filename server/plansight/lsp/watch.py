"""Pushing changes that other processes commit to the same store, and the sessions that
leave it.

The store says what to wait on: SQLite is polled (`PRAGMA data_version` costs
microseconds), PostgreSQL wakes us through its LISTEN socket when a NOTIFY arrives.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from plansight.protocol.models import DID_PRUNE
from plansight.store.errors import StoreError

if TYPE_CHECKING:
    from plansight.lsp.server import PlansightServer

log = logging.getLogger(__name__)


async def watch_store(server: PlansightServer) -> None:
    loop = asyncio.get_running_loop()
    while True:
        try:
            service = server.service
            if service is None:
                await asyncio.sleep(0.05)
                continue
            fd, longest = service.store.watch_handle()
            if fd is None:
                await asyncio.sleep(longest)
            else:
                await _readable(loop, fd, longest)
            latest = {}
            for notice in service.store.poll():
                latest[notice.session] = notice  # one push per session carries the newest state
            for notice in latest.values():
                server.push(
                    notice.session,
                    notice.version,
                    notice.origin,
                    notice.completed,
                    notice.removed,
                )
            pruned = service.store.pruned()
            if pruned:
                server.protocol.notify(DID_PRUNE, {"sessions": pruned})
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
    """Until `fd` has something to read, or `longest` seconds."""
    ready = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, wake)
    try:
        await asyncio.wait_for(ready, longest)
    except asyncio.TimeoutError:
        pass
    finally:
        loop.remove_reader(fd)
