"""Shared pieces of the reliability suite: scale knobs, a spawned-server factory and the
figures that `docs/reliability.md` quotes.

CI runs the suite as it is (`pytest tests/reliability`); the nightly-style run turns the
knobs up, e.g. `PLANSIGHT_FUZZ_REQUESTS=100000 PLANSIGHT_CRASH_CYCLES=500`.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reliability_wire import WireClient

FIGURES: Counter[str] = Counter()


@pytest.fixture(scope="session")
def figures() -> Counter[str]:
    return FIGURES


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not FIGURES:
        return
    terminalreporter.section("plansight reliability figures")
    for key in sorted(FIGURES):
        terminalreporter.write_line(f"{key}: {FIGURES[key]}")
    target = os.environ.get("PLANSIGHT_RELIABILITY_REPORT")
    if target:
        Path(target).write_text(json.dumps(dict(sorted(FIGURES.items())), indent=2) + "\n")


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Any]:
    """Start `plansight serve` processes that are killed at the end of the test."""
    started: list[WireClient] = []

    def start(db: str | os.PathLike[str] | None, **kwargs: Any) -> WireClient:
        client = WireClient(db, log_dir=tmp_path / "logs", **kwargs)
        started.append(client)
        return client

    yield start
    for client in started:
        client.kill()
