"""Plansight against the transport's floor: one command, one markdown table.

    .venv/bin/python bench/run.py            # the full run (under a minute), writes docs/performance.md
    .venv/bin/python bench/run.py --quick    # a smoke run in seconds; writes nothing
    .venv/bin/python bench/run.py --deltas --rows round-trips,scaling --no-write
        # a client that asks for change deltas; only the rows named (each with its floor)

Everything goes over stdio to spawned processes, with the real SQLite store in a temp
folder. Figures are compared as ratios measured side by side in the same run, in
interleaved blocks, because the machines this runs on are shared and noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mcp as mcp_bench  # bench/mcp.py: this folder comes first on sys.path, not the SDK

import rpc
import stored
from report import Row, load, machine, table, verdict, write_doc
from rpc import Peer
from workload import (
    Alternator,
    Flood,
    Series,
    check_result,
    cold_start,
    first_answer,
    flood,
    flooded,
    measured,
    median,
    new_plan,
    on_cpu_ns,
    paired_ratio,
    peak_rss_mb,
    percentile,
    sequential,
)

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
ECHO_SERVER = Path(__file__).resolve().parent / "echo_server.py"
BARE_PYGLS = Path(__file__).resolve().parent / "pygls_server.py"
SESSION = "bench"


@dataclass(frozen=True)
class Sizes:
    """How much each figure measures; the full run takes about a minute."""

    sequential: int  # requests per figure for p50 / p99
    block: int  # interleaving block for the sequential figures
    flood: int  # requests per throughput round
    flood_rounds: int
    in_flight: int
    pushes: int
    cold_starts: int
    scaling: int  # applies per plan size
    memory_applies: int
    idle_seconds: float
    big_sessions: int  # the big store: sessions of big_tasks tasks
    big_tasks: int
    big_applies: int  # applies spread over its sessions
    history: int  # changes of the long-history session


FULL = Sizes(2000, 100, 1000, 9, 100, 60, 12, 300, 10_000, 60, 200, 200, 1000, 5000)
QUICK = Sizes(300, 50, 500, 3, 100, 10, 3, 60, 1000, 0.5, 10, 200, 100, 300)


# ---------------------------------------------------------------- helpers


def plansight_argv(db: Path) -> list[str]:
    return [sys.executable, "-m", "plansight", "serve", "--db", str(db)]


def echo_argv() -> list[str]:
    return [sys.executable, str(ECHO_SERVER)]


def bare_pygls_argv() -> list[str]:
    return [sys.executable, str(BARE_PYGLS)]


def compile_bytecode(server: Path) -> None:
    """Compile a checkout's Python files as installing the package does, so that its
    servers start from bytecode like pygls's: where PYTHONDONTWRITEBYTECODE is set (it is
    on the machines this runs on), an editable checkout would otherwise compile every
    module again on every start (docs/performance.md, cold start)."""
    compileall.compile_dir(str(server / "plansight"), quiet=1)


# ---------------------------------------------------------------- the run


async def round_trips(db: Path, sizes: Sizes, rows: list[Row], log: Any) -> None:
    floor = await Peer.spawn(echo_argv())
    server = await Peer.spawn(plansight_argv(db))
    try:
        check_result(await floor.initialize(), "initialize")
        check_result(await server.initialize(), "initialize")
        await new_plan(server, SESSION, 20)
        alternate = Alternator(SESSION)
        get_params = {"session": SESSION}
        echo_params = Alternator(SESSION).params()  # the same bytes in as an apply
        log("warming up")
        await sequential(floor, "bench/echo", echo_params, sizes.block, False)
        await sequential(server, "plansight/get", get_params, sizes.block, False)
        await sequential(server, "plansight/apply", alternate.params, sizes.block, True)

        echo, get, apply = Series(), Series(), Series()
        log(f"round trips: {sizes.sequential} of each, in blocks of {sizes.block}")
        for _ in range(sizes.sequential // sizes.block):
            await measured(echo, floor, "bench/echo", echo_params, sizes.block, False)
            await measured(get, server, "plansight/get", get_params, sizes.block, False)
            await measured(apply, server, "plansight/apply", alternate.params, sizes.block, True)

        log(
            f"throughput: {sizes.flood_rounds} rounds of {sizes.flood}, {sizes.in_flight} in flight"
        )
        echo_flood, get_flood, apply_flood = Flood(), Flood(), Flood()
        for _ in range(sizes.flood_rounds):
            n, w = sizes.flood, sizes.in_flight
            await flooded(echo_flood, floor, "bench/echo", echo_params, n, w, False)
            await flooded(get_flood, server, "plansight/get", get_params, n, w, False)
            await flooded(apply_flood, server, "plansight/apply", alternate.params, n, w, True)
    finally:
        await floor.close()
        await server.close()

    floor_p50 = median(echo.samples)
    for name, series, limit in (("get", get, 1.5), ("apply", apply, 2.0)):
        ratio = paired_ratio(series.rounds, echo.rounds)
        rows.append(
            Row(
                f"`{name}` round trip p50 (20 tasks)"
                + (", with its push" if name == "apply" else ""),
                f"{median(series.samples):.0f} µs",
                f"{floor_p50:.0f} µs",
                f"{ratio:.2f}x",
                f"<= {limit}x",
                verdict(ratio <= limit),
            )
        )
    floor_p99 = percentile(echo.samples, 0.99)
    for name, series in (("get", get), ("apply", apply)):
        p99 = percentile(series.samples, 0.99)
        rows.append(
            Row(
                f"`{name}` round trip p99",
                f"{p99:.0f} µs",
                f"{floor_p99:.0f} µs",
                f"{p99 / floor_p99:.2f}x",
            )
        )
    for side, cost in (("server", Series.server_us), ("client", Series.client_us)):
        for name, series in (("get", get), ("apply", apply)):
            rows.append(
                Row(
                    f"{side} CPU per `{name}` round trip",
                    f"{cost(series):.0f} µs",
                    f"{cost(echo):.0f} µs",
                    f"{cost(series) / cost(echo):.2f}x",
                )
            )
    floor_rate = median(echo_flood.rates)
    for name, run in (("get", get_flood), ("apply", apply_flood)):
        ratio = paired_ratio(run.rates, echo_flood.rates)
        rows.append(
            Row(
                f"`{name}` throughput, {sizes.in_flight} in flight"
                + (" (pushes read)" if name == "apply" else ""),
                f"{median(run.rates):,.0f} req/s",
                f"{floor_rate:,.0f} req/s",
                f"{ratio:.2f}x",
                ">= 0.5x",
                verdict(ratio >= 0.5),
            )
        )
    for name, run in (("get", get_flood), ("apply", apply_flood)):
        rows.append(
            Row(
                f"CPU per `{name}` in that flood: server / client",
                f"{run.server_us():.0f} / {run.client_us():.0f} µs",
                f"{echo_flood.server_us():.0f} / {echo_flood.client_us():.0f} µs",
            )
        )


async def push_latency(db: Path, sizes: Sizes, rows: list[Row], log: Any) -> None:
    writer = await Peer.spawn(plansight_argv(db))
    watcher = await Peer.spawn(plansight_argv(db))
    session = "push"
    try:
        check_result(await writer.initialize(), "initialize")
        check_result(await watcher.initialize(), "initialize")
        arrived = watcher.next_push()
        await new_plan(writer, session, 20)
        await asyncio.wait_for(arrived, 5)
        alternate = Alternator(session)
        samples = []
        log(f"push latency: {sizes.pushes} changes through a second server")
        for _ in range(sizes.pushes):
            # Out of step with the watcher's poll, as real changes are.
            await asyncio.sleep(random.uniform(0, 0.05))
            arrived = watcher.next_push()
            started = time.perf_counter()
            await writer.request_and_push("plansight/apply", alternate.params())
            push = await asyncio.wait_for(arrived, 5)
            samples.append((time.perf_counter() - started) * 1000)
            if push["params"]["session"] != session:
                raise SystemExit("bench: the push carried another session")
    finally:
        await writer.close()
        await watcher.close()
    p50, p99 = median(samples), percentile(samples, 0.99)
    rows.append(
        Row(
            "push latency across processes p50 (p99)",
            f"{p50:.1f} ms ({p99:.1f} ms)",
            target="<= 10 ms (<= 30 ms)",
            met=verdict(p50 <= 10 and p99 <= 30),
        )
    )


async def cold_starts(
    db: Path, sizes: Sizes, versions: list[stored.Version], rows: list[Row], log: Any
) -> None:
    log(f"cold start: {sizes.cold_starts} of each")
    # Each version on its own store: a newer one migrates the file past what an older
    # one can open.
    stores = {
        version.label: db.with_name(f"{db.stem}-cold{index}{db.suffix}")
        for index, version in enumerate(versions)
    }
    for version in versions:
        await cold_start(
            plansight_argv(stores[version.label]), env=version.env
        )  # the disk cache, warmed
    ours: dict[str, list[float]] = {version.label: [] for version in versions}
    first: dict[str, list[float]] = {version.label: [] for version in versions}
    floor: list[float] = []
    bare: list[float] = []
    for _ in range(sizes.cold_starts):
        floor.append(await cold_start(echo_argv()))
        bare.append(await cold_start(bare_pygls_argv()))
        for version in versions:
            argv = plansight_argv(stores[version.label])
            ours[version.label].append(await cold_start(argv, env=version.env))
            first[version.label].append(await first_answer(argv, env=version.env))
    floor_p50, bare_p50 = median(floor), median(bare)
    for version in versions:
        p50 = median(ours[version.label])
        label = "" if len(versions) == 1 else f" ({version.label})"
        rows.append(
            Row(
                f"cold start p50: spawn to `initialize` response, against a bare pygls server{label}",
                f"{p50:.0f} ms",
                f"{bare_p50:.0f} ms",
                f"{p50 / bare_p50:.2f}x",
                "<= 1.1x",
                verdict(p50 <= 1.1 * bare_p50),
            )
        )
        rows.append(
            Row(
                f"spawn to the first `plansight/get` answered{label}",
                f"{median(first[version.label]):.0f} ms",
            )
        )
    rows.append(
        Row(
            "cold start p50 of a bare pygls server, against the echo floor",
            f"{bare_p50:.0f} ms",
            f"{floor_p50:.0f} ms",
            f"{bare_p50 / floor_p50:.2f}x",
        )
    )


async def scaling(db: Path, sizes: Sizes, rows: list[Row], log: Any) -> None:
    """`apply` with its push on plans of 10, 100 and 1,000 tasks, flat, and (protocol 4)
    1,000 tasks nested three deep, each a leaf started in turn; blocks interleaved, so
    load weighs on every size alike."""
    server = await Peer.spawn(plansight_argv(db))
    plans = [(f"scale{n}", n, False) for n in (10, 100, 1000)] + [("nested1000", 1000, True)]
    samples: dict[str, list[float]] = {name: [] for name, _, _ in plans}
    try:
        check_result(await server.initialize({"plansight": {"maxTasks": 5000}}), "initialize")
        alternators = {}
        for name, n, nested in plans:
            await new_plan(server, name, n, nested)
            # In a nested plan t3 and t4 are the first two leaves (`nested_plan_ops`).
            alternators[name] = Alternator(name, ("t3", "t4") if nested else ("t1", "t2"))
            await sequential(server, "plansight/apply", alternators[name].params, 20, True)
        log(f"scaling: {sizes.scaling} applies on each plan size")
        block = max(10, sizes.scaling // 5)
        for _ in range(sizes.scaling // block):
            for name, _, _ in plans:
                samples[name] += await sequential(
                    server, "plansight/apply", alternators[name].params, block, True
                )
    finally:
        await server.close()
    base = median(samples["scale10"])
    for name, n, nested in plans:
        p50 = median(samples[name])
        judged = n == 1000
        shape = ", nested three deep" if nested else ""
        rows.append(
            Row(
                f"`apply` p50 on {n:,} tasks{shape}, with its push",
                f"{p50:.0f} µs",
                ratio=f"{p50 / base:.2f}x of 10 tasks",
                target="<= 3x of 10 tasks" if judged else "—",
                met=verdict(p50 <= 3 * base) if judged else "—",
            )
        )


async def memory(db: Path, sizes: Sizes, rows: list[Row], log: Any) -> None:
    server = await Peer.spawn(plansight_argv(db))
    try:
        check_result(await server.initialize(), "initialize")
        await new_plan(server, "memory", 20)
        log(f"memory: {sizes.memory_applies:,} applies")
        alternate = Alternator("memory")
        await flood(server, "plansight/apply", alternate.params, sizes.memory_applies, 100, True)
        rss = peak_rss_mb(server.process.pid)
        log(f"idle: {sizes.idle_seconds} s of nothing")
        before = on_cpu_ns(server.process.pid)
        await asyncio.sleep(sizes.idle_seconds)
        idle = (on_cpu_ns(server.process.pid) - before) / 1e9 / sizes.idle_seconds
    finally:
        await server.close()
    rows.append(
        Row(
            f"server peak RSS after {sizes.memory_applies:,} applies",
            f"{rss:.1f} MB",
            target="<= 80 MB",
            met=verdict(rss <= 80),
        )
    )
    rows.append(
        Row(
            f"idle server CPU over {sizes.idle_seconds:g} s (woken by file-system events)",
            f"{100 * idle:.3f}% of a core",
            target="<= 0.05%",
            met=verdict(idle <= 0.0005),
        )
    )


def place(placement: str) -> str:
    """Put the client and the servers on CPUs. On a small shared machine the scheduler
    moves two busy processes between CPUs from one minute to the next, and a wake-up
    across CPUs costs more than the work of a request: on one CPU, a round trip is the
    work of both sides and two switches, which is what the ratios are about."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if placement == "free" or not cpus:
        return "client and servers placed by the scheduler"
    if placement == "same" or len(cpus) < 2:
        os.sched_setaffinity(0, {cpus[-1]})
        rpc.SERVER_CPUS.update({cpus[-1]})
        return f"client and servers on CPU {cpus[-1]}"
    os.sched_setaffinity(0, {cpus[0]})
    rpc.SERVER_CPUS.update({cpus[1]})
    return f"client on CPU {cpus[0]}, servers on CPU {cpus[1]}"


async def measure_rows(
    wanted: set[str],
    db: Path,
    folder: Path,
    big: list[Path],
    versions: list[stored.Version],
    sizes: Sizes,
    rows: list[Row],
    log: Any,
) -> None:
    """The rows `wanted` (all of `ROWS` in a whole run), each beside its floor."""
    quick = sizes is QUICK
    if "round-trips" in wanted:
        await round_trips(db, sizes, rows, log)
        if len(versions) > 1:
            log("`apply` of this checkout and the one before, side by side")
            await stored.apply_side_by_side(versions, folder, sizes.sequential, sizes.block, rows)
    if "push" in wanted:
        await push_latency(db, sizes, rows, log)
    if "cold-start" in wanted:
        await cold_starts(db, sizes, versions, rows, log)
    if "mcp" in wanted:
        mcp_sizes = mcp_bench.QUICK if quick else mcp_bench.IN_RUN
        (folder / "mcp").mkdir()
        rows += await mcp_bench.measure(folder / "mcp", mcp_sizes, log)
    if "scaling" in wanted:
        await scaling(db, sizes, rows, log)
    if "history" in wanted:
        for version, path in zip(versions, big, strict=True):
            log(f"history of {sizes.history:,} changes ({version.label})")
            await stored.long_history(version, path, sizes.history, sizes.scaling, rows)
    if "big-store" in wanted:
        for version, path in zip(versions, big, strict=True):
            log(f"the big store ({version.label})")
            await stored.big_store(
                version, path, sizes.big_sessions, sizes.big_tasks, sizes.big_applies, rows
            )
    if "memory" in wanted:
        await memory(db, sizes, rows, log)


ROWS = ("round-trips", "push", "cold-start", "mcp", "scaling", "history", "big-store", "memory")


async def main(args: argparse.Namespace) -> int:
    sizes = QUICK if args.quick else FULL
    placement = place(args.placement)
    wanted = set(args.rows.split(",")) if args.rows else set(ROWS)
    if wanted - set(ROWS):
        raise SystemExit(f"bench: --rows names {sorted(wanted - set(ROWS))}; rows: {ROWS}")
    if wanted != set(ROWS):
        args.write = False  # the document holds whole runs
    if args.deltas:
        rpc.CLIENT_CAPABILITIES.update(rpc.DELTA_CAPABILITIES)
        placement += "; clients ask for change deltas (pushes and answers)"
    if args.server_path:
        os.environ["PYTHONPATH"] = str(Path(args.server_path).resolve())
        args.write = False  # the document is about this checkout
    started = time.perf_counter()
    load_before = load()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:5.1f} s] {message}", file=sys.stderr, flush=True)

    rows: list[Row] = []
    versions = [stored.Version("this checkout", {})]
    compile_bytecode(Path(args.server_path) if args.server_path else ROOT / "server")
    if args.baseline:
        baseline = Path(args.baseline).resolve()
        versions.append(stored.Version(f"before: {args.baseline}", {"PYTHONPATH": str(baseline)}))
        compile_bytecode(baseline)
    with tempfile.TemporaryDirectory(prefix="plansight-bench-") as folder:
        db = Path(folder) / "plans.sqlite3"
        big = [Path(folder) / f"big{i}.sqlite3" for i in range(len(versions))]
        if wanted & {"history", "big-store"}:
            log(
                f"filling stores: {sizes.big_sessions} sessions of {sizes.big_tasks} tasks, "
                f"a session of {sizes.history:,} changes"
            )
            await asyncio.gather(
                *(
                    stored.build(v, path, sizes.big_sessions, sizes.big_tasks, sizes.history)
                    for v, path in zip(versions, big, strict=True)
                )
            )
        await measure_rows(wanted, db, Path(folder), big, versions, sizes, rows, log)
    elapsed = time.perf_counter() - started
    report = "\n".join(
        [
            table(rows),
            "",
            f"Machine: {machine()}; {placement}. Load average (1, 5, 15 min) {load_before} "
            f"before the run, {load()} after. The run took {elapsed:.0f} s"
            + (" (`--quick`: small samples, indicative only)." if args.quick else "."),
        ]
    )
    print(report)
    if args.write and not args.quick:
        write_doc(report, args.out)
        print(f"\nwritten to {args.out}", file=sys.stderr)
    return 0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: small samples, no doc")
    parser.add_argument(
        "--no-write", dest="write", action="store_false", help="print the table only"
    )
    parser.add_argument("--out", type=Path, default=DOC, help="the document to update")
    parser.add_argument(
        "--placement",
        choices=("same", "split", "free"),
        default="same",
        help="client and servers on one CPU (default), on two, or wherever the scheduler likes",
    )
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="also measure another checkout's server/ side by side (apply, history, big store)",
    )
    parser.add_argument(
        "--server-path",
        metavar="DIR",
        help="import plansight from DIR (another checkout's server/) to compare versions",
    )
    parser.add_argument(
        "--deltas",
        action="store_true",
        help="clients ask for change deltas in pushes and answers at initialize (docs/protocol.md)",
    )
    parser.add_argument(
        "--rows",
        metavar="NAMES",
        help=f"only these rows, comma-separated (each with its floor; writes nothing): {','.join(ROWS)}",
    )
    return parser.parse_args()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse_args())))
