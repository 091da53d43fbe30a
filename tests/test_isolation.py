"""The tests keep out of the person's home: every process a test starts gets the tests'
own HOME, XDG folders and runtime folder (tests/conftest.py), so a hook event or a
command run by a test lands in the tests' hook log, store and warm process, never in the
person's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def _plansight(*args: str, stdin: str = "", cwd: Path | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,  # a guard against a hang, not a speed check
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _lines_naming(log: Path, marker: str) -> list[str]:
    if not log.is_file():
        return []
    return [line for line in log.read_text(errors="replace").splitlines() if marker in line]


def test_a_process_a_test_starts_finds_its_state_in_the_tests_home(
    homes: tuple[Path, Path, Path],
) -> None:
    tests_home, real_home, real_state_home = homes
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json; from plansight.logs import log_path;"
            " from plansight.warm.relay import address;"
            " from plansight.paths import default_store_path;"
            " print(json.dumps([str(log_path()), address(), str(default_store_path('.'))]))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    for path in map(Path, json.loads(where.stdout)):
        assert _inside(path, tests_home), path
        assert not _inside(path, real_home) and not _inside(path, real_state_home), path
    assert _inside(Path(os.environ["HOME"]), tests_home)


def test_a_hook_event_and_a_command_leave_nothing_in_the_real_home(
    tmp_path: Path, homes: tuple[Path, Path, Path]
) -> None:
    """A hook event and a one-shot command (both relayed to a warm process, as a person's
    are) write their log lines and their store under the tests' home only."""
    _, _, real_state_home = homes
    marker = f"isolation-{uuid.uuid4().hex}"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    real_log = real_state_home / "plansight" / "hook.log"
    real_state = real_state_home / "plansight"
    before = set(real_state.iterdir()) if real_state.is_dir() else set()

    event = {
        "session_id": marker,
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "Fix the login bug please",
    }
    _plansight("hook", "claude-code", stdin=json.dumps(event), cwd=project)
    _plansight(
        "apply", "--session", marker, "--ops", '[{"op": "append", "items": ["a"]}]', cwd=project
    )
    shown = _plansight("sessions", "--json", cwd=project)
    assert marker in shown  # the command's store is the project's default one...

    tests_state = Path(os.environ["XDG_STATE_HOME"]) / "plansight"
    assert _lines_naming(tests_state / "hook.log", marker)  # ...and it logged here
    assert not _lines_naming(real_log, marker)
    after = set(real_state.iterdir()) if real_state.is_dir() else set()
    assert not any(marker.encode() in path.read_bytes() for path in after - before)
