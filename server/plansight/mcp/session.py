"""Which session an MCP server writes to: the one it is told, else one of its own.

Two agents started side by side must not overwrite each other's list, even when they are
the same program started in the same minute. So a connection's own name is claimed: a
lock file per name, held (flock) for the life of the process and removed at its end,
and a name already in the store is never taken over.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from plansight.core.text import clean_content

try:
    import fcntl

    CAN_LOCK = True
except ImportError:  # Windows: names are not locked, only checked against the store
    CAN_LOCK = False

log = logging.getLogger(__name__)

SESSION_ENV = "PLANSIGHT_SESSION"
MAX_SESSION_LENGTH = 200
_MAX_CLIENT_NAME = 60
_MAX_TRIES = 50


def requested_session(flag: str | None) -> str | None:
    """`--session`, else `PLANSIGHT_SESSION`, else None (a name of the connection's own)."""
    return flag or os.environ.get(SESSION_ENV) or None


def connection_session(client_name: str | None, started: datetime) -> str:
    """`claude-code 2026-11-21 14:03`: the client's name and the server's start time."""
    name = clean_content(client_name or "")[:_MAX_CLIENT_NAME].strip() or "mcp"
    return f"{name} {started:%Y-%m-%d %H:%M}"


def lock_dir_for(store_path: str | os.PathLike[str]) -> Path:
    """Beside the store, named the way SQLite names its own companions (`-wal`)."""
    return Path(f"{os.fspath(store_path)}-mcp")


class SessionClaim:
    """Holds the name this process writes to until `release`."""

    def __init__(self, lock_dir: Path) -> None:
        self.lock_dir = lock_dir
        self._fd: int | None = None
        self._lock_path: Path | None = None

    def claim(self, base: str, in_store: Callable[[str], bool]) -> str:
        """`base`, else `base (2)`, `base (3)`... : the first name no other live server
        holds and the store does not have yet."""
        for number in range(1, _MAX_TRIES + 1):
            name = base if number == 1 else f"{base} ({number})"
            if in_store(name):
                continue
            if self._lock(name):
                return name
        # Fifty servers of one client started in one minute: give up on pretty names.
        return f"{base} ({os.getpid()})"

    def _lock(self, name: str) -> bool:
        if not CAN_LOCK:
            return True
        digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        path = self.lock_dir / f"{digest}.lock"
        try:
            self.lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            # A read-only state folder must not stop the agent: unlocked beats unusable.
            log.warning("session names are not locked: %s", exc)
            return True
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        # The last holder may have removed the file as it left: a lock on that removed
        # file guards nothing, so it counts only if the path still names our file.
        try:
            ours = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            ours = False
        if not ours:
            os.close(fd)
            return self._lock(name)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {name}\n".encode("utf-8", "surrogateescape"))
        self._fd, self._lock_path = fd, path
        return True

    def release(self) -> None:
        if self._fd is None or self._lock_path is None:
            return
        # Removed while still held, then closed: see the inode check in `_lock`.
        with contextlib.suppress(OSError):
            self._lock_path.unlink()
        os.close(self._fd)
        self._fd = self._lock_path = None
