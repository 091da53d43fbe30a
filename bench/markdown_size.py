"""Oversized markdown against a real server (issue 20 item 26): how long a 100,000-line
`plansight/import` and markdown `ingest` take to be refused, how long a `plansight/get`
sent right behind each waits, and how long the largest text the bound lets through
(every limit, notes on two lines) takes to be read.

    .venv/bin/python bench/markdown_size.py

Medians of a few rounds, wall time from the client, over stdio to `plansight serve`
with a SQLite store in a temp folder. Figures only: nothing here asserts a time.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from plansight.core.settings import Settings
from rpc import Peer

ROUNDS = 3
Json = dict[str, Any]


def long_checklist(lines: int) -> str:
    return "## P\n" + "".join(f"- [ ] task {n}\n" for n in range(lines))


def long_notes(lines: int) -> str:
    return "## P\n- [ ] a\n  > n\n" + "".join(f"    line {n}\n" for n in range(lines))


def at_the_bound() -> str:
    """A plan at every limit the bound is made of: 200 tasks of 100 two-line notes, read
    whole (the parse is what is measured)."""
    settings = Settings()
    notes = "".join(
        f"  > note {k}\n    its second line\n" for k in range(settings.max_notes_per_task)
    )
    return "## P\n" + "".join(f"- [ ] task {n}\n{notes}" for n in range(settings.max_tasks))


async def timed(peer: Peer, method: str, params: Json) -> tuple[float, float, Json]:
    """The request's time, and that of a `get` sent right behind it on the same pipe."""
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    first: asyncio.Future[Json] = loop.create_future()
    second: asyncio.Future[Json] = loop.create_future()
    peer.send(method, params, first.set_result)
    peer.send("plansight/get", {}, second.set_result)
    answer = await first
    took = time.perf_counter() - started
    await second
    return took, time.perf_counter() - started, answer


async def measure(db: Path) -> list[tuple[str, int, float, float, str]]:
    peer = await Peer.spawn([sys.executable, "-m", "plansight", "serve", "--db", str(db)])
    await peer.initialize()
    cases: list[tuple[str, str, Callable[[str], Json]]] = [
        ("import, 100,000 task lines", long_checklist(100_000), lambda t: {"markdown": t}),
        ("import, 100,000 note lines", long_notes(100_000), lambda t: {"markdown": t}),
        (
            "ingest markdown, 100,000 task lines",
            long_checklist(100_000),
            lambda t: {"format": "markdown", "payload": {"text": t}},
        ),
        ("import, the most lines the bound reads", at_the_bound(), lambda t: {"markdown": t}),
    ]
    rows = []
    try:
        for name, text, params in cases:
            method = "plansight/ingest" if "ingest" in name else "plansight/import"
            took, behind = [], []
            answer: Json = {}
            for _ in range(ROUNDS):
                request, get, answer = await timed(peer, method, params(text))
                took.append(request)
                behind.append(get)
            errors = answer.get("result", {}).get("errors") or [answer.get("error", "")]
            rows.append(
                (
                    name,
                    text.count("\n"),
                    statistics.median(took),
                    statistics.median(behind),
                    str(errors[0])[:60],
                )
            )
    finally:
        await peer.close()
    return rows


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        rows = asyncio.run(measure(Path(folder) / "plans.sqlite3"))
    print("| request | lines | answered in | a `get` behind it | answer |")
    print("|---|---:|---:|---:|---|")
    for name, lines, took, behind, answer in rows:
        print(f"| {name} | {lines:,} | {took * 1000:.0f} ms | {behind * 1000:.0f} ms | {answer} |")


if __name__ == "__main__":
    main()
