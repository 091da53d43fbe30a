"""Change deltas: the `didChange` a client that opted in is sent (docs/protocol.md, "Change
deltas"), what changed since the version this client was sent before, and (to a client
that asked for them too) the answers of its changing requests made the same way.

One server serves one client, so one `DeltaPushes` per server remembers, per session, the
version it last sent this client (by a push or an answer) and what that state was made
of: each phase's task ids and each task's encoded bytes (the same `Encoded` objects the
encoder keeps, so remembering them costs references, not copies). A delta lists the tasks
whose bytes differ, the ids gone, and each phase with its ids where they differ. A session
it holds nothing of (never sent, forgotten to bound memory, pruned, made again from
version 1) is sent whole.

A change's delta is built once (`Delta`) and sent twice: in the answer, with the
ApplyResult's members, and in the push, with the push's (origin, completed, removed).
"""

from __future__ import annotations

from collections import OrderedDict

from plansight.lsp.encoded import Encoded, Layout, PhaseLayout, encode_tree, extend
from plansight.wire import Json

# Sessions whose last push is remembered; a session beyond them is next pushed whole.
REMEMBERED_SESSIONS = 64


class _Pushed:
    """A state as sent: its version and its phases' layouts (name -> layout)."""

    __slots__ = ("phases", "version")

    def __init__(self, layout: Layout) -> None:
        self.version = layout.version
        self.phases: dict[str, PhaseLayout] = {
            phase.entry["name"]: phase for phase in layout.phases
        }


class Delta:
    """One change delta, encoded once: the state's scalars (`head`, an object missing its
    end) and what changed (`tail`, the members after the caller's), joined around the
    members of the message it goes in."""

    __slots__ = ("base_version", "empty", "head", "tail", "version")

    def __init__(self, head: bytes, tail: bytes, base_version: int, version: int) -> None:
        self.head = head
        self.tail = tail
        self.base_version = base_version
        self.version = version
        self.empty = False  # nothing changed: no task, no id gone, no phase's ids

    def with_members(self, members: Json) -> Encoded:
        """The delta with `members` between the scalars and what changed (their order in
        `DidChangeDelta`)."""
        if not members:
            return Encoded(self.head + b"," + self.tail)
        return Encoded(self.head + b"," + encode_tree(members)[1:-1] + b"," + self.tail)


class DeltaPushes:
    """What one opted-in client was sent, session by session, and the deltas from it."""

    def __init__(self, *, answers: bool = False) -> None:
        self._pushed: OrderedDict[str, _Pushed] = OrderedDict()
        # The client asked for the answers of its changing requests as deltas too.
        self.answers = answers

    def change(self, session: str, layout: Layout) -> Delta | None:
        """The delta from the state this client was sent last to the one `layout`
        describes, which it is sent next (so remembered as sent); None: send it whole."""
        now = _Pushed(layout)
        before = self._pushed.pop(session, None)
        self._pushed[session] = now
        while len(self._pushed) > REMEMBERED_SESSIONS:
            self._pushed.popitem(last=False)
        if (
            before is None
            or before.version > now.version  # made again since: not a state it holds
            or len(now.phases) != len(layout.tree["phases"])  # two phases of one name
        ):
            return None
        delta = _delta(layout.tree, before, now)
        # At the version it holds: only an answer that changed nothing (or a push of what
        # an answer carried). A state of that version with other contents (made again,
        # versions counted up to the same number) is not one it holds: whole.
        if before.version == now.version and not delta.empty:
            return None
        return delta

    def params(self, session: str, layout: Layout, whole: bytes, members: Json) -> Encoded:
        """The push of the state `layout` describes (encoded whole as `whole`) with the
        change's `members` (origin, completedTasks, removedTasks): a delta from the state
        this client was sent last, else the whole state."""
        delta = self.change(session, layout)
        if delta is None:
            return Encoded(extend(whole, members))
        return delta.with_members(members)

    def forget(self, sessions: list[str]) -> None:
        """Sessions pruned: a session made again under the name is pushed whole."""
        for session in sessions:
            self._pushed.pop(session, None)


def _delta(tree: Json, before: _Pushed, now: _Pushed) -> Delta:
    """The delta (its member order: the state's scalars, then the caller's members, then
    what changed). A phase whose layout is the one sent (same tasks at the same marks)
    is skipped whole; a task moved between phases changed both."""
    held: dict[str, Encoded] = {}
    for name, gone in before.phases.items():
        if now.phases.get(name) is not gone:
            held.update(zip(gone.ids, gone.entry["tasks"], strict=True))
    changed = []
    present: set[str] = set()
    phases: list[Json | Encoded] = []
    reordered = False
    for phase in tree["phases"]:
        layout = now.phases[phase["name"]]
        sent = before.phases.get(phase["name"])
        entry: Json | Encoded = layout.summary_bytes()
        if sent is not layout:
            if sent is None or sent.ids != layout.ids:
                entry = {"name": phase["name"], "progress": phase["progress"]}
                entry["taskIds"] = layout.ids
                reordered = True
            present.update(layout.ids)
            for task_id, encoded in zip(layout.ids, layout.entry["tasks"], strict=True):
                old = held.get(task_id)
                if old is None or (old is not encoded and old.data != encoded.data):
                    changed.append(encoded)
        phases.append(entry)
    removed = [task_id for task_id in held if task_id not in present]
    head = encode_tree(
        {
            "session": tree["session"],
            "title": tree["title"],
            "version": tree["version"],
            "baseVersion": before.version,
            "updatedAt": tree["updatedAt"],
            "progress": tree["progress"],
            "current": tree["current"],
        }
    )[:-1]
    tail = encode_tree({"phases": phases, "tasks": changed, "removedIds": removed})[1:]
    delta = Delta(head, tail, before.version, now.version)
    delta.empty = (
        not changed and not removed and not reordered and len(before.phases) == len(phases)
    )
    return delta
