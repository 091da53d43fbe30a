"""Fixtures shared by every test: a fresh store file and the service over it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore

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
