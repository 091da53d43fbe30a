"""Fixtures: a real `plansight serve` over stdio on a fresh store per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from plansight_client import PlansightClient, start_client, stop_client


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "state" / "plans.sqlite3"


@pytest_asyncio.fixture
async def client(db: Path) -> AsyncIterator[PlansightClient]:
    started = await start_client(db)
    yield started
    await stop_client(started)
