"""What the benchmark sends and how it times it: plans, request streams, round trips,
floods, cold starts and the CPU each side spends."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rpc import Json, Peer


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def median(samples: list[float]) -> float:
    return percentile(samples, 0.5)


def paired_ratio(ours: list[float], floor: list[float]) -> float:
    """The median of the ratios of blocks measured one right after the other: a burst of
    load on the machine then weighs on both sides of a ratio, not on one figure."""
    return median([a / b for a, b in zip(ours, floor, strict=True)])


def plan_ops(tasks: int, per_phase: int = 5) -> list[Json]:
    """An `init` op for a plan of `tasks` tasks, in phases of `per_phase`."""
    phases = []
    for start in range(0, tasks, per_phase):
        number = start // per_phase + 1
        items = [
            {
                "content": f"Implement step {i + 1} of the feature",
                "activeForm": f"Implementing step {i + 1} of the feature",
            }
            for i in range(start, min(tasks, start + per_phase))
        ]
        phases.append({"phase": f"Phase {number}", "items": items})
    return [{"op": "init", "list": phases}]


def nested_plan_ops(tasks: int, per_phase: int = 5) -> list[Json]:
    """An `init` op for a plan of `tasks` tasks nested three deep (protocol 4): each
    top-level task has three subtasks, each with two of its own (ten tasks a tree), in
    phases of `per_phase` trees. Ids go in document order: t1 the first tree's top, t2
    its first subtask, t3 and t4 that subtask's two leaves."""

    def item(name: str, subtasks: list[Json]) -> Json:
        made: Json = {"content": f"Implement {name}", "activeForm": f"Implementing {name}"}
        if subtasks:
            made["subtasks"] = subtasks
        return made

    def tree(top: int) -> Json:
        parts = [
            item(f"part {top}.{mid}", [item(f"part {top}.{mid}.{leaf}", []) for leaf in (1, 2)])
            for mid in (1, 2, 3)
        ]
        return item(f"part {top}", parts)

    trees = [tree(top + 1) for top in range(tasks // 10)]
    phases = [
        {"phase": f"Phase {start // per_phase + 1}", "items": trees[start : start + per_phase]}
        for start in range(0, len(trees), per_phase)
    ]
    return [{"op": "init", "list": phases}]


class Alternator:
    """`start` one task then another in turn (by default the first and the second):
    every apply is a real change."""

    def __init__(self, session: str, ids: tuple[str, str] = ("t1", "t2")) -> None:
        self.session = session
        self.ids = ids
        self.turn = 0

    def params(self) -> Json:
        self.turn += 1
        return {"session": self.session, "ops": [{"op": "start", "id": self.ids[self.turn % 2]}]}


def check_result(response: Json, what: str) -> Json:
    if "result" not in response:
        raise SystemExit(f"bench: {what} failed: {response.get('error')}")
    return response["result"]


async def sequential(peer: Peer, method: str, params: Any, count: int, push: bool) -> list[float]:
    """Round trips in microseconds, one request at a time."""
    samples = []
    clock = time.perf_counter_ns
    for _ in range(count):
        p = params() if callable(params) else params
        started = clock()
        if push:
            response = await peer.request_and_push(method, p)
        else:
            response = await peer.request(method, p)
        samples.append((clock() - started) / 1000)
        if "result" not in response:
            check_result(response, method)
    return samples


async def flood(peer: Peer, method: str, params: Any, total: int, window: int, push: bool) -> float:
    """Requests per second with `window` requests in flight; with `push`, the run ends
    when the `didChange` of every request has been read too."""
    loop = asyncio.get_running_loop()
    finished = loop.create_future()
    state = {"sent": 0, "answered": 0}
    pushes_before = peer.pushes

    def on_response(message: Json) -> None:
        if "result" not in message and not finished.done():
            finished.set_exception(SystemExit(f"bench: {method} failed: {message.get('error')}"))
            return
        state["answered"] += 1
        if state["sent"] < total:
            state["sent"] += 1
            peer.send(method, params() if callable(params) else params, on_response)
        elif state["answered"] == total and not finished.done():
            finished.set_result(None)

    started = time.perf_counter()
    for _ in range(min(window, total)):
        state["sent"] += 1
        peer.send(method, params() if callable(params) else params, on_response)
    await finished
    while push and peer.pushes - pushes_before < total:
        await peer.next_push()
    return total / (time.perf_counter() - started)


async def cold_start(
    argv: list[str], options: Json | None = None, env: dict[str, str] | None = None
) -> float:
    """Milliseconds from spawning the process to reading its `initialize` response."""
    started = time.perf_counter()
    peer = await Peer.spawn(argv, env)
    check_result(await peer.initialize(options), "initialize")
    elapsed = (time.perf_counter() - started) * 1000
    await peer.close()
    return elapsed


async def first_answer(argv: list[str], env: dict[str, str] | None = None) -> float:
    """Milliseconds from spawning a Plansight server to the answer of a `plansight/get`
    sent right behind `initialized`: when a client can first show a plan."""
    started = time.perf_counter()
    peer = await Peer.spawn(argv, env)
    check_result(await peer.initialize(), "initialize")
    check_result(await peer.request("plansight/get", {"session": "cold"}), "get")
    elapsed = (time.perf_counter() - started) * 1000
    await peer.close()
    return elapsed


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise SystemExit("bench: no VmHWM in /proc (Linux only)")


async def new_plan(peer: Peer, session: str, tasks: int, nested: bool = False) -> None:
    ops = nested_plan_ops(tasks) if nested else plan_ops(tasks, 20 if tasks > 20 else 5)
    response = await peer.request_and_push("plansight/apply", {"session": session, "ops": ops})
    result = check_result(response, "init")
    if "baseVersion" in result:  # a delta answer (`run.py --deltas`): the whole state
        state = check_result(await peer.request("plansight/get", {"session": session}), "get")
        result = {**state, "errors": result["errors"], "isError": result["isError"]}
    # Every task of the state (progress counts only the leaves of a nested plan).
    made = sum(len(phase["tasks"]) for phase in result["phases"])
    if made != tasks or result["isError"]:
        raise SystemExit(f"bench: the {tasks}-task plan was not made: {result['errors']}")


def on_cpu_ns(pid: int) -> int:
    """Nanoseconds the process's main thread has run on a CPU (Linux schedstat)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


@dataclass
class Series:
    """Round trips of one kind, with the CPU time each side spent on them."""

    samples: list[float] = field(default_factory=list)  # µs
    rounds: list[float] = field(default_factory=list)  # the p50 of each interleaved block
    server_ns: int = 0
    client_s: float = 0.0

    def server_us(self) -> float:
        return self.server_ns / 1000 / len(self.samples)

    def client_us(self) -> float:
        return self.client_s * 1e6 / len(self.samples)


async def measured(
    series: Series, peer: Peer, method: str, params: Any, count: int, push: bool
) -> None:
    server_before, client_before = on_cpu_ns(peer.process.pid), time.process_time()
    block = await sequential(peer, method, params, count, push)
    series.samples += block
    series.rounds.append(median(block))
    series.server_ns += on_cpu_ns(peer.process.pid) - server_before
    series.client_s += time.process_time() - client_before


@dataclass
class Flood:
    """Throughput rounds of one kind, with the CPU time each side spent on them."""

    rates: list[float] = field(default_factory=list)  # requests per second
    requests: int = 0
    server_ns: int = 0
    client_s: float = 0.0

    def server_us(self) -> float:
        return self.server_ns / 1000 / self.requests

    def client_us(self) -> float:
        return self.client_s * 1e6 / self.requests


async def flooded(
    run: Flood, peer: Peer, method: str, params: Any, total: int, window: int, push: bool
) -> None:
    server_before, client_before = on_cpu_ns(peer.process.pid), time.process_time()
    run.rates.append(await flood(peer, method, params, total, window, push))
    run.requests += total
    run.server_ns += on_cpu_ns(peer.process.pid) - server_before
    run.client_s += time.process_time() - client_before
