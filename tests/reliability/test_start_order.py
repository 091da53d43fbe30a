"""`initialize` is answered before the service and the request models are loaded; what a
client sends right behind it still finds the settings applied and the service ready."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reliability_wire import frame


def message(msg_id: int | None, method: str, params: Any) -> bytes:
    payload: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if msg_id is not None:
        payload["id"] = msg_id
    return frame(json.dumps(payload).encode())


def test_requests_sent_with_initialize_see_its_settings(spawn: Any, tmp_path: Path) -> None:
    client = spawn(tmp_path / "plans.sqlite3")
    options = {"plansight": {"maxTasks": 2, "maxPhases": "many"}}
    init = {
        "processId": None,
        "rootUri": None,
        "capabilities": {},
        "initializationOptions": options,
    }
    three = [{"op": "init", "list": [{"phase": "Work", "items": ["One", "Two", "Three"]}]}]
    two = [{"op": "init", "list": [{"phase": "Work", "items": ["One", "Two"]}]}]
    # All in one write: the server reads them together, as a client that does not wait.
    client.send_bytes(
        message(1, "initialize", init)
        + message(None, "initialized", {})
        + message(2, "plansight/apply", {"session": "s", "ops": three})
        + message(3, "plansight/apply", {"session": "s", "ops": two})
        + message(4, "plansight/get", {"session": "s"})
    )
    assert "result" in client.response(1)
    refused = client.response(2)  # maxTasks 2 already applies
    assert refused["result"]["isError"] and not refused["result"]["changed"]
    assert client.response(3)["result"]["version"] == 1
    state = client.response(4)["result"]
    assert [task["content"] for task in state["phases"][0]["tasks"]] == ["One", "Two"]
    warnings = [n for n in client.notifications if n["method"] == "window/showMessage"]
    assert len(warnings) == 1 and "maxPhases" in warnings[0]["params"]["message"]
    assert client.shutdown() == 0
