"""The plan each agent last saw, kept in memory: steering's base without a history read.

An agent's stale whole list is merged from the plan at its base version (`core.steering`).
Read back from the history, that plan costs a JSON parse and a Task per task on every
merged request (the most of the merge's cost on a 200-task plan). The plan at a version
never changes once committed, so the service keeps, per session, the plan its own
committed full replacement left (where the agent's base then moved), and uses it when the
agent's base is still that version.

Kept only while it is surely the plan the history holds: its version is the agent's base
the store reads in the same transaction (another process's agent change, or a `context`
answer, moves the base and the entry is passed over), the history still lists it (else
the store has no base either), the id counter has not gone back and every task both plans
hold was created at the same time (a session pruned and made anew under the same name).

Its Task objects are shared with the store's working plan until the session changes
otherwise: before any other change, the entry takes its own copies (a person's `done`
changes a task in place). So every change of a store handle goes through the one service
that holds these (each face makes one service per store it opens). A base is only read: the replacement copies each task it
carries over, and the merge builds its result from the list's and the current tasks.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from plansight.core.model import Phase, Plan, Task
from plansight.store.rules import HISTORY_DEPTH

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

    def keep(self, plan: Plan) -> None:
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
