"""The store watcher's wait (`lsp/watch.py`): woken by its descriptor or by its longest
wait, and never left listening on the descriptor afterwards (a cancelled server too)."""

from __future__ import annotations

import asyncio
import os

import pytest

from plansight.lsp.watch import _readable


async def test_wakes_when_readable_and_lets_the_descriptor_go() -> None:
    loop = asyncio.get_running_loop()
    read, write = os.pipe()
    try:
        os.write(write, b"x")
        await asyncio.wait_for(_readable(loop, read, 60), 10)
        assert not loop.remove_reader(read)  # nothing left registered
    finally:
        os.close(read)
        os.close(write)


async def test_wakes_after_its_longest_wait_without_news() -> None:
    loop = asyncio.get_running_loop()
    read, write = os.pipe()
    try:
        await asyncio.wait_for(_readable(loop, read, 0.01), 10)
        assert not loop.remove_reader(read)
    finally:
        os.close(read)
        os.close(write)


async def test_cancelled_while_waiting_lets_the_descriptor_go() -> None:
    loop = asyncio.get_running_loop()
    read, write = os.pipe()
    try:
        waiting = asyncio.ensure_future(_readable(loop, read, 60))
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert not loop.remove_reader(read)
    finally:
        os.close(read)
        os.close(write)
