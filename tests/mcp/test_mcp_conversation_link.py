"""Plansight's MCP tool writes the plan of the conversation it serves: the one the agent's
hooks heard, found through the agent's process, which runs both (`conversation_link.py`).

Real processes only: this test's process plays the agent. It runs `plansight hook gemini`
through `sh -c` as agents do, and starts `plansight mcp` as its child, as agents do.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_harness import mcp_client, session_of, todo

from plansight.conversation_link import agent_process, link_folder, process_key
from plansight.store.sqlite import SqliteStore

CONVERSATION = "9d1c2f0e-5b1a-4c55-8f0e-6a1b2c3d4e5f"
PROMPT = "Fix the login redirect\nIt loops after the second attempt."


class Agent:
    """This process as an agent: a project, a state folder, hooks run through a shell."""

    def __init__(self, root: Path, warm: bool) -> None:
        self.project = root / "project"
        (self.project / ".git").mkdir(parents=True)
        self.state = root / "state"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PLANSIGHT_")}
        self.env |= {"XDG_STATE_HOME": str(self.state), "HOME": str(root)}
        self.env["PLANSIGHT_HOOK_IDLE_SECONDS"] = "60"
        if not warm:
            self.env["PLANSIGHT_HOOK_DAEMON"] = "0"

    def hook(self, name: str, session_id: str = CONVERSATION, **fields: Any) -> dict[str, Any]:
        event = {"session_id": session_id, "hook_event_name": name, "cwd": str(self.project)}
        command = shlex.join([sys.executable, "-m", "plansight", "hook", "gemini"])
        done = subprocess.run(
            ["sh", "-c", command],
            input=json.dumps(event | fields).encode(),
            capture_output=True,
            cwd=self.project,
            env=self.env,
            timeout=30,  # a guard against a hang, not a speed check
            check=True,
        )
        reply: dict[str, Any] = json.loads(done.stdout)
        return reply

    def start(self, session_id: str = CONVERSATION) -> None:
        self.hook("SessionStart", session_id, source="startup")
        self.hook("BeforeAgent", session_id, prompt=PROMPT)

    def plans(self) -> dict[str, tuple[str | None, list[str]]]:
        (store_path,) = (self.state / "plansight").glob("*.sqlite3")
        store = SqliteStore(store_path)
        try:
            return {p.session: (p.title, [t.content for t in p.tasks()]) for p in store.sessions()}
        finally:
            store.close()

    def plansight(self, *args: str, check: bool = True) -> None:
        subprocess.run(
            [sys.executable, "-m", "plansight", *args],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            timeout=30,
            check=check,
        )

    def stop(self) -> None:
        self.plansight("hook-daemon", "--stop", check=False)  # 1: none was running


@pytest.fixture(params=["warm", "own process"])
def agent(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Both ways a hook runs: relayed to the warm process (nobody's child), or its own."""
    agent = Agent(tmp_path, warm=request.param == "warm")
    yield agent
    if request.param == "warm":
        agent.stop()


async def test_the_mcp_tool_writes_the_plan_of_the_hooks_conversation(agent: Agent) -> None:
    agent.start()
    async with mcp_client(name="gemini-cli-mcp-client", env=agent.env, cwd=agent.project) as mcp:
        await mcp.call_tool("todo_write", {"todos": [todo("Trace the redirect", "Tracing")]})
        assert await session_of(mcp) == f"gemini:{CONVERSATION}"
    # One session, with the title its first prompt gives, as a native plan tool's would be.
    assert agent.plans() == {
        f"gemini:{CONVERSATION}": ("Fix the login redirect", ["Trace the redirect"])
    }
    # A person's change reaches the agent with its next prompt, through the hooks.
    agent.plansight(
        "apply",
        "--origin",
        "user",
        "--session",
        f"gemini:{CONVERSATION}",
        "--ops",
        json.dumps([{"op": "append", "items": [{"content": "Add a regression test"}]}]),
    )
    told = agent.hook("BeforeAgent", prompt="Go on")
    context = told["hookSpecificOutput"]["additionalContext"]
    assert "Add a regression test" in context


async def test_after_a_clear_the_mcp_tool_follows_the_new_conversation(agent: Agent) -> None:
    agent.start()
    async with mcp_client(name="gemini-cli-mcp-client", env=agent.env, cwd=agent.project) as mcp:
        await mcp.call_tool("todo_write", {"todos": [todo("Finished", "F", "completed")]})
        agent.hook("SessionStart", "after-clear", source="clear")
        agent.hook("BeforeAgent", "after-clear", prompt="Write the changelog")
        await mcp.call_tool("todo_write", {"todos": [todo("Draft it", "Drafting")]})
    assert agent.plans() == {
        f"gemini:{CONVERSATION}": ("Fix the login redirect", ["Finished"]),
        "gemini:after-clear": ("Write the changelog", ["Draft it"]),
    }


async def test_a_clear_carries_on_the_unfinished_plan_the_mcp_tool_wrote(agent: Agent) -> None:
    """A `/clear` right after the plan, no prompt between: the new conversation carries the
    unfinished plan on, as after a plan of the agent's own tool, and so does the MCP tool."""
    agent.start()
    async with mcp_client(name="gemini-cli-mcp-client", env=agent.env, cwd=agent.project) as mcp:
        await mcp.call_tool("todo_write", {"todos": [todo("Trace the redirect", "Tracing")]})
        agent.hook("SessionStart", "after-clear", source="clear")
        agent.hook("BeforeAgent", "after-clear", prompt="Go on")
        await mcp.call_tool("todo", {"ops": [{"op": "start", "task": "Trace the redirect"}]})
    assert list(agent.plans()) == [f"gemini:{CONVERSATION}"]


async def test_without_hooks_the_mcp_tool_keeps_a_session_of_its_own(agent: Agent) -> None:
    async with mcp_client(env=agent.env, cwd=agent.project) as mcp:
        assert (await session_of(mcp)).startswith("claude-code ")


def test_the_relay_names_the_agent_not_the_shell_it_ran_the_hook_through(tmp_path: Path) -> None:
    probe = "from plansight.conversation_link import agent_process; print(agent_process())"
    command = shlex.join([sys.executable, "-c", probe])
    named = subprocess.run(["sh", "-c", f"{command}; true"], capture_output=True, check=True)
    assert named.stdout.decode().strip() == process_key(os.getpid())
    assert agent_process() == process_key(os.getppid())


@pytest.mark.parametrize("damage", ["another start", "not json", "huge", "fifo", "shared"])
async def test_a_link_that_cannot_be_trusted_is_not_followed(damage: str, tmp_path: Path) -> None:
    """A pid the system gave again to another process, a damaged, huge or blocking file,
    or a process seen serving two conversations at once: the server's own session."""
    agent = Agent(tmp_path, warm=False)
    folder = link_folder(agent.state / "plansight")
    folder.mkdir(parents=True)
    key = process_key(os.getpid())
    assert key is not None
    record = {"agent": "gemini", "conversation": "gemini:x", "session": "gemini:x", "title": "T"}
    path = folder / f"{key}.json"
    if damage == "another start":
        pid, start = key.split("-")
        path = folder / f"{pid}-{int(start) + 1}.json"
        path.write_text(json.dumps(record))
    elif damage == "not json":
        path.write_text("{")
    elif damage == "huge":
        path.write_text(json.dumps(record | {"pad": "x" * 1_000_000}))
    elif damage == "fifo":
        os.mkfifo(path)
    else:
        agent.start()
        agent.hook("BeforeAgent", "another-conversation", prompt="Meanwhile")
    async with mcp_client(name="gemini-cli-mcp-client", env=agent.env, cwd=agent.project) as mcp:
        assert (await session_of(mcp)).startswith("gemini-cli-mcp-client ")
