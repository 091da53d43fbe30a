"""Hook events the store could not take in time, spooled and applied before the next event.

A hook waits 0.5 s at most for a store another process keeps locked, and 2 s for a team
store to answer (the agent must not wait on it). Giving up there lost the event: the plan
the agent wrote never reached the store. Now the event is spooled instead, and the next
hook event of the same project applies it first, then its own: in the order the agent
sent them, so an older list never lands after a newer one.

One spool per place a plan goes (`spool_key`): the store (its file, or the team store's
URL without its password) and the workspace (the project's root folder, and a team
store's `PLANSIGHT_WORKSPACE`). Nothing else of the environment counts: a hook of
another login (another `XDG_SESSION_ID`), shell or terminal applies what this one spooled
before its own change, never after it. A spooled event is the agent's event as it came,
in a file of the user's own (0600) under the state folder; it is removed once its change
is committed. Only a change the store refused before writing anything is spooled
(`hook/plan_calls.py`: `NotStoredYet`, for a busy or unreachable store), so an event is never
applied twice by the spool, except by a process killed between its commit and its
removal of the file.

The spool is bounded (`hook/spool_tidy.py`): an agent's whole list replaces the whole
lists of its session spooled before it, and past `MAX_EVENTS` events or `MAX_BYTES` bytes
the oldest go; every event dropped is said in the hook's log.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from plansight.folders import unsafe_folder
from plansight.hook.spool_tidy import (
    MAX_BYTES,
    MAX_EVENTS,
    OPS,
    Kind,
    queued_name,
    tidy,
)
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
    """One spooled event: the agent it came from, the event, the folder it names, and the
    plan session it changes (for the log; None in a file an older version spooled)."""

    def __init__(
        self,
        agent: str,
        event: dict[str, Any],
        cwd: str,
        spooled_at: str,
        session: str | None = None,
    ) -> None:
        self.agent, self.event, self.cwd, self.spooled_at = agent, event, cwd, spooled_at
        self.session = session


Apply = Callable[[Spooled], None]


class Dropped:
    """A spooled event the spool's bounds dropped, and why; `entry`: what it held (None
    when it could not be read)."""

    def __init__(self, entry: Spooled | None, why: str) -> None:
        self.entry, self.why = entry, why


class NotSpooled(OSError):
    """The event is larger than the whole spool may be: given up on, said in the log."""


class Spool:
    """The spooled events of one store and workspace, oldest first."""

    def __init__(
        self,
        folder: Path,
        former: Path | None = None,
        max_events: int = MAX_EVENTS,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.folder = folder
        self.former = former  # where an older version spooled them (`drain` takes them in)
        self.max_events, self.max_bytes = max_events, max_bytes

    @classmethod
    def of(cls, state: Path, cwd: str) -> Spool:
        from plansight.hook.settings_name import settings_name

        root = workspace_root(cwd)
        folders = spool_folder(state)
        return cls(folders / spool_key(root), former=folders / settings_name(str(root)))

    def waiting(self) -> bool:
        return bool(self._names()) or (self.former is not None and self.former.is_dir())

    def add(
        self,
        agent: str,
        event: dict[str, Any],
        cwd: str,
        session: str | None = None,
        kind: Kind = OPS,
    ) -> list[Dropped]:
        """Write the event whole (a temporary file renamed: never half a file), then keep
        the spool within its bounds: returns the earlier events that were dropped
        (superseded, or the oldest past the bounds), for the caller to log. `kind`: what
        the event does to `session`'s plan (`spool_tidy`)."""
        if fcntl is None:
            raise OSError("no file locks here to apply spooled events in their order")
        if unsafe_folder(self.folder) is not None:
            raise OSError("the spool folder is not the user's own")
        record = {
            "agent": agent,
            "cwd": cwd,
            "spooledAt": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "session": session,
            "event": event,
        }
        # ASCII: a lone surrogate the agent's JSON escaped stays an escape, not an error.
        data = json.dumps(record).encode("ascii")
        if len(data) > self.max_bytes:
            raise NotSpooled(
                f"the event ({len(data)} bytes) is larger than a spool holds ({self.max_bytes})"
            )
        name = queued_name(time.time_ns(), os.getpid(), kind, session) + _SUFFIX
        partial = self.folder / f".{name}.partial"
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(descriptor, "wb") as out:
            out.write(data)
        os.replace(partial, self.folder / name)
        # Tidied under the drain's lock, so that no drain is applying what goes. A hook
        # that finds another draining leaves the tidying to the next event.
        lock = self._lock(time.monotonic())
        if lock is None:
            return []
        try:
            return self._tidy()
        finally:
            os.close(lock)

    def drain(self, apply: Apply, seconds: float = DRAIN_SECONDS) -> bool:
        """Apply the spooled events in order, each removed once `apply` returns; stops at the
        first one the store still refuses (`NotStoredYet`) or when `seconds` are spent.
        True when none is left. One process drains at a time (a lock), so two hooks of
        one agent at once never apply them out of order."""
        if fcntl is None or not self.waiting():
            return True  # (without locks nothing is ever spooled: `add`)
        from plansight.hook.plan_calls import NotStoredYet

        deadline = time.monotonic() + seconds
        lock = self._lock(deadline)
        if lock is None:
            return False
        try:
            self._take_in_former()
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

    def _tidy(self) -> list[Dropped]:
        sizes: dict[str, int] = {}
        for name in self._names():
            try:
                sizes[name] = os.stat(self.folder / name).st_size
            except OSError:
                continue
        dropped = []
        for name, why in tidy(sizes, self.max_events, self.max_bytes):
            path = self.folder / name
            dropped.append(Dropped(_read(path), why))
            path.unlink(missing_ok=True)
        return dropped

    def _take_in_former(self) -> None:
        """Events an older version spooled under its own name for these settings (before
        the spool was named by the store and workspace): moved into this spool, where
        their names keep them in order."""
        if self.former is None or not self.former.is_dir():
            return
        if unsafe_folder(self.former, create=False) is not None:
            return
        for name in os.listdir(self.former):
            if name.endswith(_SUFFIX) and not (self.folder / name).exists():
                os.replace(self.former / name, self.folder / name)
        for name in os.listdir(self.former):
            if name == ".lock" or name.endswith(".partial"):
                (self.former / name).unlink(missing_ok=True)
            elif not name.endswith(_SUFFIX):  # set aside: kept for a person to look at
                os.replace(self.former / name, self.folder / name)
        with contextlib.suppress(OSError):  # something of a person's left in it
            os.rmdir(self.former)

    def _names(self) -> list[str]:
        try:
            return sorted(name for name in os.listdir(self.folder) if name.endswith(_SUFFIX))
        except OSError:
            return []

    def _lock(self, deadline: float) -> int | None:
        """The spool's lock, waited for until `deadline` (none: one try)."""
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


def spool_key(root: Path) -> str:
    """The spool's name: what decides where a spooled event's change goes. The store as
    it is resolved here (`PLANSIGHT_DB`, else the project's default file), a file's real
    path or a team store's URL without its password; and the workspace: the project's
    root folder, and for a team store `PLANSIGHT_WORKSPACE` (the two its workspace key
    is made from; the key itself would cost a `git` run on every hook event)."""
    from plansight.store.location import is_url, store_location

    location = store_location(None, root)
    if is_url(location):
        workspace = os.environ.get("PLANSIGHT_WORKSPACE", "").strip()
        place = ["team", _without_password(location), str(root), workspace]
    else:
        place = ["file", os.path.realpath(location), str(root)]
    identity = "\0".join(place).encode("utf-8", "surrogateescape")
    return hashlib.sha256(identity).hexdigest()[:24]


def _without_password(location: str) -> str:
    """A team store's URL as `redact_url` shows it (no password), with its query's
    settings but a password: a changed password is the same store, another host is not."""
    from plansight.store.location import redact_settings, redact_url

    query = location.rpartition("@")[2].partition("?")[2]
    return f"{redact_url(location)}?{redact_settings(query)}"


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
        entry = Spooled(
            record["agent"],
            record["event"],
            record["cwd"],
            record["spooledAt"],
            record.get("session"),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    valid = isinstance(entry.event, dict) and all(
        isinstance(value, str) for value in (entry.agent, entry.cwd, entry.spooled_at)
    )
    return entry if valid and isinstance(entry.session, str | None) else None
