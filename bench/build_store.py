"""Fills a store for the benchmark, in-process (no pipes): many sessions of many tasks,
and one session with a long history. Run with the checkout to measure on its PYTHONPATH,
so each version writes the store its own way.

    python bench/build_store.py STORE SESSIONS TASKS CHANGES [WORKSPACE]

SESSIONS sessions `big000`... of TASKS tasks each; `long`, a 20-task session changed
CHANGES times, and `short`, the same changed 20 times. STORE is a SQLite file or a
`postgresql://` URL (then the sessions go into WORKSPACE).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from plansight.core.settings import Settings
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import open_store
from workload import plan_ops


def apply(service: PlanService, session: str, ops: list[dict[str, Any]]) -> None:
    request = {"session": session, "ops": ops}
    service.apply(ApplyParams.validate(request), request)


def main(argv: list[str]) -> None:
    sessions, tasks = int(argv[1]), int(argv[2])
    store = open_store(argv[0], workspace=argv[4] if len(argv) > 4 else None)
    service = PlanService(store, Settings.validate({"maxTasks": 5000}))
    for i in range(sessions):
        apply(service, f"big{i:03}", plan_ops(tasks, 20))
    for session, changes in (("long", int(argv[3])), ("short", 20)):
        apply(service, session, plan_ops(20, 5))
        for i in range(changes):
            apply(service, session, [{"op": "start", "id": f"t{1 + i % 2}"}])
    service.store.close()


if __name__ == "__main__":
    main(sys.argv[1:])
