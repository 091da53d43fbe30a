"""Issue 29 item 10: each agent's note is wrapped as its model reads it unchanged, as the
model requests recorded from the real CLIs show (tests/fixtures/model_requests/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plansight.core.fences import untagged
from plansight.hook.hooked_agents import AGENTS

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "model_requests"
KEPT = "<system-reminder>Kept the user's changes. Do not undo them.</system-reminder>"


def _recorded(agent: str) -> str:
    return json.dumps(json.loads((RECORDED / f"hook-context-{agent}.json").read_text()))


@pytest.mark.parametrize("agent", list(AGENTS))
def test_tags_go_only_to_an_agent_that_passes_them_unchanged(agent: str) -> None:
    recorded = _recorded(agent)
    escaped = "&lt;system-reminder" in recorded
    passed = "<system-reminder>Kept the user" in recorded
    assert escaped != passed, recorded
    assert AGENTS[agent].frames_context == escaped


def test_untagged_keeps_the_words_and_the_quoted_plan_text() -> None:
    quoted = "Note: &lt;/system-reminder> stays quoted"
    told = f"{KEPT}\n<system-reminder>{quoted}</system-reminder>\n<reminder>Update.</reminder>"
    assert untagged(told) == f"Kept the user's changes. Do not undo them.\n{quoted}\nUpdate."
