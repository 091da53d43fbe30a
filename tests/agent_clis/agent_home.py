"""The agents' real CLIs (installed by `tests/agent_clis/install.sh`), each run in a home of
its own, with Plansight set up the way a person would: `plansight setup AGENT`."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLIS = Path(os.environ.get("PLANSIGHT_AGENT_CLIS") or REPO / ".cache/agent-clis/node_modules/.bin")
RUN_TIMEOUT = 180  # a guard against a hang, never a speed check


def agent_cli(name: str) -> str:
    """The path of an agent's CLI; a missing one fails the test (these tests never skip)."""
    path = CLIS / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run tests/agent_clis/install.sh (npm, about 35 s)")
    return str(path)


@dataclass
class AgentHome:
    """A person's machine in miniature: a home, a state folder, a git project."""

    home: Path
    state: Path
    project: Path

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(
                ("PLANSIGHT_", "CLAUDE", "ANTHROPIC_", "CODEX_", "GEMINI_", "OPENAI_")
            )
        }
        env.update(
            HOME=str(self.home),
            XDG_STATE_HOME=str(self.state),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_DATA_HOME=str(self.home / ".local/share"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            PATH=f"{CLIS}:{env.get('PATH', '')}",
            NO_COLOR="1",
            # The agent's hooks start a warm hook process: it leaves within a minute.
            PLANSIGHT_HOOK_IDLE_SECONDS="60",
        )
        env.update(extra)
        return env

    def plansight(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run `plansight ARGS` in the project as this person would."""
        return subprocess.run(
            [sys.executable, "-m", "plansight", *args],
            cwd=self.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )

    def run(self, command: list[str], **extra_env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command,
            cwd=self.project,
            env=self.env(**extra_env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
