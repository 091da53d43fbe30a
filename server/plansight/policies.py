"""What each changing request does, declared once: its policy, a value the change
pipeline (`pipeline.py`) is handed, so a request's behaviour is chosen by which policy it
passes and not by a row of switches. What varies with one call of a request (the version
its sender saw, a person's `merge`, an answer no agent reads) is its `ChangeCall`.

A new kind of change (a nested task's, protocol 4) is a new policy here, its run and its
call in `service.py`; the pipeline's steps stay as they are unless the kind needs a new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from plansight.core.model import Origin
from plansight.core.undo import UNDO_METHOD
from plansight.wire import Json


@dataclass(frozen=True, slots=True)
class ChangePolicy:
    """How the pipeline runs one kind of changing request."""

    method: str  # as the event log holds it
    # It carries the agent's whole list: an agent's stale one is merged from its base
    # and any answer to it shows the agent the version it leaves: its base moves
    # there, committed or not (`agent_view.py`).
    whole_list: bool = False
    # Its run replaces the whole list with new Task objects, changing none it finds (the
    # agent's kept base then shares its tasks with nothing that changes).
    anew: bool = False
    # A person's stale list may ask to be merged (`merge: true`) rather than refused.
    person_merges: bool = False
    # The answer says "updated" even when nothing changed: a TodoWrite caller hears what
    # Claude Code's own tool says.
    always_updated: bool = False


# `apply`: ops on the plan as it is.
APPLY = ChangePolicy("plansight/apply")
# `apply` with an `init` op: the agent's whole list, as `write`'s (not new Task objects:
# the other ops run on the tasks it leaves).
APPLY_INIT = ChangePolicy("plansight/apply", whole_list=True)
WRITE = ChangePolicy(
    "plansight/write", whole_list=True, anew=True, person_merges=True, always_updated=True
)
IMPORT = ChangePolicy("plansight/import", whole_list=True, anew=True, person_merges=True)
# `ingest` of an agent's task events (created, updated, ...): ops on the plan as it is.
INGEST_EVENTS = ChangePolicy("plansight/ingest")
# `ingest` of an agent's whole list (TodoWrite, update_plan, write_todos, ...).
INGEST_LIST = ChangePolicy("plansight/ingest", whole_list=True, anew=True, always_updated=True)
# `ingest` of a markdown checklist: a whole list, imported as `import` does.
INGEST_CHECKLIST = ChangePolicy("plansight/ingest", whole_list=True, anew=True)
CLEAR = ChangePolicy("plansight/clear")
RESTORE = ChangePolicy("plansight/restore")
UNDO = ChangePolicy(UNDO_METHOD)
# A forked conversation's session made a copy of the plan it forked (`PlanService.fork`):
# no request of the contract, the hook makes it; the event log names it so.
FORK = ChangePolicy("plansight/fork")


@dataclass(slots=True)
class ChangeCall:
    """One call of a changing request: the facts its policy does not decide."""

    session: str
    origin: Origin
    request: Json  # as the event log holds it
    base_version: int | None = None  # the version its sender saw (None: it says none)
    # A person's stale list asks to be merged (its policy must allow it); "mine": each
    # conflict takes its side (an editor's "Overwrite").
    merge: bool | Literal["mine"] = False
    # The answer reaches no agent (a hook event spooled while the store was busy, applied
    # late): a Kept line in it tells nobody, so nothing counts as told.
    unheard: bool = False
    # What a lenient run repaired, filled in as it runs; said under the progress line.
    notices: list[str] = field(default_factory=list)
