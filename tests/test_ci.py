""".ci/run as CI and a person run it: every stage runs whatever became of the ones before,
the summary says which passed and failed, and apt's lock held by another process is
waited for, within a bound."""

from __future__ import annotations

import fcntl
import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_stage_runs_and_the_summary_says_which_failed(tmp_path: Path) -> None:
    script = (
        f". {REPO / '.ci' / 'stages.sh'}\n"
        "lint() { false; echo 'ran past the failure'; }\n"
        'stage "Lint" lint\n'
        'stage "Python tests" true\n'
        'stage "Neovim plugin" bash -c "exit 3"\n'
        'stage "VS Code extension" true\n'
        "stages_summary\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANSIGHT_CI_")}
    done = subprocess.run(
        ["bash", "-uc", script], capture_output=True, text=True, env=env, check=False, cwd=tmp_path
    )
    assert done.returncode == 1
    assert "ran past the failure" not in done.stdout  # a stage stops at its first failure
    lines = done.stdout.splitlines()
    summary = lines[next(i for i, line in enumerate(lines) if "== Summary" in line) + 1 :]
    assert [line.split()[0] for line in summary[:4]] == ["failed", "passed", "failed", "passed"]
    assert [line.split("  ")[-1].strip() for line in summary[:4]] == [
        "Lint",
        "Python tests",
        "Neovim plugin",
        "VS Code extension",
    ]
    assert all(line.split()[1].endswith("s") for line in summary[:4])  # its seconds
    assert summary[4].startswith("FAILED after ")


def _wait_for_apt(lock: Path, bound: int) -> subprocess.Popen[str]:
    env = {**os.environ, "APT_LOCKS": str(lock), "APT_LOCK_WAIT_SECONDS": str(bound)}
    return subprocess.Popen(
        [str(REPO / ".ci" / "run"), "--wait-for-apt-only"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_apt_held_by_another_process_is_waited_for(tmp_path: Path) -> None:
    lock = tmp_path / "lock-frontend"
    lock.touch()
    holder = os.open(lock, os.O_RDWR)
    fcntl.lockf(holder, fcntl.LOCK_EX)  # another apt holds it
    waiting = _wait_for_apt(lock, 600)
    assert waiting.stdout is not None
    said = waiting.stdout.readline()  # it says so before it waits
    assert said.startswith("apt is in use by another process: waiting for its lock (up to 600 s)")
    os.close(holder)  # the other apt is done
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert "apt's lock is free after" in out


def test_the_wait_for_apt_is_bounded(tmp_path: Path) -> None:
    lock = tmp_path / "lock-frontend"
    lock.touch()
    holder = os.open(lock, os.O_RDWR)
    fcntl.lockf(holder, fcntl.LOCK_EX)
    waiting = _wait_for_apt(lock, 0)
    try:
        _, err = waiting.communicate(timeout=120)
    finally:
        os.close(holder)
    assert waiting.returncode == 1 and "giving up" in err
