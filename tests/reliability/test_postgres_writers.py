"""Eight writer processes change ONE session of a PostgreSQL store at once, 200 changes
each. Every acknowledged change must have its own version, 1..1600 without a gap or a
repeat, and replaying the event log on an empty store (SQLite: the same rules on the other
backend) must give the final state again.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from reliability_checks import Json, knob
from test_concurrent_writers import outline_with_ids, replay

from plansight.protocol.requests import GetParams
from plansight.service import PlanService
from plansight.store import open_store

WRITERS = 8
CHANGES_EACH = 5 * -(-knob("PLANSIGHT_PG_WRITER_CHANGES", 200) // 5)  # whole tasks of five
SESSION = "shared"
WORKSPACE = "writers"

WRITER_LOOP = """
import json, sys
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import open_store
url, workspace, changes = sys.argv[1], sys.argv[2], json.loads(sys.stdin.readline())
service = PlanService(open_store(url, workspace=workspace))
sys.stdin.readline()  # the go signal
acks = []
for change in changes:
    result = service.apply(ApplyParams.validate(change), change).result
    acks.append([result["version"], result["changed"], result["isError"]])
service.store.close()
print(json.dumps(acks))
"""


def plan_of(writer: int) -> list[Json]:
    """Writer `writer`'s changes, each a real one (it always bumps the version), on its
    own tasks: add, note, complete, note, then remove every other task."""
    changes = []
    for i in range(CHANGES_EACH):
        j, step = divmod(i, 5)
        task = f"w{writer}-t{j}"
        ops: list[Json] = [
            [{"op": "append", "phase": f"Writer {writer}", "items": [task]}],
            [{"op": "note", "task": task, "text": f"n{j}"}],
            [{"op": "done", "task": task}],
            [{"op": "note", "task": task, "text": "after"}],
            [{"op": "rm", "task": task}]
            if j % 2 == 0
            else [{"op": "note", "task": task, "text": "kept"}],
        ][step]
        changes.append({"session": SESSION, "ops": ops, "origin": "agent"})
    return changes


def test_eight_writer_processes_on_one_session_get_gap_free_versions(
    postgres_url: str, tmp_path: Path
) -> None:
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER_LOOP, postgres_url, WORKSPACE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(WRITERS)
    ]
    for n, writer in enumerate(writers):
        assert writer.stdin is not None
        writer.stdin.write(json.dumps(plan_of(n)) + "\n")
        writer.stdin.flush()
    for writer in writers:  # all connected: go at once
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
    acks: list[list[Any]] = []
    for writer in writers:
        out, err = writer.communicate(timeout=600)
        assert writer.returncode == 0, err
        acks.append(json.loads(out))

    versions = []
    for writer_acks in acks:
        assert len(writer_acks) == CHANGES_EACH
        for version, changed, is_error in writer_acks:
            assert changed and not is_error
            versions.append(version)
    assert sorted(versions) == list(range(1, WRITERS * CHANGES_EACH + 1))

    store = open_store(postgres_url, workspace=WORKSPACE)
    try:
        state = PlanService(store).get(GetParams(session=SESSION))
        events = store.events(SESSION)
    finally:
        store.close()
    assert state["version"] == WRITERS * CHANGES_EACH
    assert [e.version for e in events] == list(range(1, WRITERS * CHANGES_EACH + 1))
    tasks = {t["content"]: (p["name"], t["notes"]) for p in state["phases"] for t in p["tasks"]}
    assert tasks == {
        f"w{w}-t{j}": (f"Writer {w}", [f"n{j}", "after", "kept"])
        for w in range(WRITERS)
        for j in range(CHANGES_EACH // 5)
        if j % 2 == 1
    }
    replayed = replay(events, tmp_path / "replay.sqlite3")
    try:
        assert outline_with_ids(replayed.get(GetParams(session=SESSION))) == outline_with_ids(state)
    finally:
        replayed.store.close()
