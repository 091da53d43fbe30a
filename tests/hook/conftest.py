"""Fixtures of the hook tests: a machine to replay recorded events on."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from replay import Replay

# The editor's test client lives with the end-to-end tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Replay]:
    project = tmp_path / "project"
    home = tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "app.py").write_text("print('hi')\n", encoding="utf-8")
    state = tmp_path / "state"
    # The test looks for the store where the hook puts it: the same state folder.
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.delenv("PLANSIGHT_DB", raising=False)
    replay = Replay(project=project, state=state, home=home)
    yield replay
    replay.stop_warm()  # the events started one: it would idle on for ten minutes


@pytest.fixture
def short_folder() -> Iterator[Path]:
    """A folder with a path short enough to hold a Unix socket (pytest's are not)."""
    folder = Path(tempfile.mkdtemp(prefix="ps-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
