"""`plansight mcp`: an MCP server over stdio writing to the store the editor watches.

One process serves one client (stdio), so one session per process: the one it is told
(`--session`, `PLANSIGHT_SESSION`), else the same client's list written to in the last few
minutes that no live server holds (see `session.py`), else one named after the client and
the start time.
No network listener.

An agent waits for its servers' start before its first turn, so this module imports
nothing heavy: the MCP SDK is imported by `run_mcp` once the arguments are checked, and
the store and the service by the first tool call (see `connection.py`).
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from datetime import datetime
from pathlib import Path

from plansight.mcp.native import AGENT_TOOLS
from plansight.mcp.session import MAX_SESSION_LENGTH, requested_session
from plansight.protocol.text import clean_content
from plansight.store.location import is_url, store_location


def run_mcp(
    db_path: str | None,
    session: str | None,
    workspace: str | None = None,
    agent: str | None = None,
) -> int:
    """Serve on stdio until the client closes it. Exit 2 (one line on stderr) when the
    session name or the agent is unusable; a store that cannot be used is told to the
    client by each call that needs it."""
    started = datetime.now().astimezone()
    if agent is not None and agent not in AGENT_TOOLS:
        known = ", ".join(AGENT_TOOLS)
        print(f"plansight: no native tools for agent {agent!r} (known: {known})", file=sys.stderr)
        return 2
    session = requested_session(session)
    if session is not None:
        session = clean_content(session)  # as the contract cleans every session name
    if session is not None and not 1 <= len(session) <= MAX_SESSION_LENGTH:
        print(
            f"plansight: the session name must be 1 to {MAX_SESSION_LENGTH} characters",
            file=sys.stderr,
        )
        return 2
    location = store_location(db_path, None)
    if not is_url(location):  # a URL is never made a path (open_store says what is wrong)
        location = str(Path(location).resolve())
    # The SDK's import builds thousands of objects, which set off the cyclic garbage
    # collector again and again (about a tenth of the start on this machine): paused
    # while it runs, then what was built is kept out of later full passes.
    collecting = gc.isenabled()
    gc.disable()
    import anyio

    from plansight.mcp.connection import PlanConnection, build_server
    from plansight.mcp.stdio import checked_stdio

    gc.freeze()
    if collecting:
        gc.enable()
    connection = PlanConnection(location, workspace, session, started, agent)
    server = build_server(connection)

    async def serve() -> None:
        async with checked_stdio() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    def on_term(signum: int, frame: object) -> None:
        # An agent may end its servers with SIGTERM, stdin still open (which a clean exit
        # would wait on): free the name, then die of the signal as before.
        connection.release_session()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, on_term)
    try:
        anyio.run(serve)
    except KeyboardInterrupt:
        pass
    finally:
        connection.close()
    return 0
