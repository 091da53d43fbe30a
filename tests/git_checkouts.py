"""Real git repositories for the worktree tests, made with git itself."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com",
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": str(cwd),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        },
    )
    return done.stdout


def repository(main: Path) -> Path:
    """A repository with one commit, its main working tree at `main`."""
    main.mkdir(parents=True)
    git("init", "-q", cwd=main)
    (main / "README").write_text("hello\n")
    git("add", "README", cwd=main)
    git("commit", "-q", "-m", "first", cwd=main)
    return main


def linked_worktree(main: Path, folder: Path, branch: str) -> Path:
    """`git worktree add -b <branch> <folder>`: a linked worktree of `main`."""
    git("worktree", "add", "-q", "-b", branch, str(folder), cwd=main)
    return folder
