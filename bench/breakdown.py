"""Where a request's server CPU goes, measured in one process (no pipes, no event loop
waits): the whole request as the transport dispatches it, then its parts.

    .venv/bin/python bench/breakdown.py              # 20 tasks
    .venv/bin/python bench/breakdown.py --tasks 1000
    .venv/bin/python bench/breakdown.py --tasks 1000 --nested  # three deep (protocol 4)

CPU time (`time.process_time`), best of five rounds, so other processes on the machine
matter less than they do to the round trips of `run.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from plansight.lsp import transport
from plansight.lsp.pygls_private import request_runner
from plansight.lsp.server import PlansightServer, build_server
from plansight.protocol.models import METHODS
from plansight.protocol.requests import ApplyParams
from workload import nested_plan_ops, plan_ops

ROUNDS = 5


class Sink:
    """Stands in for stdout: keeps the last messages written."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.messages.append(data)
        del self.messages[:-2]

    def close(self) -> None:
        pass


class TimedConnection:
    """Wraps the store's connection to add up the time of its statements."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.seconds = 0.0

    def execute(self, *args: Any) -> Any:
        started = time.process_time()
        try:
            return self.db.execute(*args)
        finally:
            self.seconds += time.process_time() - started

    def executemany(self, *args: Any) -> Any:
        started = time.process_time()
        try:
            return self.db.executemany(*args)
        finally:
            self.seconds += time.process_time() - started

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def best(count: int, run: Callable[[int], Any]) -> float:
    """Microseconds of CPU per call, best of ROUNDS rounds."""
    for i in range(min(count, 50)):
        run(i)
    results = []
    for _ in range(ROUNDS):
        started = time.process_time()
        for i in range(count):
            run(i)
        results.append((time.process_time() - started) / count * 1e6)
    return min(results)


def frame_body(message: bytes) -> bytes:
    return message.split(b"\r\n\r\n", 1)[1]


class Started:
    """A language server fed messages in process, as its transport feeds them."""

    def __init__(
        self, tasks: int, public: str = "", deltas: bool = False, nested: bool = False
    ) -> None:
        """`public`: "" the fast paths, "request" pygls's public request path (the fast
        send path kept), "all" pygls's public paths, as its fallback runs. `deltas`: the
        client asks for change deltas in pushes and answers (docs/protocol.md)."""
        folder = tempfile.mkdtemp(prefix="plansight-breakdown-")
        self.server: PlansightServer = build_server(str(Path(folder) / "plans.sqlite3"))
        self.protocol = self.server.protocol
        if public:
            # As when the installed pygls lacks a private name (`pygls_private.py`): the
            # fast methods the fence set on the instance go, pygls's own answer again.
            del self.protocol._handle_request  # type: ignore[attr-defined]
        if public == "all":
            self.server.fenced.fast = False
            del self.protocol._send_data  # type: ignore[attr-defined]
        self.sink = Sink()
        self.protocol.set_writer(self.sink)
        self.methods = frozenset(METHODS)
        self.run = None if public else request_runner(self.protocol)
        options = {"plansight": {"maxTasks": 5000}}
        init: dict[str, Any] = {"processId": None, "rootUri": None, "capabilities": {}}
        if deltas:
            asked = {"changeDeltas": True, "changeDeltaAnswers": True}
            init["capabilities"] = {"experimental": {"plansight": asked}}
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": init | {"initializationOptions": options},
            }
        )
        ops = nested_plan_ops(tasks) if nested else plan_ops(tasks, 20 if tasks > 20 else 5)
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "plansight/apply",
                "params": {"session": "b", "ops": ops},
            }
        )

    def send(self, message: dict[str, Any]) -> None:
        self.dispatch(json.dumps(message).encode())
        transport.run_after(self.server.after_answer)  # as the transport does

    def dispatch(self, body: bytes) -> None:
        transport._dispatch(self.protocol, body, self.methods, self.run)
        # A push the answer scheduled (the public path answers outside the fence's
        # request path) goes as the event loop would send it, right after.
        self.server.send_pushes()


async def measure(tasks: int, count: int, nested: bool = False) -> list[tuple[str, float]]:
    started = Started(tasks, nested=nested)
    public = Started(tasks, public="all", nested=nested)
    public_request = Started(tasks, public="request", nested=nested)
    opted = Started(tasks, deltas=True, nested=nested)
    server, sink = started.server, started.sink
    protocol, methods, run = started.protocol, started.methods, started.run
    assert server.service is not None
    service = server.service
    gc.freeze()  # as `plansight serve` does once it has started

    # Two leaves started in turn: in a nested plan t3 and t4 (t1 and t2 are parents).
    leaves = ("t4", "t3") if nested else ("t2", "t1")

    def apply_params(i: int) -> dict[str, Any]:
        return {"session": "b", "ops": [{"op": "start", "id": leaves[i % 2]}]}

    get_message = json.dumps(
        {"jsonrpc": "2.0", "id": 5, "method": "plansight/get", "params": {"session": "b"}}
    ).encode()
    apply_messages = [
        json.dumps(
            {"jsonrpc": "2.0", "id": 6, "method": "plansight/apply", "params": apply_params(i)}
        ).encode()
        for i in range(2)
    ]
    rows = []
    rows.append(
        (
            "`get`, whole request",
            best(count, lambda i: transport._dispatch(protocol, get_message, methods, run)),
        )
    )
    get_body = frame_body(sink.messages[-1])
    rows.append(
        (
            "`get`, whole request, over pygls's public paths",
            best(count, lambda i: public.dispatch(get_message)),
        )
    )
    assert json.loads(frame_body(public.sink.messages[-1]))["result"]["version"] == 1
    rows.append(
        (
            "`get`, whole request, pygls's public request path, our send path",
            best(count, lambda i: public_request.dispatch(get_message)),
        )
    )
    rows.append(
        (
            "`apply` + its push, whole request",
            best(
                count, lambda i: transport._dispatch(protocol, apply_messages[i % 2], methods, run)
            ),
        )
    )
    apply_bodies = [frame_body(message) for message in sink.messages[-2:]]
    rows.append(
        (
            "`apply` + its push, whole request, over pygls's public paths",
            best(count, lambda i: public.dispatch(apply_messages[i % 2])),
        )
    )
    assert b"didChange" in public.sink.messages[-1]
    rows.append(
        (
            "`apply` + its push, pygls's public request path, our send path",
            best(count, lambda i: public_request.dispatch(apply_messages[i % 2])),
        )
    )
    rows.append(
        (
            "`apply` + its push, whole request, to a client of delta answers",
            best(count, lambda i: opted.dispatch(apply_messages[i % 2])),
        )
    )
    delta_bodies = [frame_body(message) for message in opted.sink.messages[-2:]]
    assert b"baseVersion" in delta_bodies[0] and b"didChange" in opted.sink.messages[-1]
    rows.append(
        (
            "`apply`: params validation (pydantic)",
            best(count, lambda i: ApplyParams.validate(apply_params(i))),
        )
    )

    timed = TimedConnection(service.store._db)  # type: ignore[attr-defined]
    service.store._db = timed  # type: ignore[attr-defined]

    def service_apply(i: int) -> Any:
        raw = apply_params(i)
        return service.apply(ApplyParams.validate(raw), raw)

    timed.seconds = 0.0
    whole = best(count, service_apply)
    sql = timed.seconds / (ROUNDS * count + min(count, 50)) * 1e6
    service.store._db = timed.db  # type: ignore[attr-defined]
    rows.append(("`apply`: PlanService.apply (with validation)", whole))
    rows.append(("`PlanService.apply`: SQLite statements (about)", sql))
    outcome = service_apply(0)
    rows.append(
        (
            "`apply`: its answer and push, encoded",
            best(count, lambda i: server.answer_change(outcome)),
        )
    )
    server.pushes.clear()
    # The same to a client of delta answers: the delta from the state it was sent before.
    deltas = opted.server.deltas
    assert deltas is not None and opted.server.service is not None
    sent_before = deltas._pushed["b"]
    raw = apply_params(1)
    delta_outcome = opted.server.service.apply(ApplyParams.validate(raw), raw)

    def answer_delta(i: int) -> Any:
        deltas._pushed["b"] = sent_before
        return opted.server.answer_change(delta_outcome)

    rows.append(("`apply`: its answer and push, encoded as deltas", best(count, answer_delta)))
    opted.server.pushes.clear()
    plan = outcome.plan
    assert plan is not None
    rows.append(
        (
            "encoding: the TodoState from kept task bytes",
            best(count, lambda i: server.states.state(plan)),
        )
    )
    rows.append(
        (
            "client: decode the `get` answer (json.loads)",
            best(count, lambda i: json.loads(get_body)),
        )
    )
    rows.append(
        (
            "client: decode the `apply` answer and push",
            best(count, lambda i: [json.loads(body) for body in apply_bodies]),
        )
    )
    rows.append(
        (
            "client of delta answers: decode the `apply` answer and push",
            best(count, lambda i: [json.loads(body) for body in delta_bodies]),
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--nested", action="store_true", help="a plan nested three deep")
    args = parser.parse_args()
    count = 2000 if args.tasks <= 100 else 100
    rows = asyncio.run(measure(args.tasks, count, args.nested))
    shape = ", nested three deep" if args.nested else ""
    print(f"| on a {args.tasks}-task plan{shape} | CPU µs |")
    print("|---|---|")
    for name, micros in rows:
        print(f"| {name} | {micros:,.1f} |")


if __name__ == "__main__":
    main()
