"""Hook events the store could not take in time, spooled and applied before the next event.

A hook waits 0.5 s at most for a store another process keeps locked, and 2 s for a team
store to answer (the agent must not wait on it). Giving up there lost the event: the plan
the agent wrote never reached the store. Now the event is spooled instead, and the next
hook event of the same project applies it first, then its own: in the order the agent
sent them, so an older list never lands after a newer one.

One spool per project (its workspace root) and settings (as the warm process's name):
an event is applied by a hook that opens the same store, from the same project, as the
one that spooled it, so it reaches no file its own agent's sandbox did not. A spooled
event is the agent's event as it came, in a file of the user's own (0600) under the
state folder; it is removed once its change is committed. Only a change the store
refused before writing anything is spooled (`hook/store.py`: `NotStoredYet`, for a busy
or unreachable store), so an event is never applied twice by the spool, except by a
process killed between its commit and its removal of the file.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from plansight.folders import unsafe_folder
from plansight.hook.settings import settings_name
from plansight.paths import workspace_root

try:
    import fcntl
except ImportError:  # no locks: events are applied as they come, none spooled
    fcntl = None  # type: ignore[assignment]

# How long one event spends applying earlier ones before its own (the agent's wait is
# 10 s; each spooled event is one store write, tens of milliseconds).
DRAIN_SECONDS = 2.0
_SUFFIX = ".json"


class Spooled:
    """One spooled event: the agent it came from, the event, the folder it names."""

    def __init__(self, agent: str, event: dict[str, Any], cwd: str, spooled_at: str) -> None:
        self.agent, self.event, self.cwd, self.spooled_at = agent, event, cwd, spooled_at


Apply = Callable[[Spooled], None]


class Spool:
    """The spooled events of one project and settings, oldest first."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def of(cls, state: Path, cwd: str) -> Spool:
        return cls(spool_folder(state) / settings_name(str(workspace_root(cwd))))

    def waiting(self) -> bool:
        return bool(self._names())

    def add(self, agent: str, event: dict[str, Any], cwd: str) -> None:
        """Write the event whole (a temporary file renamed: never half a file)."""
        if fcntl is None:
            raise OSError("no file locks here to apply spooled events in their order")
        if unsafe_folder(self.folder) is not None:
            raise OSError("the spool folder is not the user's own")
        name = f"{time.time_ns():020d}-{os.getpid()}"
        record = {
            "agent": agent,
            "cwd": cwd,
            "spooledAt": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "event": event,
        }
        partial = self.folder / f".{name}.partial"
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(descriptor, "w", encoding="utf-8") as out:
            # ASCII: a lone surrogate the agent's JSON escaped stays an escape, not an error.
            json.dump(record, out)
        os.replace(partial, self.folder / f"{name}{_SUFFIX}")

    def drain(self, apply: Apply, seconds: float = DRAIN_SECONDS) -> bool:
        """Apply the spooled events in order, each removed once `apply` returns; stops at the
        first one the store still refuses (`NotStoredYet`) or when `seconds` are spent.
        True when none is left. One process drains at a time (a lock), so two hooks of
        one agent at once never apply them out of order."""
        if fcntl is None or not self.waiting():
            return True  # (without locks nothing is ever spooled: `add`)
        from plansight.hook.store import NotStoredYet

        deadline = time.monotonic() + seconds
        lock = self._lock(deadline)
        if lock is None:
            return False
        try:
            for name in self._names():
                if time.monotonic() > deadline:
                    return False
                path = self.folder / name
                entry = _read(path)
                if entry is None:
                    _set_aside(path, "damaged")
                    continue
                try:
                    apply(entry)
                except NotStoredYet:
                    return False
                except Exception:
                    # Not a fault that passes (a bug, a store that refuses it for good):
                    # set aside, said in the log by `apply`, so it holds up no later one.
                    _set_aside(path, "failed")
                    continue
                path.unlink(missing_ok=True)
            return True
        finally:
            os.close(lock)

    def _names(self) -> list[str]:
        try:
            return sorted(name for name in os.listdir(self.folder) if name.endswith(_SUFFIX))
        except OSError:
            return []

    def _lock(self, deadline: float) -> int | None:
        if unsafe_folder(self.folder) is not None:
            return None
        descriptor = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return descriptor
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(descriptor)
                    return None
                time.sleep(0.01)


def spool_folder(state: Path) -> Path:
    """Where every project's spool is, under the hooks' state folder `state`."""
    return state / "spool"


def _set_aside(path: Path, why: str) -> None:
    """Out of the queue, left for a person to look at: `<name>.<why>`."""
    try:
        os.replace(path, path.with_name(f"{path.stem}.{why}"))
    except OSError:
        path.unlink(missing_ok=True)


def _read(path: Path) -> Spooled | None:
    """The spooled event, or None for a file that is not one (left by hand, or damaged)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        entry = Spooled(record["agent"], record["event"], record["cwd"], record["spooledAt"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    valid = isinstance(entry.event, dict) and all(
        isinstance(value, str) for value in (entry.agent, entry.cwd, entry.spooled_at)
    )
    return entry if valid else None
