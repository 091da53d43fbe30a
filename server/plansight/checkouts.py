"""Which git checkout a folder is in, and the root its store is kept for: every
worktree of one repository shares the store of its main working tree.

Read from git's own files, never by running `git`: the hook asks on the agent's time.
A linked worktree's `.git` is a file, `gitdir: <common git dir>/worktrees/<name>`; that
folder's `commondir` names the common git dir, whose parent is the main working tree
(when the common dir is a `.git` folder of a repository that is not bare). A submodule's
`.git` file points into `.git/modules/...` instead: not a linked worktree, its own root.
Every file is read bounded, and anything unexpected (a hostile or broken `.git` file)
reads as "not a linked worktree": the folder keeps its own root. Standard library only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

# The git files read here are a line or a short config; more than this is not git's.
_MOST_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Checkout:
    """A session's checkout, as `plansight/sessions` sends it: the linked worktree's
    folder relative to the main working tree's root (absolute when outside it; None: the
    main working tree, or a checkout with a store of its own), and the checked-out branch
    (None: a detached HEAD, or unknown)."""

    worktree: str | None
    branch: str | None

    def wire(self) -> dict[str, str | None]:
        return {"worktree": self.worktree, "branch": self.branch}


def checkout_text(checkout: Checkout | None) -> str | None:
    """The checkout as a store's `checkout` column keeps it (NULL: none)."""
    return None if checkout is None else json.dumps(checkout.wire(), ensure_ascii=False)


def checkout_from_text(text: object) -> Checkout | None:
    """The column read back; anything that is not one (another writer's) reads as none."""
    if not isinstance(text, str):
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None
    worktree, branch = found.get("worktree"), found.get("branch")
    if not all(value is None or isinstance(value, str) for value in (worktree, branch)):
        return None
    return Checkout(worktree, branch)


def _small_text(path: Path) -> str | None:
    """The file's text, read bounded; None when it cannot be read or is too long."""
    # Loaded here, not at start-up: every hook event finds its root through this module.
    from plansight.regular_file import NotReadable, read_bounded

    try:
        data = read_bounded(path, _MOST_BYTES)
    except (OSError, ValueError, NotReadable):
        return None
    if data is None or b"\0" in data:
        return None
    return os.fsdecode(data)


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0].rstrip("\r")


def checkout_root(start: Path) -> Path | None:
    """The nearest ancestor of `start` (itself included) holding `.git`, else None."""
    for folder in (start, *start.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def _git_dir(root: Path) -> Path | None:
    """The git folder of the checkout at `root`: its `.git` folder, or the one its `.git`
    file names (`gitdir: <path>`, relative to `root` when not absolute)."""
    dotgit = root / ".git"
    if dotgit.is_dir():
        return dotgit
    text = _small_text(dotgit) if dotgit.is_file() else None
    if text is None:
        return None
    line = _first_line(text)
    if not line.startswith("gitdir:"):
        return None
    named = line[len("gitdir:") :].strip()
    if not named:
        return None
    return Path(os.path.realpath(root / named))


def _is_bare(common: Path) -> bool:
    """Whether the repository's config says `bare = true` in its `[core]` section."""
    text = _small_text(common / "config")
    if text is None:
        return False
    section = ""
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].split(";", 1)[0].strip()
        if line.startswith("["):
            section = line.strip("[]").strip().lower()
        elif section == "core" and "=" in line:
            key, value = (part.strip().lower() for part in line.split("=", 1))
            if key == "bare":
                return value in ("true", "yes", "on", "1")
    return False


def main_root(root: Path) -> Path | None:
    """The main working tree's root when `root` is the root of a linked worktree of a
    repository that has one, else None (a main working tree, a submodule, a bare
    repository's worktree, a broken or foreign `.git` file)."""
    dotgit = root / ".git"
    if not dotgit.is_file():
        return None
    gitdir = _git_dir(root)
    if gitdir is None or gitdir.parent.name != "worktrees":
        return None
    common_text = _small_text(gitdir / "commondir")
    if common_text is None or not _first_line(common_text).strip():
        return None
    common = Path(os.path.realpath(gitdir / _first_line(common_text).strip()))
    # The entry must be one of the common dir's own worktrees, and the common dir the
    # `.git` folder of a working tree (a bare repository's has none to share).
    if common.name != ".git" or gitdir.parent.parent != common or not common.is_dir():
        return None
    if _is_bare(common):
        return None
    main = common.parent
    return None if main == root.resolve() else main


def store_root(root: str | os.PathLike[str]) -> Path:
    """The root whose store `root` uses: its main working tree's for a linked worktree,
    else `root` itself."""
    folder = Path(root)
    return main_root(folder.resolve()) or folder


def _branch(gitdir: Path) -> str | None:
    text = _small_text(gitdir / "HEAD")
    if text is None:
        return None
    line = _first_line(text).strip()
    prefix = "ref: refs/heads/"
    return (line[len(prefix) :] or None) if line.startswith(prefix) else None


def checkout_of(root: str | os.PathLike[str]) -> Checkout | None:
    """The checkout a process whose workspace root is `root` works in; None when `root`
    is in no git checkout."""
    folder = Path(os.path.realpath(root))
    found = checkout_root(folder)
    if found is None:
        return None
    gitdir = _git_dir(found)
    branch = _branch(gitdir) if gitdir is not None else None
    main = main_root(found)
    if main is None:
        return Checkout(None, branch)
    try:
        inside = found.relative_to(main)
    except ValueError:
        return Checkout(str(found), branch)
    return Checkout(inside.as_posix(), branch)
