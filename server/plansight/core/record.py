"""A plan as plain JSON data, every field kept: what the history holds for each version,
so a restore gives back exactly that plan."""

from __future__ import annotations

from typing import Any

from plansight.core.model import TASK_FIELDS, Phase, Plan, Task

Record = dict[str, Any]
_FIELD_SET = frozenset(TASK_FIELDS)
_FIELD_COUNT = len(TASK_FIELDS)
# The plan of version 0: nothing yet.
EMPTY_RECORD: Record = {"title": None, "nextId": 1, "phases": []}


def plan_record(plan: Plan) -> Record:
    return {
        "title": plan.title,
        "nextId": plan.next_id,
        "phases": [
            {
                "name": phase.name,
                "tasks": [{name: getattr(t, name) for name in TASK_FIELDS} for t in phase.tasks],
            }
            for phase in plan.phases
        ],
    }


def plan_from_record(session: str, record: Record) -> Plan:
    """The plan a record holds; a field a record lacks (written before the field
    existed) takes the field's default."""
    phases = [
        Phase(
            phase["name"],
            [
                # A record of every field as it is now (the common case) needs no filter.
                Task(**task)
                if len(task) == _FIELD_COUNT and task.keys() == _FIELD_SET
                else Task(**{k: v for k, v in task.items() if k in _FIELD_SET})
                for task in phase["tasks"]
            ],
        )
        for phase in record["phases"]
    ]
    return Plan(session, phases=phases, next_id=record["nextId"], title=record["title"])
