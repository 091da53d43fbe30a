"""The core's work follows the change (issue 34 item 3), and what it caches is never stale.

A change's before-and-after, the store's rows, the summary's lines and the nesting rules
are read from the tasks a change touched, against what was cached of each task with its
mark (`core/found.py`). Random sequences of requests on one session (ops of every kind,
a change that changes nothing, a refused one, a person's change and the agent's stale
whole list merged, `init`, `write`, undo and restore, a task made to wait on another,
a change of another process) check every answer against the same things computed from
scratch on a fresh copy of the plan: whether it changed, what it completed and removed,
the times put back when nothing changed, the summary, the plan a fresh store reads back
from the rows written, and the nesting rules settled. And the state the encoder builds
from its kept task bytes and phase layouts (`lsp/encoded.py`) is byte for byte
`state_json`'s, and a client laying each change delta (`lsp/deltas.py`) on what it held
holds the state a fresh reading encodes.
"""

from __future__ import annotations

import copy
import json
import pickle
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from plansight.core.errors import RequestRefused, VersionConflict
from plansight.core.model import FINISHED, Plan, Task, utc_now
from plansight.core.nesting import settle, settled_current
from plansight.core.record import plan_record
from plansight.core.summary import plan_lines, progress_line, summarize
from plansight.lsp.deltas import DeltaPushes
from plansight.lsp.encoded import StateEncoder, encode, encode_tree
from plansight.pipeline import Outcome
from plansight.protocol.requests import ApplyParams, RestoreParams, UndoParams, WriteParams
from plansight.service import PlanService
from plansight.store import open_store
from plansight.store.rules import FULL_PLAN_EVERY
from plansight.store.snapshots import is_whole
from plansight.store.sqlite.reads import _read_copy
from plansight.wire import STATE_KEYS, state_json

Json = dict[str, Any]
SESSION = "s"
KINDS = (
    "start", "done", "drop", "block", "note", "rm", "reopen", "rename", "same",
    "append", "append_under", "move", "start_current", "missing", "init", "write",
    "merge", "person", "undo", "restore", "clear", "done_phase", "wait", "elsewhere",
)  # fmt: skip


def _values(plan: Plan) -> Json:
    """Everything a plan holds that is stored, stamps included."""
    return {
        "title": plan.title,
        "next_id": plan.next_id,
        "phases": [(p.name, [t.values() for t in p.tasks]) for p in plan.phases],
    }


def _init_ops(k: int) -> list[Json]:
    subtasks = [{"content": f"leaf {k}.{i}", "activeForm": f"leaf {k}.{i}"} for i in (1, 2)]
    items = [
        {"content": f"top {k}", "activeForm": f"top {k}", "subtasks": subtasks},
        {"content": f"flat {k}", "activeForm": f"flat {k}", "status": "completed"},
    ]
    later = [{"content": f"later {k}", "activeForm": f"later {k}"}]
    return [
        {"op": "init", "list": [{"phase": "A", "items": items}, {"phase": "B", "items": later}]}
    ]


class Story:
    """One session in a fresh store, changed request by request and checked after each."""

    def __init__(self, folder: str) -> None:
        self.path = str(Path(folder) / "plans.sqlite3")
        self.service = PlanService(open_store(self.path))
        self.made = 0
        self.stale: tuple[list[Json], int] = ([], 0)  # the agent's list, and its version
        # An editor of change deltas: what the server encodes and sent it, and what it holds.
        self.encoder = StateEncoder()
        self.pushes = DeltaPushes(answers=True)
        self.held: Json | None = None

    def fresh(self) -> str:
        self.made += 1
        return f"new {self.made}"

    def apply(self, ops: list[Json], origin: str = "agent") -> Outcome:
        request = {"session": SESSION, "ops": ops, "origin": origin}
        return self.service.apply(ApplyParams.validate(request), request)

    def write(self, todos: list[Json], **extra: Any) -> Outcome:
        request = {"session": SESSION, "todos": todos, **extra}
        return self.service.write(WriteParams.validate(request), request)

    def todos(self) -> list[Json]:
        plan = self.service.load(SESSION)
        return [
            {"content": t.content, "activeForm": t.active_form, "status": t.status, "phase": p.name}
            for p, t in plan.tasks_with_phase()
            if t.parent is None
        ]

    def run(self, kind: str, k: int) -> Outcome:
        plan = self.service.load(SESSION)
        tasks = list(plan.tasks())
        task = tasks[k % len(tasks)] if tasks else None
        other = tasks[(k * 7 + 3) % len(tasks)] if tasks else None
        if kind == "init" or task is None or other is None:
            return self.apply(_init_ops(k))
        if kind in ("start", "done", "drop", "block", "rm"):
            return self.apply([{"op": kind, "id": task.id}])
        if kind == "note":
            return self.apply([{"op": "note", "id": task.id, "text": f"note {k}"}])
        if kind == "reopen":
            return self.apply([{"op": "update", "id": task.id, "status": "pending"}])
        if kind == "rename":
            return self.apply([{"op": "update", "id": task.id, "content": self.fresh()}])
        if kind == "same":  # a change that changes nothing: same content, then start and back
            current = plan.current()
            ops: list[Json] = [{"op": "update", "id": task.id, "content": task.content}]
            if current is not None and current.id != task.id:
                ops += [{"op": "start", "id": task.id}, {"op": "start", "id": current.id}]
            return self.apply(ops)
        if kind == "append":
            return self.apply([{"op": "append", "items": [self.fresh()], "phase": "B"}])
        if kind == "append_under":
            return self.apply([{"op": "append", "parent": task.id, "items": [self.fresh()]}])
        if kind == "move":
            where = ("before", "after", "parent")[k % 3]
            return self.apply([{"op": "move", "id": task.id, where: other.id}])
        if kind == "start_current":
            current = plan.current()
            return self.apply([{"op": "start", "id": (current or task).id}])
        if kind == "missing":
            return self.apply([{"op": "done", "id": "t999"}])
        if kind == "done_phase":
            return self.apply([{"op": "done", "phase": "B"}])
        if kind == "write":
            todos = self.todos()
            todos.append({"content": self.fresh(), "activeForm": "doing", "status": "pending"})
            return self.write(todos)
        if kind == "merge":  # the agent's stale list (`check` has a person change it first)
            todos, version = self.stale
            return self.write(todos, baseVersion=version, merge=True)
        if kind == "person":
            return self.apply([{"op": "start", "id": task.id}], origin="user")
        if kind == "person_done":
            return self.apply([{"op": "done", "id": task.id}], origin="user")
        if kind == "wait":  # waits on another task (`waiting`, from the plan's other tasks)
            return self.apply([{"op": "update", "id": task.id, "blockedBy": [other.id]}])
        if kind == "elsewhere":  # after another process's commit (`check`): read again
            return self.apply([{"op": "note", "id": other.id, "text": self.fresh()}])
        if kind == "undo":
            undo = {"session": SESSION}
            return self.service.undo(UndoParams.validate(undo), undo)
        if kind == "restore":
            restore = {"session": SESSION, "version": max(1, plan.version - 1 - k % 3)}
            return self.service.restore(RestoreParams.validate(restore), restore)
        return self.service.clear(*_clear(SESSION))

    def check(self, kind: str, k: int) -> None:
        if kind == "merge":
            self.stale = (self.todos(), self.service.load(SESSION).version)
            self.check("person_done", k)
        if kind == "elsewhere":  # another process commits; this one's plan is made again
            service = PlanService(open_store(self.path))
            try:
                plan = service.load(SESSION)
                task = plan.task_list()[k % plan.task_count()] if plan.task_count() else None
                ops = [{"op": "done", "id": task.id}] if task else _init_ops(k)
                request = {"session": SESSION, "ops": ops}
                service.apply(ApplyParams.validate(request), request)
            finally:
                service.close()
        before = self.service.load(SESSION).copy()
        try:
            outcome = self.run(kind, k)
        except (RequestRefused, VersionConflict):
            assert _values(self.service.load(SESSION)) == _values(before)
            return
        after = outcome.plan
        changed = after.fingerprint() != before.fingerprint()
        assert outcome.changed == changed, kind
        if not changed:  # the times and the id counter go back too
            assert _values(after) == _values(before), kind
        was = {t.id: t.status for t in before.tasks()}
        completed = [
            {"id": t.id, "content": t.content, "phase": p.name}
            for p, t in after.tasks_with_phase()
            if t.status == "completed" and was.get(t.id) != "completed"
        ]
        assert outcome.completed == completed, kind
        present = {t.id for t in after.tasks()}
        removed = [
            {"id": t.id, "content": t.content, "phase": p.name}
            for p, t in before.tasks_with_phase()
            if t.status not in FINISHED and t.id not in present
        ]
        assert outcome.removed == removed, kind
        fresh = after.copy()  # new task objects: nothing cached on them
        assert summarize(after, [], "H") == summarize(fresh, [], "H"), kind
        # The answer's summary (its progress and current task read once in the change,
        # each phase's lines and progress cached against its tasks' marks) is a fresh one.
        if not fresh.is_empty():
            assert f": {progress_line(fresh)}\n" in outcome.summary + "\n", kind
            assert outcome.summary.endswith("\n".join(plan_lines(fresh))), kind
        settle(fresh, utc_now())
        assert _values(fresh) == _values(after), kind  # the nesting rules hold
        # The current task read from the tasks in progress alone (a settled plan's).
        assert settled_current(after) is after.current(), kind
        # What is read back from the rows written is the plan (read as another program
        # would: a store opened on the file would make this one read its copy again).
        with closing(sqlite3.connect(self.path)) as db:
            assert _values(_read_copy(db, SESSION).plan) == _values(after), kind
            if changed:
                _check_kept_plan(db, after)
        self.check_delta(after, kind)

    def check_delta(self, plan: Plan, kind: str) -> None:
        """The editor lays the change's delta (or takes the whole state) and holds what a
        fresh encoding of the plan says."""
        layout = self.encoder.layout_of(plan)
        whole = encode(state_json(plan))
        assert encode_tree(layout.tree) == whole, kind
        delta = self.pushes.change(SESSION, layout)
        if delta is None or self.held is None:
            self.held = json.loads(whole)
        else:
            self.held = _lay(self.held, json.loads(delta.with_members({}).data))
        assert self.held == json.loads(encode(state_json(plan.copy()))), kind


def _lay(held: Json, delta: Json) -> Json:
    """A client's side of the contract (docs/protocol.md, "Change deltas")."""
    assert delta["baseVersion"] == held["version"]
    tasks = {task["id"]: task for phase in held["phases"] for task in phase["tasks"]}
    ids_held = {phase["name"]: [task["id"] for task in phase["tasks"]] for phase in held["phases"]}
    tasks.update((task["id"], task) for task in delta["tasks"])
    for task_id in delta["removedIds"]:
        del tasks[task_id]
    phases = [
        {
            "name": phase["name"],
            "tasks": [tasks[i] for i in phase.get("taskIds", ids_held.get(phase["name"], []))],
            "progress": phase["progress"],
        }
        for phase in delta["phases"]
    ]
    return {key: phases if key == "phases" else delta[key] for key in STATE_KEYS}


def _check_kept_plan(db: sqlite3.Connection, plan: Plan) -> None:
    """The whole plan kept with a version for `restore` (made from the rows written, each
    task's part kept with its row from the record before) is the plan's record, byte for
    byte as it was encoded whole."""
    (kept,) = db.execute(
        "SELECT snapshot FROM events WHERE session = ? AND version = ?", (SESSION, plan.version)
    ).fetchone()
    if kept is not None and is_whole(json.loads(kept)):
        assert kept == json.dumps(plan_record(plan), ensure_ascii=False)


def test_no_two_task_objects_hold_one_mark() -> None:
    # The caches keep lists of marks and take equal lists for the same task objects in
    # the same places (`core/model.py`): a copy made any way is marked anew.
    task = Task("t1", "a", "a", "pending", ["n"], "2026", "2026", parent="t0")
    copies = [task.copy(), copy.copy(task), copy.deepcopy(task), pickle.loads(pickle.dumps(task))]
    marks = [task.mark, *(made.mark for made in copies)]
    assert len(set(marks)) == len(marks)
    assert all(made == task for made in copies)  # equal values, new marks


def test_the_kept_whole_plans_are_the_plans_records() -> None:
    """Across several whole plans kept (every FULL_PLAN_EVERY-th version), each made from
    the parts kept with the one before where the task did not change."""
    with tempfile.TemporaryDirectory(prefix="plansight-kept-") as folder:
        story = Story(folder)
        try:
            story.check("init", 0)
            note = {"op": "note", "id": "t2", "text": 'é \u2028 "quoted" ✓'}
            story.apply([{"op": "append", "phase": "Ünïcode", "content": "naïve ✓"}, note])
            for i in range(3 * FULL_PLAN_EVERY):
                kind = ("start", "done", "note", "rename", "append", "rm")[i % 6]
                story.check(kind, i)
            with closing(sqlite3.connect(story.path)) as db:
                (whole,) = db.execute(
                    "SELECT count(*) FROM events WHERE session = ? AND snapshot LIKE '%\"phases\"%'",
                    (SESSION,),
                ).fetchone()
            assert whole >= 3
        finally:
            story.service.close()


def _clear(session: str) -> tuple[Any, Json]:
    from plansight.protocol.requests import ClearParams

    request = {"session": session}
    return ClearParams.validate(request), request


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 50)), min_size=1, max_size=25))
# A task of phase A waits on B's; B is done: A's tasks are the same, whether one waits not.
@example([("wait", 3), ("done_phase", 0), ("elsewhere", 2), ("undo", 0), ("restore", 1)])
def test_what_a_change_did_is_what_a_fresh_reading_says(steps: list[tuple[str, int]]) -> None:
    with tempfile.TemporaryDirectory(prefix="plansight-follows-") as folder:
        story = Story(folder)
        try:
            story.check("init", 0)
            for kind, k in steps:
                story.check(kind, k)
        finally:
            story.service.close()
