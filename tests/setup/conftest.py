"""What every setup test starts from: a home folder of its own and a project in git."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The person's home: setup writes the agents' user settings under it."""
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project (a folder holding `.git`), the folder setup runs in."""
    folder = tmp_path / "project"
    (folder / ".git").mkdir(parents=True)
    return folder
