"""`plansight mcp` against the MCP Python SDK's own no-op server, side by side in one run:
the cold start an agent waits for, and a tool call. Prints one markdown table.

    .venv/bin/python bench/mcp.py            # 20 spawns and 1,000 calls of each (2 to 3 min)
    .venv/bin/python bench/mcp.py --quick    # a smoke run: 4 spawns, 200 calls
    .venv/bin/python bench/mcp.py --baseline OTHER/server  # another checkout's start beside

The reference is the SDK's low-level `Server` (the class Plansight builds on) with one
no-op tool, over the SDK's stdio transport (`bench/reference/mcp_noop_server.py`); the
SDK's high-level `MCPServer` is measured too, for reference. Every server is spawned the
same way (`python -m plansight mcp` / `python SCRIPT`, from an empty folder) and spoken
to by the same minimal client: newline-delimited JSON-RPC, the `initialize` handshake
today's agents use, then `notifications/initialized` and `tools/list` at once, as they do,
then one tool call.
Each round spawns each server once, in a shuffled order; a ratio is the median over the
rounds of each round's ratio, so that a burst of load falls on both sides of it. Never
fails on a missed target.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rpc
from report import Row, load, machine, table, verdict
from workload import median, paired_ratio, percentile

Json = dict[str, Any]
NOOP_SERVER = Path(__file__).resolve().parent / "reference" / "mcp_noop_server.py"
PROTOCOL_VERSION = "2025-11-25"  # the newest one reached by the `initialize` handshake
CLIENT = {"name": "claude-code", "version": "2.1.0"}  # as Claude Code introduces itself
SDK = "the SDK's no-op server"
START_TARGET = 1.1  # x the SDK's no-op server (issue #15)


@dataclass(frozen=True)
class Sizes:
    spawns: int  # cold starts of each server
    calls: int  # tool calls of each kind
    block: int  # interleaving block for the calls


FULL = Sizes(20, 1000, 50)
IN_RUN = Sizes(12, 500, 50)  # as a part of `bench/run.py`
QUICK = Sizes(4, 200, 50)


def plansight_argv(db: Path) -> list[str]:
    return [sys.executable, "-m", "plansight", "mcp", "--db", str(db)]


def sdk_argv(kind: str = "lowlevel") -> list[str]:
    return [sys.executable, str(NOOP_SERVER), *([kind] if kind != "lowlevel" else [])]


def cpu_ns(pid: int) -> int:
    """Nanoseconds all the process's threads have run on a CPU (the SDK reads stdin in a
    worker thread, so the main thread's figure alone would miss part of it)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, ValueError):  # a thread that ended in between
            total += int((task / "schedstat").read_text().split()[0])
    return total


class McpPeer:
    """One spawned MCP server, spoken to over its stdin and stdout, a message a line."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        assert process.stdin is not None and process.stdout is not None
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._next_id = 0

    @classmethod
    async def spawn(cls, argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> McpPeer:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            limit=rpc.READ_LIMIT,
        )
        if rpc.SERVER_CPUS:
            os.sched_setaffinity(process.pid, rpc.SERVER_CPUS)
        return cls(process)

    def notify(self, method: str) -> None:
        self._stdin.write(b'{"jsonrpc":"2.0","method":"%s"}\n' % method.encode())

    def send(self, method: str, params: Json | None = None) -> None:
        self._next_id += 1
        message: Json = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self._stdin.write(json.dumps(message).encode() + b"\n")

    async def answer(self) -> Json:
        """The next response (notifications and server requests are not expected here)."""
        while True:
            line = await self._stdout.readline()
            if not line:
                raise SystemExit("bench: an MCP server closed its output")
            message: Json = json.loads(line)
            if "id" in message and "method" not in message:
                if "result" not in message:
                    raise SystemExit(f"bench: an MCP request failed: {message.get('error')}")
                return message

    async def request(self, method: str, params: Json | None = None) -> Json:
        self.send(method, params)
        return await self.answer()

    async def handshake(self) -> None:
        await self.request(
            "initialize",
            {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT},
        )
        self.notify("notifications/initialized")

    async def close(self) -> None:
        """Close stdin, as an agent does; killed if it has not ended 5 s later."""
        self._stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 5)
        except asyncio.TimeoutError:
            self.process.kill()
            await self.process.wait()


@dataclass(frozen=True)
class Spawned:
    """A server to start, and the tool an agent's first call goes to."""

    argv: list[str]
    first_tool: str
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Start:
    """One cold start: milliseconds from spawn to each answer, and the server's CPU."""

    initialize_ms: float
    tools_ms: float
    cpu_ms: float  # until `tools/list` was answered
    first_call_ms: float


async def cold_start(server: Spawned, cwd: Path) -> Start:
    hello = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT}
    started = time.perf_counter()
    peer = await McpPeer.spawn(server.argv, cwd, server.env)
    try:
        await peer.request("initialize", hello)
        initialized = time.perf_counter()
        # What agents do as soon as the handshake is answered.
        peer.notify("notifications/initialized")
        tools = (await peer.request("tools/list"))["result"]["tools"]
        listed = time.perf_counter()
        cpu = cpu_ns(peer.process.pid)
        if server.first_tool not in (tool["name"] for tool in tools):
            raise SystemExit(f"bench: {server.first_tool} was not listed")
        call = {"name": server.first_tool, "arguments": {}}
        if (await peer.request("tools/call", call))["result"].get("isError"):
            raise SystemExit(f"bench: the first {server.first_tool} failed")
        called = time.perf_counter()
    finally:
        await peer.close()
    return Start(
        (initialized - started) * 1000,
        (listed - started) * 1000,
        cpu / 1e6,
        (called - started) * 1000,
    )


async def cold_starts(
    servers: dict[str, Spawned], cwd: Path, spawns: int, log: Callable[[str], None]
) -> dict[str, list[Start]]:
    log(f"MCP cold start: {spawns} spawns of each, shuffled in rounds")
    for server in servers.values():
        await cold_start(server, cwd)  # the first one also pays for the disk cache
    starts: dict[str, list[Start]] = {name: [] for name in servers}
    order = list(servers)
    for _ in range(spawns):
        random.shuffle(order)
        for name in order:
            starts[name].append(await cold_start(servers[name], cwd))
    return starts


def ten_todos(turn: int) -> Json:
    """A TodoWrite-sized list: 10 todos, the one in progress moving each call, so every
    call is a committed change."""
    current = turn % 2
    return {
        "todos": [
            {
                "content": f"Implement step {n + 1} of the feature",
                "activeForm": f"Implementing step {n + 1} of the feature",
                "status": "in_progress" if n == current else "pending",
            }
            for n in range(10)
        ]
    }


@dataclass
class Calls:
    """Tool calls of one kind: round trips (µs), each block's p50, CPU on each side."""

    samples: list[float] = field(default_factory=list)
    rounds: list[float] = field(default_factory=list)
    server_ns: int = 0
    client_s: float = 0.0

    def server_us(self) -> float:
        return self.server_ns / 1000 / len(self.samples)

    def client_us(self) -> float:
        return self.client_s * 1e6 / len(self.samples)


async def call_block(
    calls: Calls, peer: McpPeer, tool: str, arguments: Callable[[], Json], count: int
) -> None:
    server_before, client_before = cpu_ns(peer.process.pid), time.process_time()
    block = []
    clock = time.perf_counter_ns
    for _ in range(count):
        params = {"name": tool, "arguments": arguments()}
        started = clock()
        result = (await peer.request("tools/call", params))["result"]
        block.append((clock() - started) / 1000)
        if result.get("isError"):
            raise SystemExit(f"bench: {tool} failed: {result['content']}")
    calls.samples += block
    calls.rounds.append(median(block))
    calls.server_ns += cpu_ns(peer.process.pid) - server_before
    calls.client_s += time.process_time() - client_before


async def tool_calls(
    db: Path, cwd: Path, sizes: Sizes, log: Callable[[str], None]
) -> tuple[Calls, Calls, Calls]:
    """todo_write and todo_read on `plansight mcp`, a no-op on the SDK's server."""
    ours = await McpPeer.spawn(plansight_argv(db), cwd)
    sdk = await McpPeer.spawn(sdk_argv(), cwd)
    turn = iter(range(1 << 30))
    kinds: list[tuple[Calls, McpPeer, str, Callable[[], Json]]] = [
        (Calls(), sdk, "noop", dict),
        (Calls(), ours, "todo_write", lambda: ten_todos(next(turn))),
        (Calls(), ours, "todo_read", dict),
    ]
    try:
        await ours.handshake()
        await sdk.handshake()
        log("MCP tool calls: warming up")
        for _, peer, tool, arguments in kinds:
            await call_block(Calls(), peer, tool, arguments, sizes.block)
        log(f"MCP tool calls: {sizes.calls} of each, in blocks of {sizes.block}")
        for _ in range(sizes.calls // sizes.block):
            for calls, peer, tool, arguments in kinds:
                await call_block(calls, peer, tool, arguments, sizes.block)
    finally:
        await ours.close()
        await sdk.close()
    noop, write, read = (calls for calls, *_ in kinds)
    return noop, write, read


def start_rows(starts: dict[str, list[Start]], baseline: str | None) -> list[Row]:
    ours, sdk, high = starts["plansight"], starts["sdk"], starts["mcpserver"]
    rows = []
    for what, figure, targeted in (
        ("`initialize` answered", lambda s: s.initialize_ms, True),
        ("`tools/list` answered", lambda s: s.tools_ms, True),
        ("the first tool call answered (`todo_read` / no-op)", lambda s: s.first_call_ms, False),
    ):
        ratio = paired_ratio([figure(s) for s in ours], [figure(s) for s in sdk])
        rows.append(
            Row(
                f"`plansight mcp` cold start p50: spawn to {what} (floor: {SDK})",
                f"{median([figure(s) for s in ours]):.0f} ms",
                f"{median([figure(s) for s in sdk]):.0f} ms",
                f"{ratio:.2f}x",
                f"<= {START_TARGET}x" if targeted else "—",
                verdict(ratio <= START_TARGET) if targeted else "—",
            )
        )
    cpu_ratio = paired_ratio([s.cpu_ms for s in ours], [s.cpu_ms for s in sdk])
    rows.append(
        Row(
            f"`plansight mcp` server CPU p50 until `tools/list` answered (floor: {SDK})",
            f"{median([s.cpu_ms for s in ours]):.0f} ms",
            f"{median([s.cpu_ms for s in sdk]):.0f} ms",
            f"{cpu_ratio:.2f}x",
        )
    )
    if "before" in starts:
        before = starts["before"]
        ratio = paired_ratio([s.tools_ms for s in before], [s.tools_ms for s in sdk])
        rows.append(
            Row(
                f"`plansight mcp` cold start p50 to `tools/list`, before: {baseline} (floor: {SDK})",
                f"{median([s.tools_ms for s in before]):.0f} ms",
                f"{median([s.tools_ms for s in sdk]):.0f} ms",
                f"{ratio:.2f}x",
                f"<= {START_TARGET}x",
                verdict(ratio <= START_TARGET),
            )
        )
    high_ratio = paired_ratio([s.tools_ms for s in high], [s.tools_ms for s in sdk])
    rows.append(
        Row(
            f"SDK `MCPServer` no-op cold start p50 to `tools/list` (floor: {SDK})",
            f"{median([s.tools_ms for s in high]):.0f} ms",
            f"{median([s.tools_ms for s in sdk]):.0f} ms",
            f"{high_ratio:.2f}x",
        )
    )
    return rows


def call_rows(noop: Calls, write: Calls, read: Calls) -> list[Row]:
    rows = []
    for tool, calls in (("todo_write", write), ("todo_read", read)):
        ratio = paired_ratio(calls.rounds, noop.rounds)
        sized = " (10 todos)" if tool == "todo_write" else ""
        rows.append(
            Row(
                f"`{tool}`{sized} over `plansight mcp` p50 (p99) (floor: a no-op call, {SDK})",
                f"{median(calls.samples) / 1000:.2f} ms ({percentile(calls.samples, 0.99) / 1000:.2f} ms)",
                f"{median(noop.samples) / 1000:.2f} ms ({percentile(noop.samples, 0.99) / 1000:.2f} ms)",
                f"{ratio:.2f}x",
            )
        )
        rows.append(
            Row(
                f"CPU per `{tool}` call over `plansight mcp`: server / client (floor: a no-op)",
                f"{calls.server_us():.0f} / {calls.client_us():.0f} µs",
                f"{noop.server_us():.0f} / {noop.client_us():.0f} µs",
                f"{calls.server_us() / noop.server_us():.2f}x server",
            )
        )
    return rows


async def measure(
    folder: Path, sizes: Sizes, log: Callable[[str], None], baseline: str | None = None
) -> list[Row]:
    """The rows of the MCP figures; the servers run from `folder` (kept empty but for the
    store) so that nothing in the current folder shadows a module. `baseline`: another
    checkout's `server/`, whose cold start is measured in the same rounds."""
    db = folder / "mcp.sqlite3"
    servers = {
        "plansight": Spawned(plansight_argv(db), "todo_read"),
        "sdk": Spawned(sdk_argv(), "noop"),
        "mcpserver": Spawned(sdk_argv("mcpserver"), "noop"),
    }
    if baseline is not None:
        path = str(Path(baseline).resolve())
        before = plansight_argv(folder / "before.sqlite3")
        servers["before"] = Spawned(before, "todo_read", {"PYTHONPATH": path})
    starts = await cold_starts(servers, folder, sizes.spawns, log)
    noop, write, read = await tool_calls(db, folder, sizes, log)
    return start_rows(starts, baseline) + call_rows(noop, write, read)


def place(placement: str) -> str:
    """As `run.py --placement`: the client and the servers on one CPU by default."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if placement == "free" or not cpus:
        return "client and servers placed by the scheduler"
    os.sched_setaffinity(0, {cpus[-1]})
    rpc.SERVER_CPUS.update({cpus[-1]})
    return f"client and servers on CPU {cpus[-1]}"


async def main(args: argparse.Namespace) -> int:
    sizes = QUICK if args.quick else FULL
    if args.spawns:
        sizes = Sizes(args.spawns, sizes.calls, sizes.block)
    placement = place(args.placement)
    if args.server_path:
        os.environ["PYTHONPATH"] = str(Path(args.server_path).resolve())
    started = time.perf_counter()
    load_before = load()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:5.1f} s] {message}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="plansight-mcp-bench-") as folder:
        rows = await measure(Path(folder), sizes, log, args.baseline)
    elapsed = time.perf_counter() - started
    print(table(rows))
    print(
        f"\nMachine: {machine()}; {placement}. Load average (1, 5, 15 min) {load_before} "
        f"before the run, {load()} after. The run took {elapsed:.0f} s"
        + (" (`--quick`: small samples, indicative only)." if args.quick else ".")
    )
    return 0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: small samples")
    parser.add_argument("--spawns", type=int, help="cold starts of each server (default 20)")
    parser.add_argument(
        "--placement",
        choices=("same", "free"),
        default="same",
        help="client and servers on one CPU (default), or wherever the scheduler likes",
    )
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="also measure the cold start of another checkout's server/ in the same rounds",
    )
    parser.add_argument(
        "--server-path",
        metavar="DIR",
        help="import plansight from DIR (another checkout's server/) to compare versions",
    )
    return parser.parse_args()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse_args())))
