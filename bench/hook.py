"""`plansight hook` as the agent runs it: a whole process per event, timed from spawn to
exit, side by side with a bare interpreter start (`python -c pass`) in the same run.

    .venv/bin/python bench/hook.py            # 40 rounds of each kind (about a minute)
    .venv/bin/python bench/hook.py --rounds 10

Each round runs every kind once, in a shuffled order, right after a bare start, so the
noise of a shared machine falls on all of them alike. The events are the recorded Claude
Code ones (`tests/fixtures/hooks/claude-code`), on a real SQLite store in a temp folder.
Prints one markdown table; never fails on a missed target.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "hooks" / "claude-code"
PLANSIGHT = Path(sys.executable).parent / "plansight"  # the console script agents run
TARGET_MS = 60.0


class Machine:
    """A project, a state folder and the recorded events, placeholders filled in."""

    def __init__(self, folder: Path) -> None:
        self.project = folder / "project"
        (self.project / ".git").mkdir(parents=True)
        (self.project / "app.py").write_text("print('hi')\n")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PLANSIGHT_")}
        self.env.update(XDG_STATE_HOME=str(folder / "state"), HOME=str(folder))
        self.cpu = 0.0

    def event(self, name: str, **changes: object) -> bytes:
        text = (FIXTURES / f"{name}.json").read_text().replace("{{project}}", str(self.project))
        event = json.loads(text)
        event.update(changes)
        return json.dumps(event).encode()

    def hook(self, payload: bytes) -> float:
        """Seconds from spawn to exit of `plansight hook claude-code` (and its CPU time in
        `self.cpu`, which a loaded machine stretches far less than the wall clock)."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [str(PLANSIGHT), "hook", "claude-code"],
            input=payload,
            capture_output=True,
            env=self.env,
            check=False,
        )
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if done.returncode != 0 or not done.stdout.startswith(b"{"):
            raise SystemExit(f"the hook misbehaved: {done!r}")
        return elapsed


def bare_start() -> tuple[float, float]:
    """Wall and CPU seconds of `python -c pass`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def kinds(machine: Machine) -> dict[str, Callable[[], float]]:
    """Each kind of event, with what it costs the hook."""
    fresh = iter(range(1_000_000))
    planned = machine.event("UserPromptSubmit")
    # One conversation with a plan and a task in progress, for the events that need one.
    for name in ("UserPromptSubmit", "PostToolUse-TaskCreate-1", "PostToolUse-TaskCreate-2"):
        machine.hook(machine.event(name))
    machine.hook(machine.event("PostToolUse-TaskUpdate-in_progress"))
    return {
        "prompt, no plan yet (no store)": lambda: machine.hook(
            machine.event("UserPromptSubmit", session_id=f"fresh-{next(fresh)}")
        ),
        "prompt, plan in the store (context)": lambda: machine.hook(planned),
        "edit: file added to the task": lambda: machine.hook(machine.event("PostToolUse-Edit")),
        "plan tool: TaskUpdate ingested": lambda: machine.hook(
            machine.event("PostToolUse-TaskUpdate-in_progress")
        ),
    }


def locked_store(machine: Machine) -> float:
    """The whole run when another process holds the store's write lock."""
    store = next((Path(machine.env["XDG_STATE_HOME"]) / "plansight").glob("*.sqlite3"))
    holder = sqlite3.connect(store, isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    try:
        return machine.hook(machine.event("UserPromptSubmit"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="plansight-hook-bench-") as folder:
        machine = Machine(Path(folder))
        measured = kinds(machine)
        times: dict[str, list[float]] = {name: [] for name in measured}
        cpu: dict[str, list[float]] = {name: [] for name in measured}
        bare: list[float] = []
        bare_cpu: list[float] = []
        order = list(measured)
        for _ in range(args.rounds):
            random.shuffle(order)
            wall, on_cpu = bare_start()
            bare.append(wall)
            bare_cpu.append(on_cpu)
            for name in order:
                times[name].append(measured[name]())
                cpu[name].append(machine.cpu)
        locked = [locked_store(machine) for _ in range(5)]

    bare_p50 = statistics.median(bare)
    print(
        f"`python -c pass` p50 {ms(bare_p50)} ({args.rounds} runs, load {os.getloadavg()[0]:.2f})\n"
    )
    print(f"CPU of `python -c pass`: p50 {ms(statistics.median(bare_cpu))}\n")
    print("| event | p50 | p90 | p50 over a bare start | CPU p50 | target p50 | met? |")
    print("|---|---|---|---|---|---|---|")
    for name, series in times.items():
        p50 = statistics.median(series)
        p90 = statistics.quantiles(series, n=10)[-1]
        met = "yes" if p50 * 1000 <= TARGET_MS else "no"
        print(
            f"| {name} | {ms(p50)} | {ms(p90)} | +{ms(p50 - bare_p50)} "
            f"| {ms(statistics.median(cpu[name]))} | {TARGET_MS:.0f} ms | {met} |"
        )
    print(
        f"| store locked by another process (gives up) | {ms(statistics.median(locked))} "
        f"| | | | < 1 s | {'yes' if max(locked) < 1 else 'no'} |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
