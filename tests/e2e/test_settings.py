"""Settings from initializationOptions and workspace/didChangeConfiguration."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from plansight_client import start_client, stop_client


async def test_limits_come_from_initialization_options(db: Path) -> None:
    client = await start_client(db, options={"maxTasks": 2, "autoStart": False, "noSuchKey": 1})
    try:
        result = await client.call(
            "plansight/apply",
            {
                "ops": [
                    {"op": "append", "phase": "A", "items": ["one", "two", "three"]},
                    {"op": "append", "phase": "A", "items": ["one", "two"]},
                ]
            },
        )
        assert result["errors"] == ["Too many tasks (3, the limit is 2)"]
        assert result["progress"]["total"] == 2 and result["current"] is None
        assert client.messages == []  # unknown keys are ignored quietly
    finally:
        await stop_client(client)


async def test_bad_settings_are_refused_with_a_message_and_the_old_value_kept(db: Path) -> None:
    client = await start_client(db, options={"maxTasks": 3})
    try:
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"plansight": {"maxTasks": "lots", "autoStart": False}}
            )
        )
        result = await client.call(
            "plansight/apply",
            {"ops": [{"op": "append", "phase": "A", "items": ["1", "2", "3", "4"]}]},
        )
        assert result["errors"] == ["Too many tasks (4, the limit is 3)"]
        assert len(client.messages) == 1 and "maxTasks" in client.messages[0].message
        result = await client.call(
            "plansight/apply", {"ops": [{"op": "append", "phase": "A", "items": ["1"]}]}
        )
        assert result["current"] is None  # autoStart: False was accepted
    finally:
        await stop_client(client)
