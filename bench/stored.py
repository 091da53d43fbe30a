"""Figures that depend on what a store holds: a big store (many sessions of many tasks)
and a long history; and this checkout's `apply` against another's, side by side.

Each server version fills its own store (`build_store.py` on its own PYTHONPATH), since
an older version cannot open a store a newer one migrated.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from report import Row, verdict
from rpc import Peer
from workload import Alternator, check_result, median, new_plan, peak_rss_mb, sequential

BUILD = Path(__file__).resolve().parent / "build_store.py"


@dataclass(frozen=True)
class Version:
    """A checkout's server: `label` in the table, `env` to spawn it (its PYTHONPATH)."""

    label: str
    env: dict[str, str]


def serve_argv(db: Path | str, workspace: str | None = None) -> list[str]:
    """A server on the SQLite file `db`, or on the PostgreSQL URL `db` in `workspace`."""
    argv = [sys.executable, "-m", "plansight", "serve", "--db", str(db)]
    return [*argv, "--workspace", workspace] if workspace else argv


async def build(
    version: Version,
    db: Path | str,
    sessions: int,
    tasks: int,
    changes: int,
    workspace: str | None = None,
) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(BUILD),
        str(db),
        str(sessions),
        str(tasks),
        str(changes),
        *([workspace] if workspace else []),
        env={**os.environ, **version.env},
    )
    if await process.wait() != 0:
        raise SystemExit(f"bench: filling the store of {version.label} failed")


async def big_store(
    version: Version,
    db: Path | str,
    sessions: int,
    tasks: int,
    applies: int,
    rows: list[Row],
    workspace: str | None = None,
) -> None:
    """How long the first `sessions` takes and the RSS after it; the RSS after a `get` of
    each session and `applies` spread over them too. On PostgreSQL with `workspace`."""
    server = await Peer.spawn(serve_argv(db, workspace), env=version.env)
    try:
        check_result(await server.initialize({"plansight": {"maxTasks": 5000}}), "initialize")
        # Once the start-up work that follows the `initialize` answer is done (a `get` of a
        # name not stored waits for it and reads nothing): this figure is the query's own.
        check_result(await server.request("plansight/get", {"session": "(none)"}), "get")
        started = time.perf_counter()
        listed = check_result(await server.request("plansight/sessions", {}), "sessions")
        first_sessions = (time.perf_counter() - started) * 1000
        listed_rss = peak_rss_mb(server.process.pid)
        names = [info["session"] for info in listed["sessions"] if info["session"] != "short"]
        for name in names:
            check_result(await server.request("plansight/get", {"session": name}), "get")
        turns = {name: Alternator(name) for name in names}
        for i in range(applies):
            params = turns[names[i % len(names)]].params()
            check_result(await server.request_and_push("plansight/apply", params), "apply")
        rss = peak_rss_mb(server.process.pid)
    finally:
        await server.close()
    store = f"{sessions} sessions × {tasks} tasks" + (" on PostgreSQL" if workspace else "")
    rss_after = f"server peak RSS on {store}:"
    for figure, value, target, met in (
        (f"first `sessions` on {store}", f"{first_sessions:.0f} ms", "<= 100 ms", first_sessions),
        (
            f"{rss_after} after the first `sessions`",
            f"{listed_rss:.0f} MB",
            "<= 100 MB",
            listed_rss,
        ),
        (
            f"{rss_after} `sessions`, a `get` of each, {applies:,} applies over them",
            f"{rss:.0f} MB",
            "<= 100 MB",
            rss,
        ),
    ):
        rows.append(
            Row(f"{figure} ({version.label})", value, target=target, met=verdict(met <= 100))
        )


async def long_history(
    version: Version, db: Path, changes: int, count: int, rows: list[Row]
) -> None:
    """`apply` and `context` on a session of `changes` committed changes against one of 20,
    interleaved blocks on one server."""
    server = await Peer.spawn(serve_argv(db), env=version.env)
    samples: dict[tuple[str, str], list[float]] = {}
    try:
        check_result(await server.initialize(), "initialize")
        block = max(10, count // 5)
        turns = {session: Alternator(session) for session in ("short", "long")}
        for _ in range(count // block + 1):  # the first round warms up
            for session in ("short", "long"):
                for method, push in (("plansight/apply", True), ("plansight/context", False)):
                    params: Any = turns[session].params if push else {"session": session}
                    got = await sequential(server, method, params, block, push)
                    samples.setdefault((session, method), []).extend(got)
    finally:
        await server.close()
    for method in ("plansight/apply", "plansight/context"):
        short = median(samples[("short", method)][block:])
        long = median(samples[("long", method)][block:])
        ratio = long / short
        rows.append(
            Row(
                f"`{method.split('/')[1]}` p50 on a session of {changes:,} changes "
                f"({version.label})",
                f"{long:.0f} µs",
                f"{short:.0f} µs at 20",
                f"{ratio:.2f}x",
                "<= 1.2x",
                verdict(ratio <= 1.2),
            )
        )


async def apply_side_by_side(
    versions: list[Version], folder: Path, count: int, block: int, rows: list[Row]
) -> None:
    """`apply` with its push on a 20-task plan, each version on its own store, in
    interleaved blocks."""
    servers = [
        await Peer.spawn(serve_argv(folder / f"side{i}.sqlite3"), env=v.env)
        for i, v in enumerate(versions)
    ]
    samples: list[list[float]] = [[] for _ in versions]
    try:
        turns = []
        for server in servers:
            check_result(await server.initialize(), "initialize")
            await new_plan(server, "side", 20)
            turns.append(Alternator("side"))
            await sequential(server, "plansight/apply", turns[-1].params, block, True)
        for _ in range(count // block):
            for i, server in enumerate(servers):
                samples[i] += await sequential(
                    server, "plansight/apply", turns[i].params, block, True
                )
    finally:
        for server in servers:
            await server.close()
    ours = median(samples[0])
    for version, series in zip(versions, samples, strict=True):
        p50 = median(series)
        rows.append(
            Row(
                f"`apply` p50 (20 tasks), with its push ({version.label})",
                f"{p50:.0f} µs",
                ratio=f"{p50 / ours:.2f}x of this checkout",
            )
        )
