"""The checked-in docs stay true to the code."""

from __future__ import annotations

import json
from pathlib import Path

from plansight.protocol.models import json_schema

ROOT = Path(__file__).resolve().parent.parent


def test_checked_in_schema_matches_the_models() -> None:
    checked_in = json.loads((ROOT / "docs" / "protocol.schema.json").read_text())
    assert checked_in == json_schema(), "run: plansight schema > docs/protocol.schema.json"


def test_protocol_doc_names_every_method_and_setting() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text()
    for method in json_schema()["requests"]:
        assert f"`{method}`" in text
    from plansight.core.settings import Settings

    for name in Settings().to_wire():
        assert f"`{name}`" in text
