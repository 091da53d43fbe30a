"""Fixtures of the real-agent tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from agent_home import AgentHome


@pytest.fixture
def person(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentHome:
    home = tmp_path / "home"
    project = tmp_path / "project"
    for folder in (home, project):
        folder.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "app.py").write_text("print('hi')\n", encoding="utf-8")
    # The test looks for the store where the agent's hooks put it: the same state folder.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("PLANSIGHT_DB", raising=False)
    return AgentHome(home=home, state=tmp_path / "state", project=project)
