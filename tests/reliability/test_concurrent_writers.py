"""Concurrent writers: two `plansight serve` processes and two CLI processes change the
same sessions of one store at once. No change may be lost, each session's versions must
run 1..N without a gap or a repeat, and replaying the event log on an empty store must
give the final state again.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from reliability_checks import Json, integrity, knob, store_state
from reliability_wire import WireClient

from plansight.protocol.models import REQUESTS
from plansight.protocol.requests import GetParams
from plansight.service import PlanService
from plansight.store.base import LoggedEvent
from plansight.store.sqlite import SqliteStore

CHANGES_EACH = 5 * -(-knob("PLANSIGHT_CONCURRENT_CHANGES", 250) // 5)  # whole tasks of five steps
# Two sessions per 250 changes a writer makes, so no session outgrows maxTasks (200).
SESSIONS = tuple(f"shared-{n}" for n in range(2 * -(-CHANGES_EACH // 250)))
WRITERS = ("server-0", "server-1", "cli-0", "cli-1")


def plan_of(writer: int) -> list[Json]:
    """The changes writer `writer` makes, in order: each one a real change (it always
    bumps the version), on its own tasks, spread over both sessions."""
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
        changes.append(
            {"session": SESSIONS[(j // 2) % len(SESSIONS)], "ops": ops, "origin": "agent"}
        )
    return changes


def expected_tasks(session: str) -> dict[str, tuple[str, list[str]]]:
    """content -> (phase, notes) of the tasks left once every writer is done: the odd
    ones, completed; the even ones were removed."""
    return {
        f"w{writer}-t{j}": (f"Writer {writer}", [f"n{j}", "after", "kept"])
        for writer in range(len(WRITERS))
        for j in range(CHANGES_EACH // 5)
        if j % 2 == 1 and SESSIONS[(j // 2) % len(SESSIONS)] == session
    }


CLI_LOOP = """
import contextlib, io, json, sys
from plansight.cli.main import main
db, changes = sys.argv[1], json.loads(sys.stdin.readline())
sys.stdin.readline()  # the go signal
acks = []
for change in changes:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["apply", "--db", db, "--session", change["session"], "--ops",
                     json.dumps(change["ops"]), "--json"])
    result = json.loads(out.getvalue())
    acks.append([result["session"], result["version"], result["changed"], code])
print(json.dumps(acks))
"""


def server_writer(
    client: WireClient, changes: list[Json], acks: list[Any], go: threading.Event
) -> None:
    go.wait()
    for change in changes:
        result = client.result("plansight/apply", change)
        acks.append(
            [result["session"], result["version"], result["changed"], int(result["isError"])]
        )


def writer_of(request: Json) -> str:
    op = request["ops"][0]
    return str(op.get("task") or op["items"][0]).split("-")[0]


def replay(events: list[LoggedEvent], db: Path) -> PlanService:
    """A fresh service on an empty store, fed the event log in order."""
    service = PlanService(SqliteStore(db))
    run = {
        "plansight/apply": service.apply,
        "plansight/write": service.write,
        "plansight/clear": service.clear,
        "plansight/import": service.import_markdown,
    }
    for event in events:
        request = event.request
        outcome = run[event.method](REQUESTS[event.method][0].validate(request), request)
        assert outcome.changed, event
        assert outcome.result["version"] == event.version, event
    return service


def outline_with_ids(state: Json) -> list[Any]:
    return [
        (p["name"], [(t["id"], t["content"], t["status"], t["notes"]) for t in p["tasks"]])
        for p in state["phases"]
    ]


def test_four_writers_lose_nothing_and_the_log_replays_to_the_same_state(
    tmp_path: Path, figures: Counter[str]
) -> None:
    db = tmp_path / "state" / "plans.sqlite3"
    plans = [plan_of(n) for n in range(len(WRITERS))]
    servers = [WireClient(db, log_dir=tmp_path / "logs") for _ in range(2)]
    for server in servers:
        server.initialize()
    clis = [
        subprocess.Popen(
            [sys.executable, "-c", CLI_LOOP, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    for n, cli in enumerate(clis):
        assert cli.stdin is not None
        cli.stdin.write(json.dumps(plans[2 + n]) + "\n")
        cli.stdin.flush()
    go = threading.Event()
    server_acks: list[list[Any]] = [[], []]
    threads = [
        threading.Thread(target=server_writer, args=(servers[n], plans[n], server_acks[n], go))
        for n in range(2)
    ]
    for thread in threads:
        thread.start()
    for cli in clis:
        assert cli.stdin is not None
        cli.stdin.write("go\n")
        cli.stdin.flush()
    go.set()
    cli_acks = []
    for cli in clis:
        out, err = cli.communicate(timeout=600)
        assert cli.returncode == 0, err
        cli_acks.append(json.loads(out))
    for thread in threads:
        thread.join()

    acks = [*server_acks, *cli_acks]
    versions: dict[str, list[int]] = {session: [] for session in SESSIONS}
    for writer, writer_acks in zip(WRITERS, acks, strict=True):
        assert len(writer_acks) == CHANGES_EACH, writer
        for session, version, changed, code in writer_acks:
            assert changed and code == 0, (writer, session, version)
            versions[session].append(version)
    for session, seen in versions.items():
        # Every acknowledged change has its own version, and there is no gap.
        assert sorted(seen) == list(range(1, len(seen) + 1)), session

    store = SqliteStore(db)
    switches = 0
    for session in SESSIONS:
        state = store_state(db, session)
        assert state["version"] == len(versions[session])
        tasks = {t["content"]: (p["name"], t["notes"]) for p in state["phases"] for t in p["tasks"]}
        assert tasks == expected_tasks(session), session
        statuses = {t["status"] for p in state["phases"] for t in p["tasks"]}
        assert statuses == {"completed"}, statuses

        events = store.events(session)
        assert [e.version for e in events] == list(range(1, len(versions[session]) + 1))
        replayed = replay(events, tmp_path / f"replay-{session}.sqlite3")
        again = replayed.get(GetParams(session=session))
        assert outline_with_ids(again) == outline_with_ids(state), session
        replayed.store.close()
        authors = [writer_of(e.request) for e in events]
        switches += sum(1 for a, b in itertools.pairwise(authors) if a != b)
    store.close()
    for server in servers:
        assert server.shutdown() == 0
        server.cleanup()
    assert integrity(db) == "ok"
    # The writers really took turns (a figure, not a check: the scheduler decides).
    figures["concurrency: turns between writers in the event log"] += switches
    figures["concurrency: writers"] += len(WRITERS)
    figures["concurrency: changes acknowledged"] += sum(len(a) for a in acks)
    figures["concurrency: changes lost"] += 0
