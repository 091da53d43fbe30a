"""What one todo_read costs an agent, through the SDK's own client over stdio.

The figure is reported (run with `-s`), never asserted: the machine is shared.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest
from mcp_harness import mcp_client, text_of, todo

CALLS = 200


async def test_todo_read_latency(store_path: Path, record_property: pytest.RecordProperty) -> None:
    todos = [todo(f"Step {n}", f"Doing step {n}") for n in range(1, 11)]
    async with mcp_client("--db", str(store_path)) as client:
        written = text_of(await client.call_tool("todo_write", {"todos": todos}))
        texts, took = set(), []
        for _ in range(CALLS):
            start = time.perf_counter()
            result = await client.call_tool("todo_read", {})
            took.append(time.perf_counter() - start)
            assert not result.is_error
            texts.add(text_of(result))

    # Every read sees the list as written, with the same lines as the write's answer.
    assert texts == {written.replace("Todo list updated:", "Todo list:", 1)}
    took.sort()
    p50, p95 = statistics.median(took) * 1000, took[int(CALLS * 0.95)] * 1000
    record_property("todo_read_p50_ms", round(p50, 2))
    print(f"\ntodo_read over stdio, {CALLS} calls: p50 {p50:.2f} ms, p95 {p95:.2f} ms")
