"""An editor watching the person's project: a real `plansight serve` with the LSP test
client of tests/e2e, in the person's environment, so it opens the store the agents'
hooks write to."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from agent_home import AgentHome

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from plansight_client import PlansightClient, start_client, stop_client


@asynccontextmanager
async def watching_editor(person: AgentHome) -> AsyncIterator[PlansightClient]:
    """An editor open on the project (its default store, as the hooks find it)."""
    client = await start_client(None, root=person.project, cwd=person.project, env=person.env())
    try:
        yield client
    finally:
        await stop_client(client)


def contents(change: dict[str, Any]) -> set[str]:
    """The tasks a pushed `plansight/didChange` draws."""
    return {task["content"] for phase in change.get("phases", []) for task in phase["tasks"]}
