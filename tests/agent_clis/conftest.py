"""Fixtures of the real-agent tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from agent_home import AgentHome


@pytest.fixture
def person(tmp_path: Path) -> AgentHome:
    home = tmp_path / "home"
    project = tmp_path / "project"
    for folder in (home, project):
        folder.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "app.py").write_text("print('hi')\n", encoding="utf-8")
    return AgentHome(home=home, state=tmp_path / "state", project=project)
