"""Fixtures: a real `plansight serve` over stdio on a fresh store per test. A test marked
`both_backends` runs twice: on a SQLite file and on a PostgreSQL database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from plansight_client import PlansightClient, start_client, stop_client


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "db" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_backends"):
        metafunc.parametrize("db", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A fresh store: a SQLite file (its folder not made yet), or a PostgreSQL URL."""
    if getattr(request, "param", "sqlite") == "postgresql":
        return str(request.getfixturevalue("postgres_url"))
    return tmp_path / "state" / "plans.sqlite3"


@pytest_asyncio.fixture
async def client(db: Path | str) -> AsyncIterator[PlansightClient]:
    started = await start_client(db)
    yield started
    await stop_client(started)
