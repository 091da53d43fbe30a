"""Whether a `plansight` MCP server entry runs: `plansight doctor` names an entry healthy only
once the command it names is found and, unless it is this very Plansight, answers MCP's
`initialize` as Plansight (a person's own entry may name a program that is gone, or a
Python that has no Plansight).

The agents start a stdio server as `command` with `args`, the entry's environment added to
their own, in the entry's `cwd` if it has one: Claude Code, Gemini CLI and Copilot CLI as
`{command, args, env?, cwd?}`, Codex as the same keys in TOML, OpenCode as `{command:
[program, ...args], environment?}`.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plansight.setup import codex_config, mcp_entry
from plansight.setup.findings import Finding
from plansight.setup.settings_file import SetupError
from plansight.setup.setup_command import plansight_command
from plansight.setup.setup_record import file_record

# A guard against a server that never answers, never a speed check: `plansight mcp`
# answers in about half a second, and took 5 s on a machine under a load of 20.
ANSWER_SECONDS = 30


@dataclass(slots=True)
class Launch:
    """How the agent starts the server an entry names."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None


def launch_of(entry: Any) -> Launch | None:
    """The program and arguments an entry runs (None: it names no command, such as a URL)."""
    if not isinstance(entry, dict):
        return None
    command = entry.get("command")
    args = entry.get("args", [])
    if isinstance(command, list):  # OpenCode: the program and its arguments in one list
        command, args = (command[0], command[1:]) if command else (None, [])
    if not isinstance(command, str) or not command or not isinstance(args, list):
        return None
    env = entry.get("env", entry.get("environment"))
    cwd = entry.get("cwd")
    return Launch(
        [command, *(str(arg) for arg in args)],
        {k: v for k, v in env.items() if isinstance(v, str)} if isinstance(env, dict) else {},
        cwd if isinstance(cwd, str) else None,
    )


def launch_problem(entry: Any, this_plansight: str) -> str | None:
    """What stops the entry's server from running, in a few words (None: it runs)."""
    launch = launch_of(entry)
    if launch is None:
        return "it names no command to run"
    program = _resolve(launch.argv[0], launch)
    if program is None:
        return f"its command {launch.argv[0]!r} is not found"
    command, args = mcp_entry.command_and_args(this_plansight)
    if launch.argv == [command, *args] and not launch.env and launch.cwd is None:
        return None  # this very Plansight, which is running now
    return _handshake_problem([program, *launch.argv[1:]], launch)


def _resolve(program: str, launch: Launch) -> str | None:
    """The executable the agent would start: a path as it is (from the entry's folder), a
    bare name on PATH (the entry's own PATH if it sets one)."""
    if os.sep in program or (os.altsep and os.altsep in program):
        path = Path(launch.cwd or ".") / Path(program).expanduser()
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(program, path=launch.env.get("PATH", os.environ.get("PATH")))


def _handshake_problem(argv: list[str], launch: Launch) -> str | None:
    """Starts the server, asks `initialize`, and ends it: None when it answers as
    Plansight's MCP server within ANSWER_SECONDS."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "plansight-doctor", "version": "1"},
        },
    }
    shown = " ".join(argv[:1] + launch.argv[1:])
    try:
        server = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=launch.cwd,
            env={**os.environ, **launch.env},
        )
    except OSError as exc:
        return f"`{shown}` cannot be started ({exc.strerror or exc.__class__.__name__})"
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write((json.dumps(initialize) + "\n").encode())
        server.stdin.flush()
        name = _server_name(server.stdout, time.monotonic() + ANSWER_SECONDS)
    except (OSError, EOFError):
        return f"`{shown}` ended without answering MCP's initialize"
    finally:
        server.kill()
        server.wait()
        with contextlib.suppress(OSError):  # what a server gone early left unwritten
            server.stdin.close()
        server.stdout.close()
    if name is None:
        return f"`{shown}` did not answer as an MCP server within {ANSWER_SECONDS} s"
    if name != mcp_entry.NAME:
        return f"`{shown}` answered, but not as Plansight's MCP server"
    return None


def _server_name(stdout: Any, deadline: float) -> str | None:
    """The `serverInfo.name` of the answer to `initialize` (None: no answer by `deadline`;
    EOFError: the server ended without one)."""
    pending = b""
    with selectors.DefaultSelector() as selector:
        selector.register(stdout, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if not selector.select(left):
                return None
            chunk = os.read(stdout.fileno(), 65536)
            if not chunk:
                raise EOFError  # it ended without answering
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                try:
                    reply = json.loads(line)
                except ValueError:
                    continue  # a line of its own log on stdout
                if isinstance(reply, dict) and reply.get("id") == 1:
                    result = reply.get("result")
                    info = result.get("serverInfo") if isinstance(result, dict) else None
                    return str(info.get("name", "")) if isinstance(info, dict) else ""
    return None


def entry_finding(agent: str, path: Path, entry: dict[str, Any], text: str) -> Finding:
    """✓ when the entry's command runs Plansight's MCP server; else what is wrong, and the
    fix: setup again for an entry setup wrote, by hand for the person's own (which setup
    keeps)."""
    problem = launch_problem(entry, plansight_command())
    if problem is None:
        return Finding(True, f"MCP server plansight in {path}")
    if _setup_wrote(agent, path, entry, text):
        fix = f"plansight setup {agent}"
    else:
        fix = (
            f"correct or delete your own `plansight` entry in {path}, then: plansight setup {agent}"
        )
    return Finding(False, f"MCP server plansight in {path} does not run: {problem}", fix)


def _setup_wrote(agent: str, path: Path, entry: dict[str, Any], text: str) -> bool:
    """Setup would replace this entry with its own (as `mcp_entry.with_server` and
    `codex_config.with_plansight` decide)."""
    try:
        record = file_record(path)
    except SetupError:
        return False
    if agent == "codex":
        return any(codex_config.MCP_MARKER in block and block in text for block in record.blocks)
    if agent == "opencode":
        from plansight.setup.opencode_setup import is_setup_form
    else:
        is_setup_form = mcp_entry.is_setup_form
    if record.kept:
        return entry == record.mcp.get(mcp_entry.NAME)
    return is_setup_form(entry)
