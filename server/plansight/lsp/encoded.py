"""JSON encoded once and sent as is.

A plan's TodoState is the bulk of every response and push. Each task's JSON is encoded
once per state of that task, each session's TodoState once per committed version, and
the bytes are spliced into what is sent: the `get` response, the `apply` result (the
state and its summary members) and the `didChange` push (the state, its origin and
completed tasks). `wire.state_json` stays the one description of the shape.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from json.encoder import encode_basestring_ascii
from typing import Any

from plansight.core.model import Plan, Task
from plansight.wire import Json, state_json, task_json

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


class Layout:
    """What one encoded state is made of, for a change delta (`lsp/deltas.py`): its
    version, the encoded tree (`state_json` with each task's `Encoded` bytes) and the
    task ids in the order `state_json` encoded them (the phases' tasks, then `current`)."""

    __slots__ = ("order", "tree", "version")

    def __init__(self, version: int, tree: Json, order: list[str]) -> None:
        self.version = version
        self.tree = tree
        self.order = order


class StateEncoder:
    """Encodes TodoStates, reusing what was encoded before.

    A task's bytes are cached under its id with everything its JSON is made of, so a
    change to any field encodes it again. A session's state is kept with the plan
    object and the version it was encoded at: the store makes a new plan object
    whenever it forgets one (another process's commit, a rollback, a pruned session).
    Only the CACHED_ENCODINGS sessions encoded last are cached.
    """

    def __init__(self) -> None:
        self._tasks: OrderedDict[str, dict[str, tuple[tuple[Any, ...], Encoded]]] = OrderedDict()
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

    def layout_of(self, plan: Plan) -> Layout:
        """The make-up of the plan's state (`state_json` with each task's kept bytes), not
        encoded whole: a change delta is made of it alone (`lsp/deltas.py`)."""
        tasks = self._tasks.get(plan.session)
        if tasks is None:
            tasks = self._tasks[plan.session] = {}
            while len(self._tasks) > CACHED_ENCODINGS:
                oldest = next(iter(self._tasks))
                del self._tasks[oldest]
                self._states.pop(oldest, None)
                self._layouts.pop(oldest, None)
        else:
            self._tasks.move_to_end(plan.session)

        order: list[str] = []

        def fragment(task: Task, waiting: bool) -> Encoded:
            # Every field of the task (the model's one list) and what is derived from it.
            order.append(task.id)
            key = (task.values(), waiting)
            entry = tasks.get(task.id)
            if entry is not None and entry[0] == key:
                return entry[1]
            encoded = Encoded(encode(task_json(task, waiting)))
            tasks[task.id] = (key, encoded)
            return encoded

        layout = Layout(plan.version, state_json(plan, fragment), order)
        self._layouts[plan.session] = layout
        if len(tasks) > 2 * plan.task_count() + 16:  # drop the tasks removed since
            present = {task.id for task in plan.tasks()}
            for task_id in [task_id for task_id in tasks if task_id not in present]:
                del tasks[task_id]
        return layout
