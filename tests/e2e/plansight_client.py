"""A pytest-lsp client for a real `plansight serve` over stdio."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter
from pytest_lsp import LanguageClient
from pytest_lsp.client import register_lsp_features

DID_CHANGE = "plansight/didChange"
SERVER = [sys.executable, "-m", "plansight", "serve"]


class PlansightClient(LanguageClient):
    """A test client that keeps every `plansight/didChange` it is sent."""

    def __init__(self) -> None:
        # With lsprotocol's converter, custom results and params stay plain dicts.
        super().__init__(converter_factory=get_converter)
        self.changes: list[dict[str, Any]] = []
        self.initialize_result: types.InitializeResult | None = None
        self._arrived = asyncio.Event()

        @self.feature(DID_CHANGE)
        def did_change(client: PlansightClient, params: Any) -> None:
            client.changes.append(params)
            client._arrived.set()

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self.protocol.send_request_async(method, {} if params is None else params)

    async def change_where(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 60.0
    ) -> dict[str, Any]:
        """The first pushed change satisfying `predicate`, waiting for it if need be
        (`timeout`: a guard against a hang on a loaded machine, not a speed check)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        seen = 0
        while True:
            for change in self.changes[seen:]:
                if predicate(change):
                    return change
            seen = len(self.changes)
            self._arrived.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"no matching didChange; got {self.changes!r}")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), remaining)


async def start_client(
    db: Path | str | None,
    *,
    options: dict[str, Any] | None = None,
    root: Path | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    server: list[str] | None = None,
    deltas: bool = False,
    answers: bool = False,
) -> PlansightClient:
    """A client of a real server; `deltas`: it asks for change deltas (docs/protocol.md);
    `answers`: in the answers of its changing requests too."""
    plansight = {"changeDeltas": True} if deltas else {}
    if answers:
        plansight["changeDeltaAnswers"] = True
    client = PlansightClient()
    register_lsp_features(client)
    command = (server or SERVER) + (["--db", str(db)] if db is not None else [])
    await client.start_io(*command, cwd=str(cwd) if cwd else None, env=env)
    client.initialize_result = await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                experimental={"plansight": plansight} if plansight else None
            ),
            root_uri=root.as_uri() if root else None,
            initialization_options={"plansight": options} if options is not None else None,
        )
    )
    return client


async def stop_client(client: PlansightClient) -> None:
    await client.shutdown_session()
    await client.stop()
