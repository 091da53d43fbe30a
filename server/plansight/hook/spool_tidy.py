"""The spool's bounds: which spooled events go, and why, by their files' names alone.

While a store stays out of reach every plan the agent writes is spooled whole, and the
drain would replay every one (12 lists of one session took 617 KiB). Two rules keep it
small, without losing what a later event does not redo:

- Superseded: an agent's whole list (`LIST`, a payload that replaces the session's plan
  and adds nothing else, `replaces_whole_plan`) makes the session's whole list spooled
  just before it useless: applied one after the other, the later one leaves the plan as
  it alone would (a person's changes are merged into it the same way). Only when nothing
  of that session lies between them: an op (`OPS`, a Claude task created or updated) or
  a file list (`FILES`, an edit) between changes what the later list is merged over.
- Bounded: past `MAX_EVENTS` events or `MAX_BYTES` bytes, the oldest go, preferring a
  whole list a later list of its session replaces (only what lay between them is moved
  over another plan), then an edit's file list, then whatever is oldest.

A spooled file's name says what it holds, so a tidy reads no event but those it drops
(to log them): `<time>-<pid>-<kind>-<session digest>.json`. A name without the last two
(an older version's) is of no known session: nothing before it is taken as superseded.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from plansight.protocol.requests import Format

Kind = Literal["list", "ops", "files"]
LIST: Kind = "list"
OPS: Kind = "ops"
FILES: Kind = "files"
_KINDS: tuple[Kind, ...] = (LIST, OPS, FILES)

# Per store and workspace. A whole list is tens of KiB (a 40-task TodoWrite with its
# response, 51 KiB); an edit's file names, one. Draining 200 events takes several hook
# events (each spends 2 s at most on them), and no agent writes 200 plans in a store's
# outage once its superseded lists have gone.
MAX_EVENTS = 200
MAX_BYTES = 8 * 1024 * 1024


def queued_name(time_ns: int, pid: int, kind: Kind, session: str | None) -> str:
    """The file's name without its suffix; sorted, the names are the agent's order."""
    if session is None:
        return f"{time_ns:020d}-{pid}"
    return f"{time_ns:020d}-{pid}-{kind}-{_digest(session)}"


def replaces_whole_plan(fmt: Format, payload: Any) -> bool:
    """Whether this plan tool payload replaces the session's whole plan and adds nothing
    else (Codex's `explanation` adds a note: not superseded by the next list)."""
    from plansight.agents import read_payload
    from plansight.core.errors import RequestRefused
    from plansight.core.incoming import Replacement

    if not isinstance(payload, dict):
        return False
    try:
        incoming = read_payload(fmt, payload)
    except RequestRefused:
        return False
    return isinstance(incoming, Replacement) and incoming.note is None


class _Queued:
    def __init__(self, name: str, size: int) -> None:
        self.name, self.size = name, size
        parts = name.rsplit(".", 1)[0].split("-")
        known = len(parts) == 4 and parts[2] in _KINDS
        self.kind: Kind | None = parts[2] if known else None  # type: ignore[assignment]
        self.session: str | None = parts[3] if known else None


def tidy(sizes: dict[str, int], max_events: int, max_bytes: int) -> list[tuple[str, str]]:
    """The spooled events to drop, of those named in `sizes` (name: bytes), and why: the
    superseded, then the oldest past the bounds."""
    queue = [_Queued(name, size) for name, size in sorted(sizes.items())]
    dropped: list[tuple[str, str]] = []
    for gone in _superseded(queue, strictly=True):
        queue.remove(gone)
        dropped.append((gone.name, "replaced by a later whole list of its session"))
    count, size = len(queue), sum(item.size for item in queue)
    while count > max_events or size > max_bytes:
        gone = _next_to_drop(queue)
        queue.remove(gone)
        count, size = count - 1, size - gone.size
        bounds = f"{max_events} events, {max_bytes // 1024} KiB"
        dropped.append((gone.name, f"the oldest past the spool's bounds ({bounds})"))
    return dropped


def _superseded(queue: list[_Queued], strictly: bool) -> list[_Queued]:
    """The whole lists whose session's next spooled event is a whole list too (`strictly`),
    or that have a whole list of their session later at all."""
    found: list[_Queued] = []
    last: dict[str, _Queued] = {}  # per session, its last whole list not yet followed
    for item in queue:
        if item.session is None:  # of no known session: it may be any session's
            if strictly:
                last.clear()
            continue
        if item.kind == LIST and item.session in last:
            found.append(last[item.session])
        if item.kind == LIST:
            last[item.session] = item
        elif strictly:
            last.pop(item.session, None)
    return found


def _next_to_drop(queue: list[_Queued]) -> _Queued:
    """The oldest whole list a later one of its session replaces; else the oldest edit's
    file list; else the oldest event."""
    replaced = _superseded(queue, strictly=False)
    if replaced:
        return min(replaced, key=lambda item: item.name)
    files = [item for item in queue if item.kind == FILES]
    return files[0] if files else queue[0]


def _digest(session: str) -> str:
    """16 hex digits of the session's name: a name may hold anything, a file name not."""
    return hashlib.sha256(session.encode("utf-8", "surrogateescape")).hexdigest()[:16]
