"""Replaying recorded hook events through `plansight hook AGENT`, a real subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plansight.warm.relay import running_pid

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hooks"
AGENTS = ("claude-code", "codex", "gemini", "copilot")


def fixture_names(agent: str) -> list[str]:
    return sorted(path.stem for path in (FIXTURES / agent).glob("*.json"))


@dataclass
class HookRun:
    returncode: int
    stdout: str
    reply: dict[str, Any]


@dataclass
class Replay:
    """One person's machine: a project (a git root), a state folder, a home."""

    project: Path
    state: Path
    home: Path
    extra_env: dict[str, str] = field(default_factory=dict)

    def event(self, agent: str, name: str, **changes: Any) -> dict[str, Any]:
        """A recorded event with its placeholders filled for this machine."""
        text = (FIXTURES / agent / f"{name}.json").read_text(encoding="utf-8")
        for key, value in (
            ("{{project}}", self.project),
            ("{{home}}", self.home),
            ("{{codex_home}}", self.home / ".codex"),
        ):
            text = text.replace(key, str(value))
        event: dict[str, Any] = json.loads(text)
        event.update(changes)
        return event

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLANSIGHT_")}
        # A warm hook process one of the tests missed stopping leaves within a minute.
        env.update(XDG_STATE_HOME=str(self.state), HOME=str(self.home))
        env["PLANSIGHT_HOOK_IDLE_SECONDS"] = "60"
        env.update(self.extra_env)
        return env

    def run(self, agent: str, payload: bytes | dict[str, Any]) -> HookRun:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        done = subprocess.run(
            [sys.executable, "-m", "plansight", "hook", agent],
            input=data,
            capture_output=True,
            cwd=self.home,  # the agent's own folder: the hook must go by the event's cwd
            env=self.env(),
            timeout=30,  # a guard against a hang, not a speed check (bench/ measures it)
            check=False,
        )
        stdout = done.stdout.decode()
        lines = stdout.splitlines()
        assert len(lines) == 1, f"stdout must be exactly one JSON object: {stdout!r}"
        reply = json.loads(lines[0])
        assert isinstance(reply, dict)
        assert done.stderr == b"", done.stderr
        return HookRun(done.returncode, stdout, reply)

    def replay(self, agent: str, name: str, **changes: Any) -> dict[str, Any]:
        run = self.run(agent, self.event(agent, name, **changes))
        assert run.returncode == 0
        return run.reply

    def warm_address(self) -> Path:
        """The socket of the warm hook process for this machine's settings."""
        done = subprocess.run(
            [sys.executable, "-c", "from plansight.warm.relay import address; print(address())"],
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return Path(done.stdout.strip())

    def stop_warm(self) -> bool:
        """Stop the warm hook process of this machine's settings; True when one ran. An
        event handled by the hook itself starts one: it is waited for (a few seconds at
        most), so that none outlives the test."""
        started = bool(self.log()) and self.env().get("PLANSIGHT_HOOK_DAEMON") != "0"
        address = self.warm_address()
        starting = Path(f"{address}.starting")  # there until the one started listens
        deadline = time.monotonic() + (10 if started else 0)
        while starting.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        pid = running_pid(f"{address}.lock")
        if pid is None:
            return False
        os.kill(pid, signal.SIGTERM)
        return True

    def log(self) -> str:
        path = self.state / "plansight" / "hook.log"
        return path.read_text(encoding="utf-8") if path.exists() else ""
