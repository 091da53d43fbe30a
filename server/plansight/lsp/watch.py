"""Pushing changes that other processes commit to the same store, and the sessions that
leave it."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from plansight.protocol import DID_PRUNE
from plansight.store.errors import StoreError

if TYPE_CHECKING:
    from plansight.lsp.server import PlansightServer

log = logging.getLogger(__name__)

# A commit elsewhere reaches our client within this (plus the time to send it). Polling
# `PRAGMA data_version` costs microseconds, far less than file-watching machinery.
POLL_SECONDS = 0.05


async def watch_store(server: PlansightServer) -> None:
    while True:
        await asyncio.sleep(POLL_SECONDS)
        try:
            service = server.service
            if service is None:
                continue
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
