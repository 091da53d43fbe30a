"""Change deltas (docs/protocol.md, "Change deltas") through a real server: a client that
asks gets each `didChange` as what changed, and laying each delta on the state it held
gives exactly `plansight/get`'s state at that version, field by field, through adds,
updates, removes, moves, phase renames and reorders, undo, restore, clear, a person's
three-way merged import and a change of another process; a client that misses a push
sees a `baseVersion` it does not hold and reads the whole state. A client that does not
ask keeps today's whole states."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from plansight_client import PlansightClient, start_client, stop_client

from plansight.protocol.models import DidChangeDelta, DidChangeParams
from plansight.wire import STATE_KEYS

Json = dict[str, Any]
SESSION = "d"


class Mirror:
    """What an editor that asked for deltas holds of one session, built from the pushes
    as docs/protocol.md says a client applies them (`gaps`: the pushes it could not lay
    on what it held, and read the whole state for instead)."""

    def __init__(self, client: PlansightClient) -> None:
        self.client = client
        self.state: Json | None = None
        self.read = 0  # pushes taken so far
        self.gaps = 0
        self.deltas: list[Json] = []

    async def take(self, version: int, *, drop: bool = False) -> Json:
        """Takes the pushes up to the one of `version` (with `drop`, loses that one)."""
        await self.client.change_where(
            lambda c: c["session"] == SESSION and c["version"] == version
        )
        pushes = [c for c in self.client.changes if c["session"] == SESSION]
        for push in pushes[self.read :]:
            self.read += 1
            if drop and push["version"] == version:
                continue
            await self.lay(push)
        return pushes[-1]

    async def lay(self, push: Json) -> None:
        if "baseVersion" not in push:
            DidChangeParams.model_validate(push)
            self.state = {key: push[key] for key in STATE_KEYS}
            return
        DidChangeDelta.model_validate(push)
        self.deltas.append(push)
        if self.state is None or self.state["version"] != push["baseVersion"]:
            self.gaps += 1  # never laid on another version: the whole state instead
            self.state = await self.client.call("plansight/get", {"session": SESSION})
            assert self.state is not None and self.state["version"] >= push["version"]
            return
        self.state = apply_delta(self.state, push)


def apply_delta(held: Json, delta: Json) -> Json:
    """The client's side of the contract: replace the listed tasks, drop `removedIds` and
    the phases not listed, order each phase by its `taskIds` where given, take the
    scalars."""
    tasks = {task["id"]: task for phase in held["phases"] for task in phase["tasks"]}
    ids_held = {phase["name"]: [task["id"] for task in phase["tasks"]] for phase in held["phases"]}
    tasks.update((task["id"], task) for task in delta["tasks"])
    for task_id in delta["removedIds"]:
        del tasks[task_id]
    phases = [
        {
            "name": phase["name"],
            "tasks": [tasks[i] for i in phase.get("taskIds", ids_held.get(phase["name"], []))],
            "progress": phase["progress"],
        }
        for phase in delta["phases"]
    ]
    return {key: phases if key == "phases" else delta[key] for key in STATE_KEYS}


async def check(mirror: Mirror, result: Json, *, drop: bool = False) -> Json:
    """The push of the change `result` answered, laid on what the mirror held, equals
    `get` at that version, field by field."""
    push = await mirror.take(result["version"], drop=drop)
    got = await mirror.client.call("plansight/get", {"session": SESSION})
    assert got["version"] == result["version"]
    assert mirror.state is not None
    if not drop:
        assert list(mirror.state) == list(got)
        for phase_held, phase_got in zip(mirror.state["phases"], got["phases"], strict=True):
            assert phase_held == phase_got  # a readable diff: one phase at a time
        assert mirror.state == got
    return push


async def apply(client: PlansightClient, *ops: Json, origin: str = "agent") -> Json:
    result: Json = await client.call(
        "plansight/apply", {"session": SESSION, "ops": list(ops), "origin": origin}
    )
    assert result["changed"] and not result["errors"], result["summary"]
    return result


def cli(db: Path | str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.both_backends
async def test_each_delta_laid_on_the_state_held_is_the_state_at_its_version(
    db: Path | str,
) -> None:
    client = await start_client(db, deltas=True)
    try:
        experimental = client.initialize_result.capabilities.experimental  # type: ignore[union-attr]
        assert experimental["plansight"]["changeDeltas"] is True
        mirror = Mirror(client)
        first = await apply(
            client,
            {"op": "init", "list": [{"phase": "Plan", "items": ["a", "b", "c"]}]},
            {"op": "append", "phase": "Build", "items": ["d"]},
        )
        assert "baseVersion" not in await check(mirror, first)  # a session new to it: whole

        added = await apply(
            client, {"op": "append", "phase": "Build", "items": ["d1", "d2"], "parent": "d"}
        )
        push = await check(mirror, added)
        assert push["baseVersion"] == first["version"]
        assert [t["content"] for t in push["tasks"]] == ["d1", "d2"]  # only what was added
        assert [p.get("taskIds") for p in push["phases"]] == [None, ["t4", "t5", "t6"]]

        updated = await apply(client, {"op": "update", "task": "b", "content": "b!"})
        push = await check(mirror, updated)
        assert [t["content"] for t in push["tasks"]] == ["b!"]  # only what changed
        assert push["removedIds"] == [] and all("taskIds" not in p for p in push["phases"])

        await check(mirror, await apply(client, {"op": "done", "task": "a"}))
        moved = await apply(
            client,
            {"op": "move", "task": "c", "phase": "Build"},
            {"op": "move", "task": "d2", "parent": None},
            {"op": "move", "task": "a", "after": "b!"},
        )
        await check(mirror, moved)
        removed = await apply(client, {"op": "rm", "task": "b!"})
        push = await check(mirror, removed)
        assert push["removedIds"] == ["t2"]

        # A person's document: the phases renamed and reordered.
        text = (await client.call("plansight/export", {"session": SESSION}))["text"]
        plan, build = text.split("\n## Build\n")
        edited = "## Ship\n" + build.rstrip("\n") + "\n\n" + plan.replace("## Plan", "## Design")
        imported = await client.call(
            "plansight/import",
            {
                "session": SESSION,
                "origin": "user",
                "markdown": edited,
                "baseVersion": removed["version"],
            },
        )
        push = await check(mirror, imported)
        assert [p["name"] for p in push["phases"]] == ["Ship", "Design"]

        undone = await client.call("plansight/undo", {"session": SESSION, "origin": "user"})
        await check(mirror, undone)
        restored = await client.call(
            "plansight/restore",
            {"session": SESSION, "version": updated["version"], "origin": "user"},
        )
        await check(mirror, restored)

        # A person's stale edit, merged three ways with the agent's change since.
        shown = restored["version"]
        text = (await client.call("plansight/export", {"session": SESSION}))["text"]
        await check(mirror, await apply(client, {"op": "start", "task": "c"}))
        merged = await client.call(
            "plansight/import",
            {
                "session": SESSION,
                "origin": "user",
                "baseVersion": shown,
                "merge": True,
                "markdown": text.replace("- [ ] d1", "- [x] d1") + "- [ ] e\n",
            },
        )
        assert merged["version"] == shown + 2
        await check(mirror, merged)

        # Another process (the CLI, on the same store): pushed by the watcher.
        done = await asyncio.to_thread(
            cli, db, "apply", "--session", SESSION, "--ops", json.dumps([{"op": "done"}])
        )
        assert done.returncode == 0, done.stderr
        push = await check(mirror, {"version": merged["version"] + 1})
        assert push["baseVersion"] == merged["version"] and push["origin"] == "agent"

        cleared = await client.call("plansight/clear", {"session": SESSION})
        push = await check(mirror, cleared)
        assert push["phases"] == [] and len(push["removedIds"]) > 0

        assert mirror.gaps == 0 and len(mirror.deltas) == cleared["version"] - 1  # all deltas
    finally:
        await stop_client(client)


async def test_a_missed_push_shows_a_base_version_not_held(db: Path) -> None:
    client = await start_client(db, deltas=True)
    try:
        mirror = Mirror(client)
        made = await apply(client, {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]})
        await check(mirror, made)
        await check(mirror, await apply(client, {"op": "done", "task": "a"}), drop=True)
        after = await apply(client, {"op": "update", "task": "b", "content": "B"})
        push = await check(mirror, after)  # read whole: the mirror equals `get`
        assert push["baseVersion"] == made["version"] + 1 and mirror.gaps == 1
        await check(mirror, await apply(client, {"op": "append", "items": ["c"]}))
        assert mirror.gaps == 1  # deltas laid again from the state read
    finally:
        await stop_client(client)


async def test_a_client_that_does_not_ask_gets_whole_states(db: Path) -> None:
    whole, opted = await start_client(db), await start_client(db, deltas=True)
    try:
        experimental = whole.initialize_result.capabilities.experimental  # type: ignore[union-attr]
        assert "changeDeltas" not in experimental["plansight"]
        await apply(whole, {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]})
        await apply(whole, {"op": "done", "task": "a"})
        # The other server's changes reach this one through its store watcher: once it has
        # pushed them (whole: the session is new to it), its own change comes as a delta.
        await opted.change_where(lambda c: c["version"] == 2)
        started = await apply(opted, {"op": "update", "task": "b", "content": "B"})
        change = await whole.change_where(lambda c: c["version"] == started["version"])
        await opted.change_where(lambda c: c["version"] == started["version"])
        got = await whole.call("plansight/get", {"session": SESSION})
        members = ["origin", "completedTasks", "removedTasks"]
        for push in whole.changes:
            assert list(push) == [*STATE_KEYS, *members]  # today's whole state, in its order
        assert {key: change[key] for key in STATE_KEYS} == got
        assert [c["version"] for c in whole.changes] == [1, 2, 3]
        # The other server's changes may come as one push (the newest), whole.
        assert "baseVersion" not in opted.changes[0] and "baseVersion" in opted.changes[-1]
    finally:
        await stop_client(whole)
        await stop_client(opted)
