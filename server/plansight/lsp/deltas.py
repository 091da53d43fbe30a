"""Change deltas: the `didChange` a client that opted in is sent (docs/protocol.md, "Change
deltas"), what changed since the version this client was pushed before.

One server serves one client, so one `DeltaPushes` per server remembers, per session, the
version it last pushed and what that state was made of: each phase's task ids and each
task's encoded bytes (the same `Encoded` objects the encoder keeps, so remembering them
costs references, not copies). A delta lists the tasks whose bytes differ, the ids gone,
and each phase with its ids where they differ. A session it holds nothing of (never
pushed, forgotten to bound memory, pruned, made again from version 1) is pushed whole.
"""

from __future__ import annotations

from collections import OrderedDict

from plansight.lsp.encoded import Encoded, Layout, encode_tree, extend
from plansight.wire import Json

# Sessions whose last push is remembered; a session beyond them is next pushed whole.
REMEMBERED_SESSIONS = 64


class _Pushed:
    """A state as pushed: its version, phases (name -> task ids) and tasks' bytes."""

    __slots__ = ("phases", "tasks", "version")

    def __init__(self, layout: Layout) -> None:
        self.version = layout.version
        self.phases: dict[str, list[str]] = {}
        self.tasks: dict[str, Encoded] = {}
        order = iter(layout.order)
        for phase in layout.tree["phases"]:
            encoded = phase["tasks"]
            ids = [next(order) for _ in encoded]
            self.phases[phase["name"]] = ids
            self.tasks.update(zip(ids, encoded, strict=True))


class DeltaPushes:
    """The `didChange` params for one opted-in client, session by session."""

    def __init__(self) -> None:
        self._pushed: OrderedDict[str, _Pushed] = OrderedDict()

    def params(self, session: str, layout: Layout, whole: bytes, members: Json) -> Encoded:
        """The push of the state `layout` describes (encoded whole as `whole`) with the
        change's `members` (origin, completedTasks, removedTasks): a delta from the state
        this client was pushed last, else the whole state."""
        now = _Pushed(layout)
        before = self._pushed.pop(session, None)
        self._pushed[session] = now
        while len(self._pushed) > REMEMBERED_SESSIONS:
            self._pushed.popitem(last=False)
        if (
            before is None
            or before.version >= now.version  # made again since: not a state it holds
            or len(now.phases) != len(layout.tree["phases"])  # two phases of one name
        ):
            return Encoded(extend(whole, members))
        return Encoded(encode_tree(_delta(layout.tree, before, now, members)))

    def forget(self, sessions: list[str]) -> None:
        """Sessions pruned: a session made again under the name is pushed whole."""
        for session in sessions:
            self._pushed.pop(session, None)


def _delta(tree: Json, before: _Pushed, now: _Pushed, members: Json) -> Json:
    """The delta params (their member order: the state's scalars, then what changed)."""
    held = before.tasks
    changed = [
        encoded
        for task_id, encoded in now.tasks.items()
        if (old := held.get(task_id)) is None or (old is not encoded and old.data != encoded.data)
    ]
    phases = []
    for phase in tree["phases"]:
        entry: Json = {"name": phase["name"], "progress": phase["progress"]}
        ids = now.phases[phase["name"]]
        if before.phases.get(phase["name"]) != ids:
            entry["taskIds"] = ids
        phases.append(entry)
    return {
        "session": tree["session"],
        "title": tree["title"],
        "version": tree["version"],
        "baseVersion": before.version,
        "updatedAt": tree["updatedAt"],
        "progress": tree["progress"],
        "current": tree["current"],
        **members,
        "phases": phases,
        "tasks": changed,
        "removedIds": [task_id for task_id in held if task_id not in now.tasks],
    }
