"""LISTEN on a workspace's channel: a connection of its own that the watcher waits on
(its socket turns readable when a NOTIFY arrives), reconnected with backoff after a fault.
"""

from __future__ import annotations

import json
import logging
import time
from contextlib import suppress
from typing import Any

from plansight.store.postgres.connect import connect
from plansight.store.store_error import StoreError

log = logging.getLogger(__name__)

FIRST_RETRY_SECONDS = 0.2
LAST_RETRY_SECONDS = 5.0


class ChangeListener:
    def __init__(self, url: str, channel: str, shown: str) -> None:
        self.url = url
        self.channel = channel
        self.shown = shown
        self._db: Any = None
        self._delay = FIRST_RETRY_SECONDS
        self._next_try = 0.0

    def open(self) -> None:
        """Connect and LISTEN, or raise StoreError."""
        db = connect(self.url)
        try:
            db.execute(f'LISTEN "{self.channel}"')  # the channel is our own hex digest
        except Exception:
            db.close()
            raise
        self._db = db
        self._delay = FIRST_RETRY_SECONDS

    def fileno(self) -> int | None:
        """The socket to wait on; None while disconnected."""
        if self._db is None:
            return None
        return int(self._db.fileno())

    def retry_in(self) -> float:
        return max(0.0, self._next_try - time.monotonic()) if self._db is None else 0.05

    def reconnect(self) -> bool:
        """Try again once the backoff allows; True when listening again."""
        if time.monotonic() < self._next_try:
            return False
        try:
            self.open()
        except StoreError as exc:
            self._back_off(str(exc))
            return False
        log.info("listening to %s again", self.shown)
        return True

    def drain(self) -> list[dict[str, Any]]:
        """The payload of each NOTIFY received, without waiting. A broken connection is
        dropped and given back as nothing: `reconnect` catches up."""
        if self._db is None:
            return []
        received: list[dict[str, Any]] = []
        try:
            for notify in self._db.notifies(timeout=0):
                with suppress(ValueError):
                    payload = json.loads(notify.payload)
                    if isinstance(payload, dict):
                        received.append(payload)
        except Exception as exc:
            self._drop()
            self._back_off(f"the connection was lost ({exc.__class__.__name__})")
        return received

    def _back_off(self, why: str) -> None:
        log.warning("not listening to %s: %s; retrying in %.1fs", self.shown, why, self._delay)
        self._next_try = time.monotonic() + self._delay
        self._delay = min(self._delay * 2, LAST_RETRY_SECONDS)

    def _drop(self) -> None:
        if self._db is not None:
            with suppress(Exception):
                self._db.close()
            self._db = None

    def close(self) -> None:
        self._drop()
