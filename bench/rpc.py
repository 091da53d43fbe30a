"""A minimal asyncio JSON-RPC client with LSP `Content-Length` framing, over a child's stdio.

The same client measures the floor echo server and Plansight, so whatever it costs is in
both figures. It decodes every message it reads, as an editor's client does.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from typing import Any

Json = dict[str, Any]
OnMessage = Callable[[Json], None]

READ_LIMIT = 64 * 1024 * 1024
DEVNULL = asyncio.subprocess.DEVNULL
# The CPUs spawned servers may run on (empty: any); see `run.py --placement`.
SERVER_CPUS: set[int] = set()
# What every Peer's `initialize` says the client can do (`bench/run.py --deltas`: a client
# that asks for change deltas in pushes and answers, docs/protocol.md).
CLIENT_CAPABILITIES: Json = {}
DELTA_CAPABILITIES: Json = {
    "experimental": {"plansight": {"changeDeltas": True, "changeDeltaAnswers": True}}
}


class Peer:
    """One spawned server, spoken to over its stdin and stdout."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        assert process.stdin is not None and process.stdout is not None
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._next_id = 0
        self._pending: dict[int, OnMessage] = {}
        self._push_waiters: list[OnMessage] = []
        self.pushes = 0  # notifications read (and discarded) so far
        self._reader = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def spawn(
        cls, argv: list[str], env: dict[str, str] | None = None, stderr: int | None = DEVNULL
    ) -> Peer:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env={**os.environ, **(env or {})},
            limit=READ_LIMIT,
        )
        if SERVER_CPUS:
            os.sched_setaffinity(process.pid, SERVER_CPUS)
        return cls(process)

    # ------------------------------------------------------------ sending

    def send(self, method: str, params: Any, on_response: OnMessage | None = None) -> int:
        """Write one request (or a notification when `on_response` is None)."""
        message: Json = {"jsonrpc": "2.0", "method": method, "params": params}
        msg_id = 0
        if on_response is not None:
            self._next_id += 1
            msg_id = message["id"] = self._next_id
            self._pending[msg_id] = on_response
        body = json.dumps(message).encode()
        self._stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        return msg_id

    async def request(self, method: str, params: Any) -> Json:
        """Send a request and wait for its response; returns the whole response message."""
        future: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        self.send(method, params, future.set_result)
        return await future

    async def request_and_push(self, method: str, params: Any) -> Json:
        """A changing request as a client experiences it: done when both the response and
        the `didChange` push that follows it have been read."""
        loop = asyncio.get_running_loop()
        response: asyncio.Future[Json] = loop.create_future()
        push: asyncio.Future[Json] = loop.create_future()
        self._push_waiters.append(push.set_result)
        self.send(method, params, response.set_result)
        message = await response
        if not message.get("result", {}).get("changed"):
            self._push_waiters.remove(push.set_result)  # nothing changed: no push comes
            return message
        await push
        return message

    def next_push(self) -> asyncio.Future[Json]:
        """A future for the next notification read."""
        future: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        self._push_waiters.append(future.set_result)
        return future

    # ------------------------------------------------------------ life cycle

    async def initialize(self, options: Json | None = None) -> Json:
        params: Json = {
            "processId": os.getpid(),
            "rootUri": None,
            "capabilities": dict(CLIENT_CAPABILITIES),
        }
        if options is not None:
            params["initializationOptions"] = options
        response = await self.request("initialize", params)
        self.send("initialized", {})
        return response

    async def close(self, linger: float = 5) -> None:
        """`shutdown` + `exit`, then reap the process (killed after `linger` seconds)."""
        try:
            if self.process.returncode is None:
                await asyncio.wait_for(self.request("shutdown", None), 5)
                self.send("exit", None)
                await self._stdin.drain()
                self._stdin.close()
                await asyncio.wait_for(self.process.wait(), linger)
        except (asyncio.TimeoutError, ConnectionError, BrokenPipeError):
            pass
        finally:
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()
            self._reader.cancel()

    # ------------------------------------------------------------ reading

    async def _read_loop(self) -> None:
        stdout = self._stdout
        while True:
            try:
                header = await stdout.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            length = 0
            for line in header.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            message = json.loads(await stdout.readexactly(length))
            if "method" in message:
                if "id" in message:  # a request from the server: answer it, empty
                    self._answer(message["id"])
                    continue
                self.pushes += 1
                if self._push_waiters:
                    self._push_waiters.pop(0)(message)
                continue
            on_response = self._pending.pop(message.get("id"), None)
            if on_response is not None:
                on_response(message)

    def _answer(self, msg_id: Any) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": None}).encode()
        self._stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
