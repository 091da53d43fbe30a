"""What one change costs before Plansight's own work, against the transport's floor:
a bare pygls server answering a request with a push, without and with one SQLite commit
(`bench/pygls_commit_server.py`), beside the echo floor of `bench/run.py`, in
interleaved blocks. Prints a markdown table; writes nothing.

    .venv/bin/python bench/fixed_floor.py
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rpc import Peer
from workload import Flood, Series, check_result, flooded, measured, median, paired_ratio

HERE = Path(__file__).resolve().parent
BLOCK, BLOCKS, FLOOD, FLOOD_ROUNDS, IN_FLIGHT = 100, 10, 1000, 5, 100


async def main() -> None:
    os.sched_setaffinity(0, {1})  # client and servers on one CPU, as bench/run.py
    kinds = {
        "echo floor": [sys.executable, str(HERE / "echo_server.py")],
        "bare pygls, answer + push": [sys.executable, str(HERE / "pygls_commit_server.py")],
        "bare pygls + one SQLite commit, answer + push": [
            sys.executable,
            str(HERE / "pygls_commit_server.py"),
            "--commit",
        ],
    }
    peers = {name: await Peer.spawn(argv) for name, argv in kinds.items()}
    series = {name: Series() for name in kinds}
    floods = {name: Flood() for name in kinds}
    try:
        for peer in peers.values():
            check_result(await peer.initialize(), "initialize")
        params = {"session": "bench", "ops": [{"op": "start", "id": "1"}]}
        for _ in range(BLOCKS):
            for name, peer in peers.items():
                method = "bench/echo" if name == "echo floor" else "bench/change"
                await measured(series[name], peer, method, params, BLOCK, name != "echo floor")
        for _ in range(FLOOD_ROUNDS):
            for name, peer in peers.items():
                method = "bench/echo" if name == "echo floor" else "bench/change"
                push = name != "echo floor"
                await flooded(floods[name], peer, method, params, FLOOD, IN_FLIGHT, push)
    finally:
        for peer in peers.values():
            await peer.close()
    floor = "echo floor"
    print(
        "| server | round trip p50 | against the floor | server CPU per round trip "
        "| throughput, 100 in flight | against the floor |"
    )
    print("|---|---|---|---|---|---|")
    for name in kinds:
        print(
            f"| {name} | {median(series[name].samples):.0f} µs "
            f"| {paired_ratio(series[name].rounds, series[floor].rounds):.2f}x "
            f"| {series[name].server_us():.0f} µs "
            f"| {median(floods[name].rates):,.0f} req/s "
            f"| {paired_ratio(floods[name].rates, floods[floor].rates):.2f}x |"
        )
    print(f"\nLoad average: {os.getloadavg()}")


if __name__ == "__main__":
    asyncio.run(main())
