"""The floor: a hand-written asyncio JSON-RPC echo server with `Content-Length` framing.

Every request is answered with its own params as the result. Nothing a JSON-RPC server
over stdio could skip is skipped: it reads stdin through an asyncio pipe reader, decodes
every message and encodes every answer. Not part of the package.
"""

from __future__ import annotations

import asyncio
import json
import sys


async def serve() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    out = sys.stdout.buffer
    while True:
        try:
            header = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return
        length = 0
        for line in header.split(b"\r\n"):
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        message = json.loads(await reader.readexactly(length))
        method = message.get("method")
        if method == "exit":
            return
        if "id" not in message:
            continue
        result = {"capabilities": {}} if method == "initialize" else message.get("params")
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        out.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        out.flush()


if __name__ == "__main__":
    asyncio.run(serve())
