"""JSON encoded once and sent as is.

A plan's TodoState is the bulk of every response and push. Each task's JSON is encoded
once per state of that task, each session's TodoState once per committed version, and
the bytes are spliced into what is sent: the `get` response, the `apply` result (the
state and its summary members) and the `didChange` push (the state, its origin and
completed tasks). `wire.state_json` describes the shape; `StateEncoder.layout_of` builds
the same from kept parts (tests/lsp/test_encoded.py holds them equal).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from json.encoder import encode_basestring_ascii
from typing import Any

from plansight.core.model import FINISHED, Plan, Progress, Task, progress_of_tasks
from plansight.wire import (
    Json,
    counts_json,
    progress_json,
    task_json,
)

_encoder = json.JSONEncoder(separators=(",", ":"))
# Sessions whose bytes are cached (the ones encoded last): memory follows what is asked for.
CACHED_ENCODINGS = 32
_quote = encode_basestring_ascii


class Encoded:
    """One JSON value as UTF-8 bytes, ready for the wire."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


def encode(value: Any) -> bytes:
    return _encoder.encode(value).encode()


def encode_tree(value: Any) -> bytes:
    """`encode(value)`, except that `Encoded` values are spliced in as they are.

    Written out for the small shapes of this protocol (dicts with string keys, lists,
    strings, ints, booleans, null): `json.dumps` costs microseconds per call before it
    encodes anything, and these are encoded several times per request."""
    kind = type(value)
    if kind is Encoded:
        return value.data  # type: ignore[no-any-return]
    if kind is str:
        return _quote(value).encode()  # what `json.dumps` does with a string
    if kind is int:
        return b"%d" % value
    if value is None:
        return b"null"
    if kind is bool:
        return b"true" if value else b"false"
    if kind is list:
        items = [item.data if type(item) is Encoded else encode_tree(item) for item in value]
        return b"[" + b",".join(items) + b"]"
    if kind is dict:
        keys = _keys
        members = []
        for key, item in value.items():
            # A key seen before is a string (only strings are kept); a new one is looked
            # at once, instead of a pass over every key of every dict first.
            name = keys.get(key) if type(key) is str else None
            if name is None:
                if type(key) is not str:
                    return encode(value)
                name = _key(key)
            members.append(name + (item.data if type(item) is Encoded else encode_tree(item)))
        return b"{" + b",".join(members) + b"}"
    return encode(value)


def _key(key: str) -> bytes:
    encoded = _keys.get(key)
    if encoded is None:
        encoded = _quote(key).encode() + b":"
        if len(_keys) < 1000:
            _keys[key] = encoded
    return encoded


_keys: dict[str, bytes] = {}


def extend(obj: bytes, members: Json) -> bytes:
    """The encoded object `obj` with `members` appended (in order)."""
    if not members:
        return obj
    tail = encode_tree(members)
    if obj == b"{}":
        return tail
    return obj[:-1] + b"," + tail[1:]


class PhaseLayout:
    """One phase of an encoded state: its TodoPhase (`entry`, with each task's `Encoded`
    bytes), its task ids, and what it was made of (`key`: its name, its tasks' marks and
    which of them wait). A phase whose key is unchanged is this same object again, so a
    change delta skips it by identity (`lsp/deltas.py`)."""

    __slots__ = ("best", "closed", "entry", "ids", "key", "progress", "summary")

    def __init__(self, key: tuple[Any, ...], tasks: list[Task], entry: Json) -> None:
        self.key = key
        self.entry = entry
        self.ids = [task.id for task in tasks]
        parents = {task.parent for task in tasks if task.parent is not None}
        # Every parent its tasks name is in it: its counts and its current task are the
        # plan's for its part (else the plan's are counted over the plan).
        self.closed = parents.issubset(self.ids)
        self.progress = progress_of_tasks(tasks)
        self.best: Task | None = None  # its current task (`Plan.current` over it alone)
        for task in tasks:
            if (
                task.status == "in_progress"
                and task.id not in parents
                and (self.best is None or task.started_rank > self.best.started_rank)
            ):
                self.best = task
        # Its name and progress encoded, as a delta lists a phase whose ids are unchanged.
        self.summary: Encoded | None = None

    def summary_bytes(self) -> Encoded:
        if self.summary is None:
            entry = self.entry
            self.summary = Encoded(
                encode_tree({"name": entry["name"], "progress": entry["progress"]})
            )
        return self.summary


class Layout:
    """What one encoded state is made of, for a change delta (`lsp/deltas.py`): its
    version, the encoded tree (`state_json`'s shape with each task's `Encoded` bytes) and
    its phases' layouts, in order."""

    __slots__ = ("phases", "tree", "version")

    def __init__(self, version: int, tree: Json, phases: list[PhaseLayout]) -> None:
        self.version = version
        self.tree = tree
        self.phases = phases


def waiting_ids(plan: Plan) -> set[str]:
    """The ids of the tasks that wait (`Plan.is_waiting`), with one map of the plan's
    tasks instead of one per task that waits on another."""
    tasks = plan.task_list()
    blocked = [task for task in tasks if task.blocked_by]
    if not blocked:
        return set()
    by_id = {task.id: task for task in tasks}
    waiting = set()
    for task in blocked:
        for other_id in task.blocked_by:
            other = by_id.get(other_id)
            if other is not None and other.status not in FINISHED:
                waiting.add(task.id)
                break
    return waiting


def _current_and_progress(plan: Plan, phases: list[PhaseLayout]) -> tuple[Task | None, Json]:
    """`Plan.current` and `progress_json`, from the phases' own where each phase holds the
    parents its tasks name (a subtask and its parent in one phase): then a task is a leaf
    of the plan exactly when it is one of its phase."""
    if not all(phase.closed for phase in phases):
        return plan.current(), progress_json(plan)
    total = Progress(0, 0, 0)
    current: Task | None = None
    for phase in phases:
        counts = phase.progress
        total.completed += counts.completed
        total.abandoned += counts.abandoned
        total.blocked += counts.blocked
        total.total += counts.total
        best = phase.best
        if best is not None and (current is None or best.started_rank > current.started_rank):
            current = best
    return current, counts_json(total)


class StateEncoder:
    """Encodes TodoStates, reusing what was encoded before.

    A task's bytes are kept under its id with its mark (which every change of a field
    moves, `core/model.py`) and whether it waits, so a changed task is encoded again and
    an unchanged one is not even turned into its values; a phase's layout is kept with
    the marks of its tasks, so an unchanged phase is not walked. A session's state is
    kept with the plan object and the version it was encoded at: the store makes a new
    plan object whenever it forgets one (another process's commit, a rollback, a pruned
    session). Only the CACHED_ENCODINGS sessions encoded last are cached.
    """

    def __init__(self) -> None:
        self._tasks: OrderedDict[str, dict[str, tuple[int, bool, Encoded]]] = OrderedDict()
        self._phases: dict[str, dict[str, PhaseLayout]] = {}
        self._states: dict[str, tuple[Plan, int, bytes]] = {}
        # Each session's last encoded state's make-up (for change deltas).
        self._layouts: dict[str, Layout] = {}

    def layout(self, session: str, version: int) -> Layout | None:
        """The make-up of the session's state encoded last, if it was at `version`."""
        layout = self._layouts.get(session)
        return layout if layout is not None and layout.version == version else None

    def cached(self, plan: Plan) -> bytes | None:
        """The state encoded at this version of this plan object, if it was."""
        entry = self._states.get(plan.session)
        if entry is not None and entry[0] is plan and entry[1] == plan.version:
            return entry[2]
        return None

    def state(self, plan: Plan, *, keep: bool = False) -> bytes:
        """`encode(state_json(plan))`; with `keep`, remembered for `cached`."""
        data = encode_tree(self.layout_of(plan).tree)
        if keep:
            self._states[plan.session] = (plan, plan.version, data)
        return data

    def _session(self, session: str) -> dict[str, tuple[int, bool, Encoded]]:
        tasks = self._tasks.get(session)
        if tasks is None:
            tasks = self._tasks[session] = {}
            self._phases[session] = {}
            while len(self._tasks) > CACHED_ENCODINGS:
                oldest = next(iter(self._tasks))
                del self._tasks[oldest]
                self._phases.pop(oldest, None)
                self._states.pop(oldest, None)
                self._layouts.pop(oldest, None)
        else:
            self._tasks.move_to_end(session)
        return tasks

    def layout_of(self, plan: Plan) -> Layout:
        """The make-up of the plan's state (`state_json`'s, each task's kept bytes and each
        unchanged phase's kept layout), not encoded whole: a change delta is made of it
        alone (`lsp/deltas.py`)."""
        tasks = self._session(plan.session)
        kept = self._phases[plan.session]
        waiting = waiting_ids(plan)

        def fragment(task: Task) -> Encoded:
            is_waiting = task.id in waiting
            entry = tasks.get(task.id)
            if entry is not None and entry[0] == task.mark and entry[1] is is_waiting:
                return entry[2]
            encoded = Encoded(encode(task_json(task, is_waiting)))
            tasks[task.id] = (task.mark, is_waiting, encoded)
            return encoded

        phases: list[PhaseLayout] = []
        for phase in plan.phases:
            marks = tuple([task.mark for task in phase.tasks])
            waits = tuple(t.id for t in phase.tasks if t.id in waiting) if waiting else ()
            key = (marks, waits)
            before = kept.get(phase.name)
            if before is None or before.key != key:
                entry: Json = {
                    "name": phase.name,
                    "tasks": [fragment(task) for task in phase.tasks],
                    "progress": None,
                }
                before = kept[phase.name] = PhaseLayout(key, phase.tasks, entry)
                entry["progress"] = counts_json(before.progress)
            phases.append(before)
        if len(kept) > len(phases):  # phases gone (or two of one name): forget the rest
            names = {phase.name for phase in plan.phases}
            for name in [name for name in kept if name not in names]:
                del kept[name]
        current, progress = _current_and_progress(plan, phases)
        tree = {
            "session": plan.session,
            "title": plan.title,
            "version": plan.version,
            "phases": [phase.entry for phase in phases],
            "progress": progress,
            "current": fragment(current) if current else None,
            "updatedAt": plan.updated_at,
        }
        layout = Layout(plan.version, tree, phases)
        self._layouts[plan.session] = layout
        if len(tasks) > 2 * plan.task_count() + 16:  # drop the tasks removed since
            present = {task.id for task in plan.tasks()}
            for task_id in [task_id for task_id in tasks if task_id not in present]:
                del tasks[task_id]
        return layout
