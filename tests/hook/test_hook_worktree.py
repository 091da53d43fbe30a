"""An agent in a linked git worktree (v4): its hook events land in the store of the main
working tree, its session shows the worktree and branch, and its task's files are
relative to the worktree it changed them in."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from replay import Replay

from git_checkouts import linked_worktree, repository
from plansight.paths import default_store_path
from plansight.store.sqlite import SqliteStore

CLAUDE = "claude-code:5f0c2a9e-1b7d-4c3e-9a61-0d8e2f4b7c11"


@pytest.fixture
def worktree_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Replay]:
    main = repository(tmp_path / "repo")
    tree = linked_worktree(main, main / "trees" / "feature", "feature")
    (tree / "app.py").write_text("print('hi')\n", encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.delenv("PLANSIGHT_DB", raising=False)
    replay = Replay(project=tree, state=state, home=home)
    yield replay
    replay.stop_warm()


def sessions_json(folder: Path, env: dict[str, str]) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "plansight", "sessions", "--json"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout)["sessions"])


def test_a_hook_in_a_linked_worktree_writes_the_main_trees_store(
    worktree_machine: Replay,
) -> None:
    machine = worktree_machine
    main = machine.project.parent.parent
    for name in (
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse-TaskCreate-1",
        "PostToolUse-TaskUpdate-in_progress",
        "PostToolUse-Edit",
    ):
        assert machine.replay("claude-code", name) == {}
    assert not default_store_path(machine.project).exists()
    store = SqliteStore(default_store_path(main))
    try:
        task = next(store.load(CLAUDE).tasks())
        # Relative to the worktree it was changed in: it opens there.
        assert list(task.files) == ["app.py"]
    finally:
        store.close()
    for folder in (main, machine.project):
        listed = sessions_json(folder, machine.env())
        assert [(s["session"], s["checkout"]) for s in listed] == [
            (CLAUDE, {"worktree": "trees/feature", "branch": "feature"})
        ]
