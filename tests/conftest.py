"""Fixtures shared by every test: a fresh store file and the service over it, and a real
PostgreSQL cluster for the team store's tests (started once, on first use)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore
from postgres_cluster import Cluster, running_cluster

# Commands the tests run go through the warm hook process as a person's do (the relay of
# `plansight hook` and of one-shot commands); one a test leaves behind leaves within a
# minute, and the one of the tests' own settings is stopped when they end.
os.environ["PLANSIGHT_HOOK_IDLE_SECONDS"] = "60"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    subprocess.run(
        [sys.executable, "-m", "plansight", "hook-daemon", "--stop"],
        capture_output=True,
        check=False,
    )


# Property tests must stay quick on a shared two-core machine; timing is never asserted.
hypothesis_settings.register_profile("plansight", max_examples=200, deadline=None)
hypothesis_settings.load_profile("plansight")


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """Where a test's store lives; the folder does not exist yet."""
    return tmp_path / "state" / "plans.sqlite3"


@pytest.fixture
def store(store_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore(store_path)
    yield opened
    opened.close()


@pytest.fixture
def service(store: SqliteStore) -> PlanService:
    return PlanService(store)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """A throwaway PostgreSQL cluster (Debian's package), on a Unix socket only."""
    with running_cluster() as cluster:
        yield cluster


@pytest.fixture
def postgres_url(postgres: Cluster) -> str:
    """A fresh, empty database of that cluster, owned by an ordinary role."""
    return postgres.url(postgres.create_database())


@pytest.fixture(params=("sqlite", "postgresql"))
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store lives, once per backend: a new SQLite file, or a new PostgreSQL
    database. A test that takes it runs on both: the store contract."""
    if request.param == "sqlite":
        return str(tmp_path / "state" / "plans.sqlite3")
    return str(request.getfixturevalue("postgres_url"))
