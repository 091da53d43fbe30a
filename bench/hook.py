"""`plansight hook` as the agent runs it, and a one-shot `plansight apply` as a shell agent
runs it: a whole process per call, timed from spawn to exit, side by side with a bare
interpreter start (`python -c pass`) in the same run.

    .venv/bin/python bench/hook.py            # 40 rounds of each kind (about two minutes)
    .venv/bin/python bench/hook.py --rounds 10

Two ways, each on its own machine (state folder and store): relayed to the warm hook
process (what an agent gets from the second event on) and in the hook's own process
(`PLANSIGHT_HOOK_DAEMON=0`, what the first event gets). Each round runs every kind once,
in a shuffled order, right after a bare start, so the noise of a shared machine falls on
all of them alike. The events are the recorded Claude Code ones
(`tests/fixtures/hooks/claude-code`), on a real SQLite store in a temp folder. The CPU
column counts the warm process's share too. Prints one markdown table; never fails on a
missed target.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
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
WARM = "relayed to the warm process"
OWN = "in its own process"


class Machine:
    """A project, a state folder and the recorded events, placeholders filled in."""

    def __init__(self, folder: Path, warm: bool) -> None:
        self.project = folder / "project"
        (self.project / ".git").mkdir(parents=True)
        (self.project / "app.py").write_text("print('hi')\n")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PLANSIGHT_")}
        self.env.update(XDG_STATE_HOME=str(folder / "state"), HOME=str(folder))
        if not warm:
            self.env["PLANSIGHT_HOOK_DAEMON"] = "0"
        self.warm_pid: int | None = None
        self.cpu = 0.0

    def wait_warm(self) -> None:
        """After the first event: wait until the warm process it started listens."""
        code = "from plansight.warm.relay import address, running_pid; print(address())"
        path = subprocess.run(
            [sys.executable, "-c", code], env=self.env, capture_output=True, text=True, check=True
        ).stdout.strip()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if os.path.exists(path) and not os.path.exists(path + ".starting"):
                self.warm_pid = int(Path(path + ".lock").read_text().strip())
                return
            time.sleep(0.05)
        raise SystemExit("the warm hook process did not start")

    def stop(self) -> None:
        if self.warm_pid is not None:
            os.kill(self.warm_pid, signal.SIGTERM)

    def event(self, name: str, **changes: object) -> bytes:
        text = (FIXTURES / f"{name}.json").read_text().replace("{{project}}", str(self.project))
        event = json.loads(text)
        event.update(changes)
        return json.dumps(event).encode()

    def hook(self, payload: bytes) -> float:
        """Seconds from spawn to exit of `plansight hook claude-code` (and its CPU time in
        `self.cpu`, which a loaded machine stretches far less than the wall clock)."""
        done, elapsed = self.run(["hook", "claude-code"], payload)
        if done.returncode != 0 or not done.stdout.startswith(b"{"):
            raise SystemExit(f"the hook misbehaved: {done!r}")
        return elapsed

    def apply(self) -> float:
        """The same for a one-shot `plansight apply` of a shell agent (a note on its task)."""
        ops = json.dumps([{"op": "note", "text": "checked"}])
        done, elapsed = self.run(["apply", "--session", "shell", "--ops", ops], b"")
        if done.returncode != 0:
            raise SystemExit(f"plansight apply misbehaved: {done!r}")
        return elapsed

    def run(
        self, args: list[str], stdin: bytes
    ) -> tuple[subprocess.CompletedProcess[bytes], float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        warm_before = self._warm_cpu()
        started = time.perf_counter()
        done = subprocess.run(
            [str(PLANSIGHT), *args],
            input=stdin,
            capture_output=True,
            cwd=self.project,
            env=self.env,
            check=False,
        )
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        self.cpu += self._warm_cpu() - warm_before
        return done, elapsed

    def _warm_cpu(self) -> float:
        """Seconds of CPU the warm process has used so far (0 without one)."""
        if self.warm_pid is None:
            return 0.0
        fields = Path(f"/proc/{self.warm_pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bare_start() -> tuple[float, float]:
    """Wall and CPU seconds of `python -c pass`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def kinds(machine: Machine, way: str) -> dict[str, Callable[[], tuple[float, float]]]:
    """Each kind of event, with what it costs the hook."""
    fresh = iter(range(1_000_000))
    planned = machine.event("UserPromptSubmit")
    # One conversation with a plan and a task in progress, for the events that need one.
    for name in ("UserPromptSubmit", "PostToolUse-TaskCreate-1", "PostToolUse-TaskCreate-2"):
        machine.hook(machine.event(name))
        if way == WARM and machine.warm_pid is None:
            machine.wait_warm()
    machine.hook(machine.event("PostToolUse-TaskUpdate-in_progress"))
    init = [{"op": "init", "list": [{"phase": "Work", "items": ["Check the build"]}]}]
    machine.run(["apply", "--session", "shell", "--ops", json.dumps(init)], b"")
    kinds = {
        "prompt, no plan yet (no store)": lambda: machine.hook(
            machine.event("UserPromptSubmit", session_id=f"fresh-{next(fresh)}")
        ),
        "prompt, plan in the store (context)": lambda: machine.hook(planned),
        "edit: file added to the task": lambda: machine.hook(machine.event("PostToolUse-Edit")),
        "plan tool: TaskUpdate ingested": lambda: machine.hook(
            machine.event("PostToolUse-TaskUpdate-in_progress")
        ),
        "one-shot `plansight apply` (a shell agent's note)": machine.apply,
    }

    def with_cpu(run: Callable[[], float]) -> Callable[[], tuple[float, float]]:
        return lambda: (run(), machine.cpu)

    return {f"{name}, {way}": with_cpu(run) for name, run in kinds.items()}


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
        warm = Machine(Path(folder) / "warm", warm=True)
        own = Machine(Path(folder) / "own", warm=False)
        measured = {**kinds(warm, WARM), **kinds(own, OWN)}
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
                wall, on_cpu = measured[name]()
                times[name].append(wall)
                cpu[name].append(on_cpu)
        locked = [locked_store(machine) for machine in (warm, own) for _ in range(3)]
        warm.stop()

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
