"""Answers that carry the change (docs/protocol.md, "Change deltas"): a client that asks
for `changeDeltaAnswers` gets the answer of each changing request as the ApplyResult's
members and the plan's delta from the version it was sent last. Laying each answer (and
each push) on the state it held gives exactly `plansight/get`'s state, field by field,
through adds, an answer that changed nothing, a dropped answer and push (a gap), undo, a
person's three-way merged `write`, restore, a change of another process, and clear. A
client that does not ask gets today's whole answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from plansight_client import PlansightClient, start_client, stop_client
from test_change_deltas import apply_delta, cli

from plansight.protocol.models import ApplyResult, ApplyResultDelta, DidChangeDelta
from plansight.wire import STATE_KEYS

Json = dict[str, Any]
SESSION = "a"
RESULT_MEMBERS = ["summary", "errors", "isError", "completedTasks", "removedTasks", "changed"]


class Mirror:
    """What an editor that asked for delta answers holds of one session: each answer laid
    on it as it comes, then the pushes received meanwhile (as docs/protocol.md says a
    client does; `gaps`: a delta it could not lay on what it held, read whole instead)."""

    def __init__(self, client: PlansightClient) -> None:
        self.client = client
        self.state: Json | None = None
        self.pushes_read = 0
        self.gaps = 0
        self.stale = 0  # deltas at a version already held: no-ops

    async def lay(self, message: Json) -> None:
        if "baseVersion" not in message:
            self.state = {key: message[key] for key in STATE_KEYS}
            return
        held = self.state
        if held is not None and held["version"] >= message["version"]:
            self.stale += 1
            return
        if held is None or held["version"] != message["baseVersion"]:
            self.gaps += 1
            self.state = await self.client.call("plansight/get", {"session": SESSION})
            return
        self.state = apply_delta(held, message)

    async def answer(self, result: Json, *, drop: bool = False) -> Json:
        """Takes a change's answer (with `drop`, loses it and every push so far), then the
        pushes received so far, and checks what it holds against `get`."""
        if "baseVersion" in result:
            ApplyResultDelta.model_validate(result)
            assert list(result)[7:13] == RESULT_MEMBERS  # after the state's scalars
        else:
            ApplyResult.model_validate(result)
        pushes = [c for c in self.client.changes if c["session"] == SESSION]
        if drop:
            self.pushes_read = len(pushes)
            return result
        await self.lay(result)
        for push in pushes[self.pushes_read :]:
            DidChangeDelta.model_validate(push) if "baseVersion" in push else None
            await self.lay(push)
        self.pushes_read = len(pushes)
        got = await self.client.call("plansight/get", {"session": SESSION})
        assert self.state is not None and got["version"] == self.state["version"]
        for phase_held, phase_got in zip(self.state["phases"], got["phases"], strict=True):
            assert phase_held == phase_got  # a readable diff: one phase at a time
        assert self.state == got
        return result


async def change(client: PlansightClient, method: str, **params: Any) -> Json:
    result: Json = await client.call(method, {"session": SESSION, **params})
    return result


async def apply(client: PlansightClient, *ops: Json, origin: str = "agent") -> Json:
    result = await change(client, "plansight/apply", ops=list(ops), origin=origin)
    assert result["changed"] and not result["errors"], result["summary"]
    return result


def todos(state: Json) -> list[Json]:
    """The state's tasks as a `write` carries them."""
    return [
        {"content": t["content"], "activeForm": t["activeForm"], "status": t["status"]}
        | {"phase": phase["name"]}
        for phase in state["phases"]
        for t in phase["tasks"]
    ]


@pytest.mark.both_backends
async def test_each_answer_laid_on_the_state_held_is_the_state_at_its_version(
    db: Path | str,
) -> None:
    client = await start_client(db, deltas=True, answers=True)
    try:
        experimental = client.initialize_result.capabilities.experimental  # type: ignore[union-attr]
        assert experimental["plansight"]["changeDeltas"] is True
        assert experimental["plansight"]["changeDeltaAnswers"] is True
        mirror = Mirror(client)
        first = await apply(
            client, {"op": "init", "list": [{"phase": "Plan", "items": ["a", "b", "c"]}]}
        )
        assert "baseVersion" not in await mirror.answer(first)  # new to this client: whole

        added = await mirror.answer(await apply(client, {"op": "append", "items": ["d"]}))
        assert added["baseVersion"] == first["version"]
        assert [t["content"] for t in added["tasks"]] == ["d"]  # only what was added
        assert added["summary"] and added["changed"] is True and added["isError"] is False

        # Its push carries the same delta: laid after the answer, a no-op.
        push = await client.change_where(lambda c: c["version"] == added["version"])
        assert (push["baseVersion"], push["tasks"]) == (added["baseVersion"], added["tasks"])
        assert mirror.stale >= 1

        nothing = await change(
            client, "plansight/apply", ops=[{"op": "update", "task": "zz", "content": "x"}]
        )
        await mirror.answer(nothing)
        assert nothing["changed"] is False and nothing["isError"] is True
        assert nothing["baseVersion"] == nothing["version"] == added["version"]
        assert nothing["tasks"] == [] and nothing["removedIds"] == []
        assert all("taskIds" not in phase for phase in nothing["phases"])

        done = await mirror.answer(await apply(client, {"op": "done", "task": "a"}))
        assert done["completedTasks"] == [{"id": "t1", "content": "a", "phase": "Plan"}]
        undone = await mirror.answer(await change(client, "plansight/undo", origin="user"))
        assert undone["baseVersion"] == done["version"] and undone["changed"]

        # A person's stale list, merged three ways with the agent's change since.
        shown = await client.call("plansight/get", {"session": SESSION})
        await mirror.answer(await apply(client, {"op": "start", "task": "b"}))
        mine = todos(shown)
        mine[2]["status"] = "completed"
        merged = await change(
            client,
            "plansight/write",
            todos=[*mine, {"content": "e", "activeForm": "Doing e", "status": "pending"}],
            origin="user",
            baseVersion=shown["version"],
            merge=True,
        )
        assert merged["version"] == shown["version"] + 2 and merged["changed"]
        await mirror.answer(merged)
        statuses = {t["content"]: t["status"] for t in merged["tasks"]}
        assert statuses.get("c") == "completed" and statuses.get("e") == "pending"

        restored = await change(
            client, "plansight/restore", version=added["version"], origin="user"
        )
        await mirror.answer(restored)

        # Another process (the CLI, on the same store); then this client's own change,
        # whether or not the other's push reached it first.
        other = await asyncio.to_thread(
            cli, db, "apply", "--session", SESSION, "--ops", json.dumps([{"op": "done"}])
        )
        assert other.returncode == 0, other.stderr
        await mirror.answer(await apply(client, {"op": "append", "items": ["f"]}))

        cleared = await mirror.answer(await change(client, "plansight/clear"))
        assert cleared["phases"] == [] and len(cleared["removedIds"]) > 0
        assert mirror.gaps <= 1  # at most the other process's change, seen versions later
    finally:
        await stop_client(client)


@pytest.mark.both_backends
async def test_a_dropped_answer_shows_a_base_version_not_held(db: Path | str) -> None:
    client = await start_client(db, deltas=True, answers=True)
    try:
        mirror = Mirror(client)
        made = await apply(client, {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]})
        await mirror.answer(made)
        done = await apply(client, {"op": "done", "task": "a"})
        await client.change_where(lambda c: c["version"] == done["version"])
        await mirror.answer(done, drop=True)  # its answer and its push both lost
        after = await mirror.answer(
            await apply(client, {"op": "update", "task": "b", "content": "B"})
        )
        assert after["baseVersion"] == done["version"] and mirror.gaps == 1  # read whole
        await mirror.answer(await apply(client, {"op": "append", "items": ["c"]}))
        assert mirror.gaps == 1  # deltas laid again from the state read
    finally:
        await stop_client(client)


async def test_a_client_that_does_not_ask_gets_whole_answers(db: Path) -> None:
    plain, pushes_only = await start_client(db), await start_client(db, deltas=True)
    try:
        experimental = pushes_only.initialize_result.capabilities.experimental  # type: ignore[union-attr]
        assert "changeDeltaAnswers" not in experimental["plansight"]
        for session, client in (("plain", plain), ("pushes", pushes_only)):
            made = await client.call(
                "plansight/apply",
                {"session": session, "ops": [{"op": "init", "list": [{"items": ["a", "b"]}]}]},
            )
            for result in (made, await client.call("plansight/clear", {"session": session})):
                got = await client.call("plansight/get", {"session": session})
                # Today's ApplyResult: the whole state, in its order, then its members.
                assert list(result) == [*STATE_KEYS, *RESULT_MEMBERS]
                assert {key: result[key] for key in STATE_KEYS} == got
    finally:
        await stop_client(plain)
        await stop_client(pushes_only)
