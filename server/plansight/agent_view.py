"""The agent's view of each session: everything about its base and what it is told.

**The base** (steering, v3) is the version of the plan the session's agent last saw
(`sessions.agent_base`): an agent's stale whole list is merged from the plan at it
(`core.steering`), and a person's stale list from the version it names (`baseVersion`).
The base moves to the version an answer leaves when that answer shows the agent the plan:
- its own committed change;
- any answer to its whole list (`ChangePolicy.whole_list`), even with nothing
  committed (a list sent as the plan already is), once a merge took it or none was needed;
- an answer that tells it what a person changed: the Kept line (`told_line`), which also
  counts every change so far as told;
- a `context` round, and an MCP answer that carries a person's changes (the store moves
  it in those reads' own transaction: `TodoStore.context_round`, `unseen_changes`).
It does not move for a person's change, a refused request, a read, or an answer no agent
reads (a spooled hook event: `ChangeCall.unheard`), whose Kept line is told again later.
`AgentView.answered` decides it for a change; the store only writes what it is told
(`SessionEdit.moves_base` and `.cursor`).

**The plan at the base**, cached in memory (`AgentBases`): read back from the history, it
costs a JSON parse and a Task per task on every merged request (the most of the merge's
cost on a 200-task plan). The plan at a version never changes once committed, so the
service keeps, per session, the plan its own committed full replacement left (where the
agent's base then moved), and uses it when the agent's base is still that version.

Kept only while it is surely the plan the history holds: its version is the agent's base
the store reads in the same transaction (another process's agent change, or a `context`
answer, moves the base and the entry is passed over), the history still lists it (else
the store has no base either), the id counter has not gone back and every task both plans
hold was created at the same time (a session pruned and made anew under the same name).

Its Task objects are shared with the store's working plan until the session changes
otherwise: before any other change, the entry takes its own copies (a person's `done`
changes a task in place). So every change of a store handle goes through the one service
that holds these (each face makes one service per store it opens). A base is only read:
the replacement copies each task it carries over, and the merge builds its result from
the list's and the current tasks.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from plansight.core.errors import VersionConflict
from plansight.core.model import Phase, Plan, Task
from plansight.core.record import plan_from_record
from plansight.core.steering import Steering
from plansight.policies import ChangeCall, ChangePolicy
from plansight.store.base import SeenCursor, SessionEdit, TodoStore
from plansight.store.rules import HISTORY_DEPTH, agents_own_change

# Sessions kept: the agents at work on one store at once, with room to spare.
CACHED_BASES = 64


@dataclass(slots=True)
class _Base:
    version: int
    title: str | None
    next_id: int
    phases: list[tuple[str, list[Task]]]
    shared: bool  # its tasks are the store's working plan's: copy before they may change


class AgentBases:
    """Per session, the plan at the version its agent last saw, when this service made it."""

    def __init__(self, size: int = CACHED_BASES) -> None:
        self._bases: OrderedDict[str, _Base] = OrderedDict()
        self._size = size

    def remember(self, plan: Plan) -> None:
        """`plan` is now committed at `plan.version`, and the agent's base moved there."""
        self._bases[plan.session] = _Base(
            plan.version,
            plan.title,
            plan.next_id,
            [(phase.name, list(phase.tasks)) for phase in plan.phases],
            shared=True,
        )
        self._bases.move_to_end(plan.session)
        while len(self._bases) > self._size:
            self._bases.popitem(last=False)

    def before_change(self, session: str) -> None:
        """The session's working plan may change in place: the entry keeps its own tasks."""
        base = self._bases.get(session)
        if base is not None and base.shared:
            base.phases = [(name, [task.copy() for task in tasks]) for name, tasks in base.phases]
            base.shared = False

    def forget(self, session: str) -> None:
        self._bases.pop(session, None)

    def base(self, current: Plan, agent_base: int) -> Plan | None:
        """The plan at `agent_base` as the history would give it back (`plan_from_record`:
        version 0, no time, the agent as creator), or None: not kept, or no longer sure."""
        base = self._bases.get(current.session)
        if base is None or base.version != agent_base:
            return None
        if agent_base < current.version - HISTORY_DEPTH or base.next_id > current.next_id:
            self.forget(current.session)
            return None
        created = {task.id: task.created_at for task in current.tasks()}
        for _, tasks in base.phases:
            for task in tasks:
                if created.get(task.id, task.created_at) != task.created_at:
                    self.forget(current.session)
                    return None
        self.before_change(current.session)  # the merge shares its tasks with nothing else
        self._bases.move_to_end(current.session)
        phases = [Phase(name, list(tasks)) for name, tasks in base.phases]
        return Plan(current.session, phases=phases, next_id=base.next_id, title=base.title)


def told_line(steering: Steering | None) -> str | None:
    """What an answer tells the agent of a person's changes: the Kept line of a merge of
    its list (a person's own merge tells no agent)."""
    return steering.kept_line if steering is not None and steering.agent else None


class AgentView:
    """For one service: the base each change is merged from, when an answer moves the
    agent's base, and the plans at the bases it keeps (`AgentBases`)."""

    def __init__(self, store: TodoStore) -> None:
        self._store = store
        self._bases = AgentBases()

    def steering(
        self, edit: SessionEdit, policy: ChangePolicy, call: ChangeCall
    ) -> Steering | None:
        """How the change's whole list is merged (None: it is not, as in v2): a person's
        stale list that asks to be (`merge`), from the version it names; an agent's whole
        list, from its base. A stale version otherwise is a conflict."""
        plan = edit.plan
        base_version = call.base_version
        if base_version is not None and base_version != plan.version:
            merges = policy.person_merges and call.merge and call.origin == "user"
            if not (merges and base_version < plan.version):
                raise VersionConflict(plan.version)
            return self._stale_edit(plan, base_version, mine_wins=call.merge == "mine")
        if policy.whole_list and agents_own_change(call.origin):
            return self._agent_steering(edit)
        return None

    def before_run(self, session: str, policy: ChangePolicy, steering: Steering | None) -> None:
        """The change is about to run: unless it only makes new tasks, the tasks of the
        session's working plan may change in place, and the kept base takes its own."""
        if not (policy.anew and steering is None):
            self._bases.before_change(session)

    def answered(
        self,
        edit: SessionEdit,
        policy: ChangePolicy,
        call: ChangeCall,
        steering: Steering | None,
        committed: bool,
    ) -> None:
        """Say on the edit what its answer does to the agent's view (the store writes it):
        whether its base moves to the version the edit leaves, and its seen cursor."""
        if not agents_own_change(call.origin):
            return  # a person's change moves neither: the agent is told it at its next look
        # The answer tells it the Kept line (`told_line`, not formatted twice).
        told = steering is not None and steering.agent and bool(steering.kept)
        if told and call.unheard:
            return  # a Kept line nobody reads: the person's changes are told again later
        if told:
            edit.moves_base, edit.cursor = True, SeenCursor.TOLD
            return
        # Any answer to its whole list shows it the version it leaves.
        seen = policy.whole_list and not call.unheard and (steering is None or steering.taken)
        edit.moves_base = seen or committed
        edit.cursor = SeenCursor.OWN_CHANGE if committed else SeenCursor.RESTART

    def after_commit(self, plan: Plan, policy: ChangePolicy, edit: SessionEdit) -> None:
        """Keep the plan an agent's whole list left when its base moved there: the next
        merge of its list then reads no history."""
        if policy.whole_list and edit.moves_base:
            self._bases.remember(plan)

    def _agent_steering(self, edit: SessionEdit) -> Steering | None:
        """An agent's whole list is merged from the plan at its base. None, v2 exactly and
        no history read, when it saw the current version and no task is a person's (the
        fast path)."""
        plan = edit.plan
        if edit.agent_base >= plan.version:
            if not any(task.created_by == "user" for task in plan.tasks()):
                return None
            return Steering(None)
        if edit.agent_base <= 0:
            return Steering(Plan(plan.session))  # it saw nothing: the empty plan
        kept = self._bases.base(plan, edit.agent_base)
        if kept is not None:
            return Steering(kept)
        record = self._store.snapshot(plan.session, edit.agent_base)
        if record is None:
            # The history no longer keeps it: the current plan stands for the base, and a
            # person's tasks are still never removed (rule 4).
            return Steering(None)
        return Steering(plan_from_record(plan.session, record))

    def _stale_edit(self, plan: Plan, base_version: int, mine_wins: bool) -> Steering:
        """A person's stale whole list (`merge: true`, or `"mine"`: `mine_wins`): merged
        from the plan at `base_version`, or refused when the history no longer lists it."""
        record = self._store.snapshot(plan.session, base_version) if base_version > 0 else None
        if record is None:
            raise VersionConflict(plan.version)
        base = plan_from_record(plan.session, record)
        return Steering(base, agent=False, mine_wins=mine_wins)
