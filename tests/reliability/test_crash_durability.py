"""Crash durability: kill -9 the server at random moments while a client streams
changes, restart it on the same store, and check that nothing acknowledged was lost and
nothing half-written shows.

Every change `i` of a session is one `apply` with four ops: it appends `a<i>` and `b<i>`,
notes `a<i>` and completes `b<i>`. After any crash the session must hold exactly changes
0..k-1, each whole, at version k, with k at least every acknowledged change, and one
event per version; and SQLite's `integrity_check` must say ok.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from reliability_checks import Json, integrity, knob, store_state
from reliability_wire import WireClient, Zygote

CRASH_CYCLES = knob("PLANSIGHT_CRASH_CYCLES", 50)
LANES = 2  # servers crashing side by side on the same store
CYCLES_PER_SESSION = 5
SETTINGS = {"maxTasks": 100_000, "maxSessions": 100_000}


def change(i: int) -> Json:
    return {
        "ops": [
            {"op": "append", "phase": f"Phase {i % 3}", "items": [f"a{i}", f"b{i}"]},
            {"op": "note", "task": f"a{i}", "text": f"note {i}"},
            {"op": "done", "task": f"b{i}"},
            {"op": "start", "task": f"a{i}"},
        ]
    }


@dataclass
class Lane:
    number: int
    db: Path
    rng: random.Random
    acked: dict[str, int] = field(default_factory=dict)  # session -> changes acknowledged
    sent: dict[str, int] = field(default_factory=dict)  # session -> changes sent
    counts: Counter[str] = field(default_factory=Counter)


def verify(db: Path, session: str, acked: int, sent: int) -> int:
    """The session holds whole changes 0..k-1 and nothing else; returns k."""
    state = store_state(db, session)
    tasks = {t["content"]: t for phase in state["phases"] for t in phase["tasks"]}
    k = state["version"]
    assert acked <= k <= sent, f"{session}: {acked} acknowledged, {sent} sent, version {k}"
    assert len(tasks) == 2 * k, f"{session}: {len(tasks)} tasks at version {k}"
    for i in range(k):
        a, b = tasks[f"a{i}"], tasks[f"b{i}"]
        assert a["notes"] == [f"note {i}"], a
        assert b["status"] == "completed", b
    in_progress = [t["content"] for t in tasks.values() if t["status"] == "in_progress"]
    assert in_progress == ([f"a{k - 1}"] if k else []), in_progress
    return k


def events_of(db: Path, session: str) -> list[int]:
    if not db.exists():  # a server killed before its first change leaves no store
        return []
    connection = sqlite3.connect(db, timeout=30)
    try:
        rows = connection.execute(
            "SELECT version FROM events WHERE session = ? ORDER BY seq", (session,)
        ).fetchall()
    finally:
        connection.close()
    return [row[0] for row in rows]


def kill_during_start_up(client: WireClient) -> None:
    """Killed while starting (on a lane's first cycle: while creating the store)."""
    client.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    client.kill()


def crash_cycle(lane: Lane, cycle: int, client: WireClient) -> None:
    session = f"lane{lane.number}-{cycle // CYCLES_PER_SESSION}"
    rng = lane.rng
    client.initialize(SETTINGS)
    # The restart: the server must show every change acknowledged before the last kill.
    for earlier, acked in lane.acked.items():
        state = client.result("plansight/get", {"session": earlier})
        assert state["version"] >= acked, (earlier, acked, state["version"])
    done = verify(lane.db, session, lane.acked.get(session, 0), lane.sent.get(session, 0))
    lane.acked[session] = lane.sent[session] = done
    # Some answered changes, then a few in flight when the kill lands.
    for _ in range(rng.randint(0, 12)):
        i = lane.sent[session]
        lane.sent[session] += 1
        result = client.result("plansight/apply", {"session": session, **change(i)})
        assert result["version"] == i + 1 and not result["isError"], result
        lane.acked[session] = i + 1
    in_flight = {}
    for _ in range(rng.randint(1, 4)):
        i = lane.sent[session]
        lane.sent[session] += 1
        in_flight[client.request("plansight/apply", {"session": session, **change(i)})] = i
    os.kill(client.pid, signal.SIGKILL)
    # Whatever answer reached us before the kill is an acknowledgement too.
    while (message := client.read_message(killed=True)) is not None:
        if message.get("id") in in_flight and "result" in message:
            lane.acked[session] = max(lane.acked[session], in_flight[message["id"]] + 1)
            lane.counts["answers that beat the kill"] += 1
    client.kill()
    lane.counts["kills mid-stream"] += 1


def run_lane(
    lane: Lane, cycles: int, zygote: Zygote, log_dir: Path, errors: list[BaseException]
) -> None:
    def start(cycle: int) -> WireClient:
        # Every tenth server is started cold, as an editor starts it.
        return WireClient(lane.db, log_dir=log_dir) if cycle % 10 == 0 else zygote.spawn(lane.db)

    try:
        for cycle in range(cycles):
            if lane.rng.random() < 0.15:
                kill_during_start_up(start(cycle + 1))
                lane.counts["kills during start-up"] += 1
            crash_cycle(lane, cycle, start(cycle))
            if cycle % 5 == 4:
                assert integrity(lane.db) == "ok"
    except BaseException as exc:
        errors.append(exc)


@pytest.fixture
def zygote(tmp_path: Path) -> Iterator[Zygote]:
    started = Zygote(tmp_path / "zygote")
    yield started
    started.close()


def test_kill_9_loses_nothing_acknowledged_and_shows_nothing_half_written(
    tmp_path: Path, zygote: Zygote, figures: Counter[str]
) -> None:
    db = tmp_path / "state" / "plans.sqlite3"
    seed = int(os.environ.get("PLANSIGHT_CRASH_SEED", "20240611"))
    lanes = [Lane(n, db, random.Random(seed + n)) for n in range(LANES)]
    errors: list[BaseException] = []
    per_lane = -(-CRASH_CYCLES // LANES)
    threads = [
        threading.Thread(target=run_lane, args=(lane, per_lane, zygote, tmp_path / "logs", errors))
        for lane in lanes
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]

    # The final restart: one more server reads everything back.
    final = WireClient(db, log_dir=tmp_path / "logs")
    final.initialize(SETTINGS)
    checked = 0
    for lane in lanes:
        for session, acked in lane.acked.items():
            k = verify(db, session, acked, lane.sent[session])
            assert final.result("plansight/get", {"session": session})["version"] == k
            assert events_of(db, session) == list(range(1, k + 1)), session
            checked += acked
    assert final.shutdown() == 0
    assert integrity(db) == "ok"

    totals: Counter[str] = Counter()
    for lane in lanes:
        totals.update(lane.counts)
    assert totals["kills mid-stream"] >= CRASH_CYCLES
    kills = totals["kills during start-up"] + totals["kills mid-stream"]
    figures["crash: kill -9 survived"] += kills
    figures["crash: kills mid-stream"] += totals["kills mid-stream"]
    figures["crash: acknowledged changes checked"] += checked
    figures["crash: acknowledged changes lost"] += 0
