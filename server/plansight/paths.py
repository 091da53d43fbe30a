"""Where the store lives by default, as the contract says."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def workspace_root(start: str | os.PathLike[str] | None = None) -> Path:
    """The nearest ancestor of `start` (default: the current directory) holding `.git`,
    else `start` itself."""
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def state_home() -> Path:
    configured = os.environ.get("XDG_STATE_HOME")
    if configured and os.path.isabs(configured):
        return Path(configured)
    return Path.home() / ".local" / "state"


def state_folder() -> Path:
    """`$XDG_STATE_HOME/plansight`: the stores by default, and what the hooks and the warm
    process keep (their log, conversations, spool)."""
    return state_home() / "plansight"


def default_store_path(root: str | os.PathLike[str]) -> Path:
    """`$XDG_STATE_HOME/plansight/<12 hex of sha256(realpath(root))>.sqlite3`."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return state_folder() / f"{digest}.sqlite3"


def resolve_store_path(explicit: str | None, root: str | os.PathLike[str] | None) -> Path:
    """`--db`, else `PLANSIGHT_DB`, else the default for `root` (else the shell's root);
    a linked git worktree's is its main working tree's (v4, `checkouts.store_root`)."""
    if explicit:
        return Path(explicit).expanduser()
    from_env = os.environ.get("PLANSIGHT_DB")
    if from_env:
        return Path(from_env).expanduser()
    from plansight.checkouts import store_root

    return default_store_path(store_root(root if root is not None else workspace_root()))
