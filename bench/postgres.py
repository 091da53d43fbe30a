"""The team store against the embedded one, on the same machine: one command, one table.

    .venv/bin/python bench/postgres.py            # the full run (a few minutes), writes docs/scaling.md
    .venv/bin/python bench/postgres.py --quick    # a smoke run; writes nothing
    .venv/bin/python bench/postgres.py --url postgresql://...   # an existing server instead
    .venv/bin/python bench/postgres.py --big [--baseline DIR]   # the big store only; prints

Without `--url` it starts a throwaway PostgreSQL cluster (Debian's package, a Unix socket
only, as the tests do; fsync stays on here, unlike the tests' cluster). Figures:
- apply: a client's `plansight/apply` round trip to `plansight serve`, committed;
- push: from sending an apply to one server until a second server, on the same store,
  has pushed its `didChange` to its own client;
- throughput: changes committed per second by 1, 8 and 32 writer processes, each on its
  own session, then all on one session.
- `--big`: a store of 200 sessions × 200 tasks on each backend (`bench/stored.py`, as
  `bench/run.py` measures SQLite): the first `plansight/sessions` of a fresh server, its
  peak RSS then, and after a `get` of each session and 1,000 applies over them; with
  `--baseline DIR`, another checkout's `server/` side by side, each on its own store.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the test cluster

import stored
from report import BEGIN, END, Row, load, machine
from report import table as report_table
from rpc import Peer
from workload import Alternator, check_result, new_plan, percentile

DOC = Path(__file__).resolve().parent.parent / "docs" / "scaling.md"


def serve(location: str, workspace: str) -> list[str]:
    return [sys.executable, "-m", "plansight", "serve", "--db", location, "--workspace", workspace]


WRITER = """
import json, sys, time
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import open_store
location, session, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
service = PlanService(open_store(location, workspace="bench"))
init = {"session": session, "ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]}
service.apply(ApplyParams.validate(init), init)
print("ready", flush=True)
sys.stdin.readline()
started = time.time()
for n in range(count):
    # Notes on a task of this writer's own: every change commits, none grows a limit.
    request = {"session": session, "ops": [{"op": "note", "task": "a", "text": str(n % 50)}]}
    if n % 50 == 49:
        request["ops"] = [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]
    service.apply(ApplyParams.validate(request), request)
print(json.dumps([started, time.time()]), flush=True)
service.store.close()
"""


# ---------------------------------------------------------------- the stores


@contextmanager
def postgres_url(given: str | None) -> Iterator[str]:
    if given:
        yield given
        return
    from postgres_cluster import running_cluster

    with running_cluster(durable=True) as cluster:
        yield cluster.url(cluster.create_database())


def fresh_location(kind: str, url: str, folder: Path, n: int) -> str:
    """A store nobody used yet: a new SQLite file, or a new workspace of the database."""
    if kind == "sqlite":
        return str(folder / f"bench-{n}.sqlite3")
    return url


# ---------------------------------------------------------------- latencies


async def apply_latency(location: str, count: int, workspace: str) -> list[float]:
    """Round trips of committed applies, in milliseconds."""
    peer = await Peer.spawn(serve(location, workspace))
    try:
        check_result(await peer.initialize(), "initialize")
        await new_plan(peer, "apply", 20)
        alternator = Alternator("apply")
        samples = []
        for _ in range(count):
            started = time.perf_counter()
            check_result(await peer.request("plansight/apply", alternator.params()), "apply")
            samples.append((time.perf_counter() - started) * 1000)
        return samples
    finally:
        await peer.close()


async def push_latency(location: str, count: int, workspace: str) -> list[float]:
    """From an apply sent to one server to the other server's push, in milliseconds."""
    writer = await Peer.spawn(serve(location, workspace))
    watcher = await Peer.spawn(serve(location, workspace))
    try:
        for peer in (writer, watcher):
            check_result(await peer.initialize(), "initialize")
        await new_plan(writer, "push", 20)
        await asyncio.sleep(0.5)  # the watcher has pushed the plan's creation by now
        alternator = Alternator("push")
        samples = []
        for _ in range(count):
            arrived = watcher.next_push()
            started = time.perf_counter()
            check_result(await writer.request("plansight/apply", alternator.params()), "apply")
            await asyncio.wait_for(arrived, 10)
            samples.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.01)  # one change at a time: no push folds into another
        return samples
    finally:
        await writer.close()
        await watcher.close()


# ---------------------------------------------------------------- throughput


def throughput(location: str, writers: int, each: int, shared: bool, tag: str) -> float:
    """Changes committed per second by `writers` processes at once."""
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WRITER,
                location,
                f"{tag}-shared" if shared else f"{tag}-w{n}",
                str(each),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(writers)
    ]
    for process in processes:
        assert process.stdout is not None
        if process.stdout.readline().strip() != "ready":
            raise SystemExit("bench: a writer did not start")
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    spans = []
    for process in processes:
        out, _ = process.communicate(timeout=900)
        if process.returncode != 0:
            raise SystemExit("bench: a writer failed")
        spans.append(json.loads(out.strip().splitlines()[-1]))
    started = min(span[0] for span in spans)
    ended = max(span[1] for span in spans)
    return writers * each / (ended - started)


# ---------------------------------------------------------------- the run


def figures(url: str, quick: bool) -> list[tuple[str, str, str]]:
    count = 40 if quick else 400
    each = 20 if quick else 200
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="plansight-bench-") as tmp:
        folder = Path(tmp)
        stores = {"sqlite": str(folder / "latency.sqlite3"), "postgresql": url}
        applies = {k: asyncio.run(apply_latency(v, count, "lat")) for k, v in stores.items()}
        stores["sqlite"] = str(folder / "push.sqlite3")
        pushes = {k: asyncio.run(push_latency(v, count, "push")) for k, v in stores.items()}
        for name, samples in (("apply", applies), ("push", pushes)):
            for q, label in ((0.5, "p50"), (0.99, "p99")):
                rows.append(
                    (
                        f"{name} {label} (ms)",
                        f"{percentile(samples['sqlite'], q):.2f}",
                        f"{percentile(samples['postgresql'], q):.2f}",
                    )
                )
        n = 0
        for shared in (False, True):
            for writers in (1, 8, 32):
                if shared and writers == 1:
                    continue
                per = {}
                for kind in ("sqlite", "postgresql"):
                    n += 1
                    per[kind] = throughput(
                        fresh_location(kind, url, folder, n), writers, each, shared, f"t{n}"
                    )
                where = "one session" if shared else "own sessions"
                rows.append(
                    (
                        f"throughput, {writers} writer(s), {where} (changes/s)",
                        f"{per['sqlite']:.0f}",
                        f"{per['postgresql']:.0f}",
                    )
                )
    return rows


async def big_stores(url: str, baseline: str | None, folder: Path) -> list[Row]:
    """The big store on both backends, for this checkout (and `baseline`)."""
    versions = [stored.Version("this checkout", {})]
    if baseline:
        where = str(Path(baseline).resolve())
        versions.append(stored.Version(f"before: {baseline}", {"PYTHONPATH": where}))
    rows: list[Row] = []
    for n, version in enumerate(versions):
        workspace = f"big{n}"
        places = [(folder / f"big{n}.sqlite3", None), (url, workspace)]
        for place, scope in places:
            await stored.build(version, place, 200, 200, 20, scope)
        for place, scope in places:
            await stored.big_store(version, place, 200, 200, 1000, rows, scope)
    return rows


def render(rows: list[tuple[str, str, str]]) -> str:
    lines = ["| figure | SQLite | PostgreSQL |", "|---|---:|---:|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run; writes nothing")
    parser.add_argument("--url", help="an existing PostgreSQL (default: a throwaway cluster)")
    parser.add_argument("--big", action="store_true", help="the big store only; writes nothing")
    parser.add_argument("--baseline", help="with --big: another checkout's server/ beside")
    args = parser.parse_args()
    os.environ.setdefault("PLANSIGHT_LOG_LEVEL", "ERROR")
    if args.big:
        before = load()
        with postgres_url(args.url) as url, tempfile.TemporaryDirectory() as tmp:
            report = report_table(asyncio.run(big_stores(url, args.baseline, Path(tmp))))
        print(f"{report}\n\nMachine: {machine()}. Load average {before} before, {load()} after.")
        return
    with postgres_url(args.url) as url:
        table = render(figures(url, args.quick))
    print(table)
    if args.quick:
        return
    stamp = time.strftime("%Y-%m-%d")
    block = f"{BEGIN}\nMeasured {stamp} on {machine()}; PostgreSQL on the same machine, over a Unix socket.\n\n{table}\n{END}"
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    DOC.write_text(text[:start] + block + text[end:], encoding="utf-8")


if __name__ == "__main__":
    main()
