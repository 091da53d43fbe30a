"""When an answer moves the agent's base and its seen cursor (`agent_view.py`), case by
case: what the store is told to write for each kind of change and answer. The end-to-end
stories (`test_steering_answers.py`, the property test) show what a person sees of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from plansight.agent_view import AgentView
from plansight.core.model import Origin, Plan
from plansight.core.steering import Steering
from plansight.policies import APPLY, INGEST_LIST, WRITE, ChangeCall, ChangePolicy
from plansight.store import open_store
from plansight.store.base import PendingEdit, SeenCursor

STALE_LIST_MERGED = "merged"  # a stale whole list, merged: nothing kept
KEPT = "kept"  # merged, keeping a person's change: the answer has a Kept line
NOT_TAKEN = "not taken"  # the merge would pass a limit: nothing merged
NO_MERGE = "no merge"  # the agent saw the current plan (the fast path)


def steering_of(kind: str) -> Steering | None:
    if kind == NO_MERGE:
        return None
    steering = Steering(Plan("s"), taken=kind != NOT_TAKEN)
    if kind == KEPT:
        steering.kept.append('completed "A"')
    return steering


CASES = [
    # (origin, policy, steering, unheard, committed) -> (moves_base, cursor)
    ("user", APPLY, NO_MERGE, False, True, False, SeenCursor.STAYS),
    ("user", WRITE, NO_MERGE, False, False, False, SeenCursor.STAYS),
    ("agent", APPLY, NO_MERGE, False, True, True, SeenCursor.OWN_CHANGE),
    ("agent", APPLY, NO_MERGE, False, False, False, SeenCursor.RESTART),
    # (v4) Any answer to its whole list shows it the version it leaves.
    ("agent", WRITE, NO_MERGE, False, False, True, SeenCursor.RESTART),
    ("agent", WRITE, STALE_LIST_MERGED, False, False, True, SeenCursor.RESTART),
    ("agent", WRITE, NOT_TAKEN, False, False, False, SeenCursor.RESTART),
    ("agent", WRITE, KEPT, False, True, True, SeenCursor.TOLD),
    # A spooled hook event's answer reaches no agent: its Kept line is told later.
    ("agent", INGEST_LIST, KEPT, True, True, False, SeenCursor.STAYS),
    ("agent", INGEST_LIST, NO_MERGE, True, False, False, SeenCursor.RESTART),
    ("agent", INGEST_LIST, NO_MERGE, True, True, True, SeenCursor.OWN_CHANGE),
]


@pytest.mark.parametrize(
    ("origin", "policy", "kind", "unheard", "committed", "moves_base", "cursor"), CASES
)
def test_an_answer_moves_the_agents_view_as_it_shows_it_the_plan(
    tmp_path: Path,
    origin: Origin,
    policy: ChangePolicy,
    kind: str,
    unheard: bool,
    committed: bool,
    moves_base: bool,
    cursor: SeenCursor,
) -> None:
    view = AgentView(open_store(tmp_path / "plans.sqlite3"))
    edit = PendingEdit(Plan("s", version=3), agent_base=2)
    call = ChangeCall("s", origin, {}, unheard=unheard)

    view.answered(edit, policy, call, steering_of(kind), committed)

    assert (edit.moves_base, edit.cursor) == (moves_base, cursor)
