"""What `plansight serve` loads before it answers `initialize`, and what right after."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# In a fresh interpreter: the server is built and sent `initialize` as the transport
# would send it; the modules loaded are listed before and after the work that follows
# the answer.
PROBE = """
import asyncio, json, sys
from plansight.lsp import transport
from plansight.lsp.pygls_private import request_runner
from plansight.lsp.server import build_server
from plansight.protocol.methods import METHODS

class Sink:
    def __init__(self): self.data = []
    def write(self, data): self.data.append(data)

HEAVY = ("plansight.service", "plansight.protocol.requests", "plansight.core.ops", "pydantic")

async def main():
    server = build_server(sys.argv[1])
    sink = Sink()
    server.protocol.set_writer(sink)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}}}
    run = request_runner(server.protocol)
    transport._dispatch(server.protocol, json.dumps(init).encode(), frozenset(METHODS), run)
    answered = b"".join(sink.data)
    before = [name for name in HEAVY if name in sys.modules]
    transport.run_after(server.after_answer)
    after = [name for name in HEAVY if name in sys.modules]
    print(json.dumps({"answered": b'"result"' in answered, "before": before, "after": after,
                      "service": server.service is not None}))
    server.watcher.cancel()

asyncio.run(main())
"""


def test_initialize_is_answered_before_the_service_and_the_request_models_load(
    tmp_path: Path,
) -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "plans.sqlite3")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    seen = json.loads(out)
    assert seen["answered"]
    assert seen["before"] == []
    assert seen["after"] == [
        "plansight.service",
        "plansight.protocol.requests",
        "plansight.core.ops",
        "pydantic",
    ]
    assert seen["service"]
