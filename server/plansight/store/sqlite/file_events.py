"""File-system events on a store's folder, as a file descriptor to wait on (Linux inotify).

A commit of another process writes the store's `-wal` file (or the file itself, when the
log is checkpointed, replaced or removed): the descriptor turns readable at once, so a
watcher wakes for news instead of polling, and sleeps while nothing happens.

Why not the `watchfiles` library: its blocking watch wakes every `step` milliseconds to
look for collected changes, so a few milliseconds of latency cost hundreds of wake-ups a
second while idle. inotify gives a descriptor the event loop already knows how to wait
on. Where it is not available (not Linux, or no more watches), `open_events` returns
None and the store is polled as before.
"""

from __future__ import annotations

import errno
import logging
import os
import sys
from contextlib import suppress
from typing import Any

log = logging.getLogger(__name__)

# <sys/inotify.h>
_IN_MODIFY = 0x002
_IN_ATTRIB = 0x004
_IN_CLOSE_WRITE = 0x008
_IN_MOVED_FROM = 0x040
_IN_MOVED_TO = 0x080
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
)
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = 0o2000000  # O_CLOEXEC on Linux


class FileEvents:
    """Events in one folder; `fileno` to wait on, `drain` before looking for news."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def fileno(self) -> int:
        return self._fd

    def drain(self) -> None:
        """Forget the events read so far (what they announce is looked for next)."""
        while True:
            try:
                if not os.read(self._fd, 65536):
                    return
            except BlockingIOError:
                return
            except OSError:
                return

    def close(self) -> None:
        with suppress(OSError):
            os.close(self._fd)


def open_events(folder: str) -> FileEvents | None:
    """Events of `folder` (not recursive), or None where they cannot be had."""
    libc = _libc()
    if libc is None:
        return None
    fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
    if fd < 0:
        return None
    if libc.inotify_add_watch(fd, os.fsencode(folder), _MASK) < 0:
        import ctypes

        reason = ctypes.get_errno()
        os.close(fd)
        if reason not in (errno.ENOENT, errno.ENOTDIR):
            log.info("no file-system events for the store (%s): polling it", os.strerror(reason))
        return None
    return FileEvents(fd)


_loaded: list[Any] = []


def _libc() -> Any:
    """The C library's functions (the process's own symbols), or None. ctypes is imported
    here, by a watching server only: one-shot commands do not pay for it."""
    if not _loaded:
        lib = None
        if sys.platform.startswith("linux"):
            import ctypes

            with suppress(OSError):
                lib = ctypes.CDLL(None, use_errno=True)
            if lib is not None and not hasattr(lib, "inotify_init1"):
                lib = None
        _loaded.append(lib)
    return _loaded[0]
