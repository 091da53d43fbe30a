"""Steering (v3): what merging an agent's whole list costs, side by side in one run.

    .venv/bin/python bench/steering.py --baseline /work/main/server   # against main's server
    .venv/bin/python bench/steering.py --quick

An agent's `write` (TodoWrite) and `ingest` (claude-todowrite) of a 200-task plan, each
changing one task's status so every request commits:
- no person change: the agent saw the current version, so the server runs version 2's
  replacement as it was (the fast path); measured against the baseline checkout's server
  (before steering) in interleaved blocks;
- with person changes: before each measured request a person (origin "user", not timed)
  completes a task, so the agent's list is stale and is merged from the plan at its base
  (the v2 replacement on a copy of the base, the merge, the Kept line). Every one of them
  merges: the agent's list, told of the completion, still says `pending`, so it reopens
  the task (its own change wins) and the person's next `done` changes the plan again.

Besides the round trip, the server process's own CPU time per request (user + system,
from /proc, read around each timed request): on a loaded machine the round trip is mostly
waiting for a core.

Each server has its own SQLite store (an older server cannot open a migrated store).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from report import Row, table, verdict
from rpc import Json, Peer
from stored import Version, serve_argv
from workload import check_result, median, paired_ratio

TASKS = 200
SESSION = "steer"


def todos(turn: int) -> list[Json]:
    """The agent's whole list: task 1 and task 2 take turns in progress."""
    items = []
    for i in range(TASKS):
        status = "in_progress" if i == turn % 2 else "pending"
        items.append(
            {
                "content": f"Implement step {i + 1} of the feature",
                "activeForm": f"Implementing step {i + 1} of the feature",
                "status": status,
            }
        )
    return items


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used so far (user + system), from /proc."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Agent:
    """One server, its session of 200 tasks, and the requests the agent and a person send."""

    def __init__(self, peer: Peer, method: str) -> None:
        self.peer = peer
        self.method = method
        self.turn = 0
        self.person_turn = 0
        self.cpu: dict[bool, list[float]] = {False: [], True: []}  # by with_person

    def params(self) -> Json:
        self.turn += 1
        if self.method == "plansight/write":
            return {"session": SESSION, "todos": todos(self.turn)}
        payload = {"todos": todos(self.turn)}
        return {"session": SESSION, "format": "claude-todowrite", "payload": payload}

    async def person_changes(self) -> None:
        """A person completes a task near the end of the plan, from the editor."""
        self.person_turn += 1
        task = f"Implement step {TASKS - self.person_turn % 50} of the feature"
        op = {"op": "done", "task": task}
        response = await self.peer.request_and_push(
            "plansight/apply", {"session": SESSION, "origin": "user", "ops": [op]}
        )
        if not check_result(response, "person's apply")["changed"]:
            raise SystemExit("bench: the person's change changed nothing: nothing to merge")

    async def block(self, count: int, with_person: bool) -> list[float]:
        samples = []
        for _ in range(count):
            if with_person:
                await self.person_changes()
            params = self.params()
            cpu = cpu_seconds(self.peer.process.pid)
            started = time.perf_counter_ns()
            response = await self.peer.request_and_push(self.method, params)
            samples.append((time.perf_counter_ns() - started) / 1000)
            self.cpu[with_person].append(cpu_seconds(self.peer.process.pid) - cpu)
            check_result(response, self.method)
        return samples

    def cpu_ms(self, with_person: bool) -> float:
        """The server's mean CPU time per timed request, in ms."""
        spent = self.cpu[with_person]
        return 1000 * sum(spent) / len(spent)


async def spawn(version: Version, db: Path, method: str) -> Agent:
    peer = await Peer.spawn(serve_argv(db), env=version.env)
    check_result(await peer.initialize(), "initialize")
    agent = Agent(peer, method)
    check_result(await peer.request_and_push(method, agent.params()), "first write")
    return agent


async def measure(
    folder: Path, baseline: Version | None, count: int, block: int, log: Any
) -> list[Row]:
    rows: list[Row] = []
    this = Version("this checkout", {})
    for method in ("plansight/write", "plansight/ingest"):
        name = method.removeprefix("plansight/")
        ours = await spawn(this, folder / f"{name}-ours.sqlite3", method)
        theirs = (
            await spawn(baseline, folder / f"{name}-before.sqlite3", method) if baseline else None
        )
        try:
            await ours.block(block, False)  # warm up
            if theirs is not None:
                await theirs.block(block, False)
                theirs.cpu[False].clear()
            ours.cpu[False].clear()
            fast: list[float] = []
            merged: list[float] = []
            before: list[float] = []
            fast_rounds: list[float] = []
            merged_rounds: list[float] = []
            before_rounds: list[float] = []
            log(f"steering: {name} of {TASKS} tasks, {count} of each, in blocks of {block}")
            for _ in range(count // block):
                samples = await ours.block(block, False)
                fast += samples
                fast_rounds.append(median(samples))
                samples = await ours.block(block, True)
                merged += samples
                merged_rounds.append(median(samples))
                if theirs is not None:
                    samples = await theirs.block(block, False)
                    before += samples
                    before_rounds.append(median(samples))
        finally:
            await ours.peer.close()
            if theirs is not None:
                await theirs.peer.close()
        reference, reference_rounds, label = (
            (before, before_rounds, baseline.label)
            if baseline is not None
            else (fast, fast_rounds, "no person change")
        )
        if baseline is not None:
            ratio = paired_ratio(fast_rounds, before_rounds)
            rows.append(
                Row(
                    f"`{name}` p50 on {TASKS} tasks, with its push: no person change",
                    f"{median(fast):.0f} µs",
                    f"{median(reference):.0f} µs ({label})",
                    f"{ratio:.2f}x",
                    "<= 1.1x",
                    verdict(ratio <= 1.1),
                )
            )
        ratio = paired_ratio(merged_rounds, reference_rounds)
        cpu_reference = theirs.cpu_ms(False) if theirs is not None else ours.cpu_ms(False)
        rows.append(
            Row(
                f"`{name}` p50 on {TASKS} tasks, with its push: a person's change before each "
                "(merged)",
                f"{median(merged):.0f} µs",
                f"{median(reference):.0f} µs ({label})",
                f"{ratio:.2f}x",
                "<= 1.3x",
                verdict(ratio <= 1.3),
            )
        )
        for with_person, what, target in ((False, "no person change", 1.1), (True, "merged", 1.3)):
            cpu = ours.cpu_ms(with_person)
            rows.append(
                Row(
                    f"`{name}`: the server's CPU per request, {what}",
                    f"{cpu:.2f} ms",
                    f"{cpu_reference:.2f} ms ({label})",
                    f"{cpu / cpu_reference:.2f}x",
                    f"<= {target}x",
                    verdict(cpu / cpu_reference <= target),
                )
            )
    return rows


async def main(args: argparse.Namespace) -> int:
    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:5.1f} s] {message}", file=sys.stderr, flush=True)

    baseline = (
        Version(f"before: {args.baseline}", {"PYTHONPATH": str(Path(args.baseline).resolve())})
        if args.baseline
        else None
    )
    count, block = (60, 20) if args.quick else (600, 50)
    with tempfile.TemporaryDirectory(prefix="plansight-steer-bench-") as folder:
        rows = await measure(Path(folder), baseline, count, block, log)
    print(table(rows))
    return 0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="small samples, indicative only")
    parser.add_argument(
        "--baseline", metavar="SERVER_DIR", help="another checkout's server/ folder to compare"
    )
    return parser.parse_args()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
