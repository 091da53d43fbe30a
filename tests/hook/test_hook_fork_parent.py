"""Which conversation Claude Code forked, read from the command line of a real process
standing in for Claude Code (`hook/fork_parent.py`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from plansight.conversation_link import process_key
from plansight.hook.fork_parent import claude_fork_parent

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux /proc")

FORK = "99e8049f-91a4-4e54-a42f-de1543efc24c"


@contextmanager
def agent(*args: str) -> Iterator[str]:
    """A process whose command line is `python -c ... ARGS`, as its key."""
    code = "import time; print('ready', flush=True); time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"  # it runs
        yield str(process_key(child.pid))
    finally:
        child.kill()
        child.wait()


def _event(transcripts: Path) -> dict[str, str]:
    return {"session_id": FORK, "transcript_path": str(transcripts / f"{FORK}.jsonl")}


def test_resume_names_the_parent(tmp_path: Path) -> None:
    for args in (["-p", "--resume", "abc", "--fork-session"], ["-r", "abc"], ["--resume=abc"]):
        with agent(*args) as key:
            assert claude_fork_parent(_event(tmp_path), key) == "abc"
    with agent("--resume", str(tmp_path / "abc.jsonl"), "--fork-session") as key:
        assert claude_fork_parent(_event(tmp_path), key) == "abc"


def test_continue_forks_the_newest_conversation_of_the_folder(tmp_path: Path) -> None:
    for name, age in (("old", 100), ("newest", 10), ("middle", 50)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("{}\n")
        stamp = time.time() - age
        os.utime(path, (stamp, stamp))
    with agent("-p", "--continue", "--fork-session", "go") as key:
        assert claude_fork_parent(_event(tmp_path), key) == "newest"


def test_nothing_named_is_none(tmp_path: Path) -> None:
    with agent("-p", "--resume", "--fork-session") as key:  # the picker: no id
        assert claude_fork_parent(_event(tmp_path), key) is None
    with agent("-p", "--resume", "abc") as key:
        gone = key
    assert claude_fork_parent(_event(tmp_path), gone) is None  # that process has ended
    assert claude_fork_parent(_event(tmp_path), None) is None
