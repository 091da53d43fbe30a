"""The workspace key that scopes a team store: every session belongs to one workspace.

Two clones of one repository on two machines must share plans, so the key comes from the
git remote `origin` (normalized: no scheme, no credentials, no `.git`), else the name of
the project's root folder. `PLANSIGHT_WORKSPACE` / `--workspace` override it.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>(?!//).+)$")


def normalize_remote(url: str) -> str | None:
    """`git@github.com:Org/Repo.git`, `https://user:token@github.com/org/repo/` and
    `ssh://git@github.com/org/repo` all give `github.com/org/repo`."""
    url = url.strip()
    if not url:
        return None
    if "://" in url:
        parts = urlsplit(url)
        host = parts.hostname or ""  # without user, password or port
        path = parts.path
    else:
        match = _SCP_LIKE.match(url)
        if match is None:  # a local path used as a remote: its folder name is the key
            return Path(url.rstrip("/")).name.removesuffix(".git").lower() or None
        host, path = match["host"], match["path"]
    path = path.strip("/").removesuffix(".git").strip("/")
    key = f"{host}/{path}" if host else path
    # Hosting services ignore case in owner and repository names: so does the key.
    return key.lower() or None


def origin_url(root: Path) -> str | None:
    try:
        found = subprocess.run(
            ["git", "-C", str(root), "config", "--get", "remote.origin.url"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return found.stdout.strip() or None if found.returncode == 0 else None


def workspace_key(root: Path, explicit: str | None = None) -> str:
    """`explicit`, else `PLANSIGHT_WORKSPACE`, else the normalized `origin`, else the root
    folder's name (a linked git worktree's: its main working tree's, so every worktree
    of a repository shares one key)."""
    for given in (explicit, os.environ.get("PLANSIGHT_WORKSPACE")):
        if given and given.strip():
            return given.strip()
    remote = origin_url(root)
    key = normalize_remote(remote) if remote else None
    if key:
        return key
    from plansight.checkouts import store_root

    return store_root(root.resolve()).name or "default"
