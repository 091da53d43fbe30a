"""Which session an MCP server writes to: the one it is told, else one of its own.

Two agents started side by side must not overwrite each other's list, even when they are
the same program started in the same minute. So a connection's own name is claimed: a
lock file per name, held (flock) for the life of the process and removed at its end.

One agent may also start a server per call (the MCP Inspector's CLI mode) or restart its
servers: its next server must find the list it was writing. So a new connection takes
over the most recent session of the same client that was written to in the last few
minutes and that no live server holds; failing that, it claims a name of its own, never
one the store already has.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import stat
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path

from plansight.folders import unsafe_folder
from plansight.paths import state_home
from plansight.protocol.text import clean_content
from plansight.store.location import is_postgres_url

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
# How recent a client's list must be for its next server to take it over: long enough for
# an agent's pause between two tool calls, short enough that a new task started later
# gets a list of its own.
REUSE_WITHIN = timedelta(minutes=5)


def requested_session(flag: str | None) -> str | None:
    """`--session`, else `PLANSIGHT_SESSION`, else None (a name of the connection's own)."""
    return flag or os.environ.get(SESSION_ENV) or None


def _client_label(client_name: str | None) -> str:
    return clean_content(client_name or "")[:_MAX_CLIENT_NAME].strip() or "mcp"


def connection_session(client_name: str | None, started: datetime) -> str:
    """`claude-code 2026-11-21 14:03`: the client's name and the server's start time."""
    return f"{_client_label(client_name)} {started:%Y-%m-%d %H:%M}"


def _parse_time(stamp: str | None) -> datetime | None:
    if not stamp:
        return None
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def recent_sessions_of(
    client_name: str | None, sessions: Iterable[tuple[str, str | None]], now: datetime
) -> list[str]:
    """The sessions (name, updatedAt; newest first) that a server of this client named for
    itself and that were written to within `REUSE_WITHIN` of `now`, newest first."""
    own = re.compile(
        re.escape(_client_label(client_name)) + r" \d{4}-\d\d-\d\d \d\d:\d\d(?: \(\d+\))?"
    )
    found = []
    for name, updated in sessions:
        when = _parse_time(updated)
        if when is not None and now - when <= REUSE_WITHIN and own.fullmatch(name):
            found.append(name)
    return found


def lock_dir_for(store_path: str | os.PathLike[str]) -> Path:
    """Beside the store, named the way SQLite names its own companions (`-wal`); for a
    team store (a URL), in this machine's state folder, named by a digest of the URL."""
    location = os.fspath(store_path)
    if is_postgres_url(location):
        digest = hashlib.sha256(location.encode("utf-8")).hexdigest()[:12]
        return state_home() / "plansight" / f"team-{digest}-mcp"
    return Path(f"{location}-mcp")


class SessionClaim:
    """Holds the name this process writes to until `release`."""

    def __init__(self, lock_dir: Path) -> None:
        self.lock_dir = lock_dir
        self._fd: int | None = None
        self._lock_path: Path | None = None

    def take_over(self, candidates: Iterable[str]) -> str | None:
        """The first of `candidates` that no live server holds, now held by this one."""
        if not CAN_LOCK:
            return None  # without locks a live agent's list cannot be told from a left one
        for name in candidates:
            if self._lock(name):
                return name
        return None

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
            unsafe = unsafe_folder(self.lock_dir)
            if unsafe is not None:
                log.warning("session names are not locked: the lock folder %s", unsafe)
                return True
            # Never through a link planted in the folder; never another user's file.
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            # A read-only state folder must not stop the agent: unlocked beats unusable.
            log.warning("session names are not locked: %s", exc)
            return True
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
            os.close(fd)
            log.warning("session names are not locked: a lock file is not this user's own")
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
