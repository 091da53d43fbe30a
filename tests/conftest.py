"""Fixtures shared by every test: a fresh store file and the service over it, and a real
PostgreSQL cluster for the team store's tests (started once, on first use). Every test,
and every process a test starts, runs with a home and XDG folders of its own (see
`isolated_home`): nothing reads or writes the person's own state."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore
from postgres_cluster import Cluster, running_cluster

# The person's own home, before the tests' replaces it: `tests/test_isolation.py` checks
# that nothing a test runs lands there.
REAL_HOME = Path.home()
REAL_STATE_HOME = Path(os.environ.get("XDG_STATE_HOME") or REAL_HOME / ".local" / "state")

# What makes a plansight process pick its store, its hook log or its warm process; none
# of the person's own settings reaches a test.
PERSONAL_SETTINGS = ("PLANSIGHT_DB", "PLANSIGHT_WORKSPACE", "PLANSIGHT_SESSION")


def isolated_home() -> Path:
    """A home of the tests' own: HOME, the XDG folders (where default stores and the hook
    log live) and XDG_RUNTIME_DIR (where the warm hook process listens), all in one fresh
    folder, set in this process's environment so that every process a test starts
    inherits them. pip keeps reading the person's configuration (its package index)."""
    root = Path(tempfile.mkdtemp(prefix="plansight-tests-"))  # 0700
    pip_config = REAL_HOME / ".config" / "pip" / "pip.conf"
    if "PIP_CONFIG_FILE" not in os.environ and pip_config.is_file():
        os.environ["PIP_CONFIG_FILE"] = str(pip_config)
    folders = {
        "HOME": root / "home",
        "XDG_CONFIG_HOME": root / "home" / ".config",
        "XDG_DATA_HOME": root / "home" / ".local" / "share",
        "XDG_STATE_HOME": root / "home" / ".local" / "state",
        "XDG_CACHE_HOME": root / "home" / ".cache",
        "XDG_RUNTIME_DIR": root / "run",
    }
    for name, folder in folders.items():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.environ[name] = str(folder)
    for name in PERSONAL_SETTINGS:
        os.environ.pop(name, None)
    return root


TESTS_HOME = isolated_home()

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
    shutil.rmtree(TESTS_HOME, ignore_errors=True)


@pytest.fixture(autouse=True)
def _no_conversation_link_between_tests() -> Iterator[None]:
    """This process runs many tests' hooks and starts their MCP servers, as an agent does:
    the link a test's hook leaves under it (`conversation_link.py`) must not reach the MCP
    servers of the next test."""
    yield
    links = TESTS_HOME / "home" / ".local" / "state" / "plansight" / "hooks" / "links"
    shutil.rmtree(links, ignore_errors=True)


# Property tests must stay quick on a shared two-core machine; timing is never asserted.
hypothesis_settings.register_profile("plansight", max_examples=200, deadline=None)
hypothesis_settings.load_profile("plansight")


@pytest.fixture(scope="session")
def homes() -> tuple[Path, Path, Path]:
    """The tests' own home folder, the person's real home and their real state folder
    (a fixture: several folders of tests have a `conftest` module of their own)."""
    return TESTS_HOME, REAL_HOME, REAL_STATE_HOME


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
