"""The recorded payloads of `tests/fixtures/agents/`: one real payload per agent shape,
each with a note of where its shape came from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent.parent / "fixtures" / "agents"


def fixture(name: str) -> dict[str, Any]:
    """The whole fixture file: `format`, `source`, `payload`."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def payload(name: str) -> dict[str, Any]:
    data: dict[str, Any] = fixture(name)["payload"]
    return data


def names() -> list[str]:
    return sorted(path.stem for path in FIXTURES.glob("*.json"))
