"""The session a client follows when the person picked none: one rule, run here on the
cases the editors' tests run too (tests/fixtures/follow/cases.json)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from plansight.protocol.follow import FOLLOW_IDLE, followed_session, updated_at
from plansight.protocol.models import json_schema

CASES = json.loads((Path(__file__).parent / "fixtures" / "follow" / "cases.json").read_text())
NOW = updated_at({"updatedAt": CASES["now"]})


def summary(session: dict[str, Any]) -> dict[str, Any]:
    """A session as `plansight/sessions` lists it, with what the rule reads."""
    return {
        "session": session["session"],
        "updatedAt": session["updatedAt"],
        "progress": {"completed": 0, "abandoned": 0, "blocked": 0, "total": session["tasks"]},
    }


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["name"] for c in CASES["cases"]])
def test_the_followed_session(case: dict[str, Any]) -> None:
    assert NOW is not None
    idle = timedelta(seconds=case["idleSeconds"]) if "idleSeconds" in case else FOLLOW_IDLE
    sessions = [summary(s) for s in case["sessions"]]
    found = followed_session(sessions, case["previous"], NOW, case.get("kept", ()), idle)
    assert found == case["followed"]


def test_the_idle_time_is_the_one_the_editors_read() -> None:
    assert json_schema()["rules"]["followIdleSeconds"] == FOLLOW_IDLE.total_seconds()
