"""With a pygls that lacks a private name the fast paths use, the server answers over
pygls's public paths: requests, errors and pushes as the contract says."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from plansight_client import PlansightClient, start_client, stop_client
from pygls.exceptions import JsonRpcException

from plansight.protocol.models import METHODS, ApplyResult, TodoState

CHANGED_PYGLS = [sys.executable, str(Path(__file__).with_name("pygls_changed.py")), "serve"]


@pytest_asyncio.fixture
async def public_paths(tmp_path: Path) -> AsyncIterator[PlansightClient]:
    started = await start_client(tmp_path / "plans.sqlite3", server=CHANGED_PYGLS)
    yield started
    await stop_client(started)


async def test_requests_and_pushes_go_over_pygls_public_paths(
    public_paths: PlansightClient,
) -> None:
    client = public_paths
    assert client.initialize_result is not None
    experimental = client.initialize_result.capabilities.experimental
    assert experimental["plansight"]["methods"] == list(METHODS)

    ops = [{"op": "init", "list": [{"phase": "Work", "items": ["Read the code", "Fix the bug"]}]}]
    result = await client.call("plansight/apply", {"session": "s", "ops": ops})
    ApplyResult.model_validate(result)
    assert result["version"] == 1 and result["current"]["content"] == "Read the code"
    push = await client.change_where(lambda change: change["version"] == 1)
    assert push["origin"] == "agent" and push["phases"] == result["phases"]

    state = await client.call("plansight/get", {"session": "s"})
    TodoState.model_validate(state)
    assert state["phases"] == result["phases"]

    with pytest.raises(JsonRpcException) as refused:
        await client.call("plansight/apply", {"session": "s", "ops": "not a list"})
    assert refused.value.code == -32602
    assert (await client.call("plansight/sessions"))["sessions"][0]["session"] == "s"
