"""Fixtures of the real-agent tests."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_home import AgentHome


@pytest.fixture
def person(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AgentHome]:
    home = tmp_path / "home"
    project = tmp_path / "project"
    for folder in (home, project):
        folder.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "app.py").write_text("print('hi')\n", encoding="utf-8")
    # The test looks for the store where the agent's hooks put it: the same state folder.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("PLANSIGHT_DB", raising=False)
    someone = AgentHome(home=home, state=tmp_path / "state", project=project)
    yield someone
    # The warm hook process the agent's hooks started (none when they ran no hook).
    subprocess.run(
        [sys.executable, "-m", "plansight", "hook-daemon", "--stop"],
        env=someone.env(),
        capture_output=True,
        check=False,
    )
